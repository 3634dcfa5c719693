// The view of `heed show --audio` for a speech model (model.kind las): each WAV file's log-mel
// spectrogram with, beneath it on the same time axis, the attention of each emitted symbol over
// the listener's annotations (viz/spectrogram_attention_picture.h); report.html of them all
// (docs/cli/show.md#speech). A manifest (.tsv) among the files brings its transcripts, and the
// page says which utterances come out right.
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "heed/audio/log_mel.h"
#include "heed/audio/resample.h"
#include "heed/audio/speech_features.h"
#include "heed/base/atomic_file.h"
#include "heed/base/error.h"
#include "heed/cli/show_output.h"
#include "heed/cli/show_view.h"
#include "heed/data/speech_manifest.h"
#include "heed/store/model_dir.h"
#include "heed/translate/speech_decoding.h"
#include "heed/viz/spectrogram_attention_picture.h"
#include "heed/viz/speech_report_html.h"

namespace heed::cli {
namespace {

namespace fs = std::filesystem;

struct Utterance {
  std::string path, reference;  // reference: "" without a manifest
};

// --audio's files in order, a manifest's utterances in its place.
std::vector<Utterance> utterances_of(const std::vector<std::string>& audio) {
  std::vector<Utterance> out;
  for (const std::string& a : audio) {
    if (fs::path(a).extension() == ".tsv") {
      for (const SpeechUtterance& u : read_speech_manifest(a))
        out.push_back({u.audio_path, u.transcript});
    } else {
      out.push_back({a, ""});
    }
  }
  return out;
}

std::string utterance_picture_name(std::size_t i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "utterance-%04zu", i + 1);
  return buf;
}

void show_speech(const ShowOptions& o, const TrainConfig&, const std::vector<std::string>&) {
  const std::string dir = o.model.dirs.front();
  const LoadedModel m = load_speech_model_dir(
      dir, o.model.weights.empty() ? o.model.checkpoint : o.model.weights.front());
  HEED_CHECK(m.model->has_attention(), dir, ": a las model with model.attention.mode none has "
             "no attention to draw (heed transcribe and heed eval --speech read it)");
  const std::vector<Utterance> items = utterances_of(o.audio);
  const SpeechFeatureOptions fo = speech_feature_options(m.config);
  // Every file is read before anything is drawn: a bad one stops the run with its name.
  SpeechFeatures features(fo);
  LogMel spectrogram(fo.log_mel());
  std::vector<Tensor> feats, spectrograms;
  std::vector<double> seconds;
  for (const Utterance& u : items) {
    Audio a = read_wav(u.path);
    if (!a.samples.empty() && a.sample_rate != fo.sample_rate) a = resample(a, fo.sample_rate);
    feats.push_back(features(a, u.path));
    spectrograms.push_back(spectrogram(a));
    seconds.push_back(a.seconds());
  }
  DecodeOptions decode;
  decode.beam = o.beam;
  decode.n_best = 1;
  const std::vector<std::vector<Transcript>> out =
      transcribe(*m.model, *m.tgt_tokenizer, m.tgt_vocab, feats, decode, o.batch_size);
  make_show_dir(o.out);

  const fs::path dir_out(o.out);
  const std::int64_t per_annotation = m.config.model.listener.reduction() * fo.stack;
  const ShowProgress progress(items.size());
  std::vector<viz::SpeechReportItem> report;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const Transcript& t = out[i].front();
    const Tensor s = spectrograms[i].contiguous();
    viz::SpectrogramAttentionPicture pic;
    pic.frames = s.dim(0);
    pic.mels = s.dim(1);
    pic.log_mel.assign(s.data<float>(), s.data<float>() + s.numel());
    pic.seconds_per_frame =
        static_cast<double>(fo.log_mel().hop_length) / static_cast<double>(fo.sample_rate);
    pic.frames_per_annotation = per_annotation;
    pic.symbols = t.symbols;
    pic.attention = t.attention;
    const std::string file = fs::path(items[i].path).filename().string();
    char length[32];
    std::snprintf(length, sizeof length, "%.2f s", seconds[i]);
    pic.title = file + " (" + length + ") \xC2\xB7 " +
                (t.text.empty() ? std::string("(nothing)") : t.text);
    if (!items[i].reference.empty())
      pic.title += t.text == items[i].reference ? "  \xE2\x9C\x93 right"
                                                : "  \xE2\x9C\x97 reference " + items[i].reference;
    const std::string name = utterance_picture_name(i);
    write_file_atomically((dir_out / (name + ".svg")).string(),
                          viz::spectrogram_attention_svg(pic));
    write_file_atomically((dir_out / (name + ".png")).string(),
                          viz::spectrogram_attention_png(pic, o.png_scale));
    report.push_back({"utterance " + std::to_string(i + 1) + " \xC2\xB7 " + items[i].path,
                      name + ".png", name + ".svg", items[i].reference, t.text});
    progress.say("drew utterance", i + 1);
  }
  viz::SpeechReportInfo info;
  info.title = "heed show: " + std::to_string(items.size()) +
               (items.size() == 1 ? " utterance" : " utterances");
  info.facts.push_back(
      "model " + dir + " (" + m.weights_path + "): las, a listener of pyramid " +
      std::to_string(m.config.model.listener.pyramid) +
      (m.config.model.listener.frontend_layers > 0
           ? " after " + std::to_string(m.config.model.listener.frontend_layers) +
                 " convolution layers"
           : std::string()) +
      " over " + std::to_string(fo.mels) +
      " log-mel bins at " + std::to_string(fo.sample_rate) + " Hz" +
      (fo.stack > 1 ? " stacked by " + std::to_string(fo.stack) : std::string()) +
      "; each annotation covers " + std::to_string(per_annotation) + " frames (" +
      std::to_string(10 * per_annotation) + " ms)");
  info.facts.push_back(o.beam == 1 ? std::string("greedy decoding")
                                   : "beam search, beam " + std::to_string(o.beam) +
                                         "; the best transcript's attention");
  const fs::path page = dir_out / "report.html";
  write_file_atomically(page.string(), viz::speech_report_html(info, report));
  std::size_t known = 0, wrong = 0;
  for (const auto& r : report)
    if (!r.reference.empty()) ++known, wrong += r.transcript != r.reference;
  std::printf("wrote %zu %s (%s, .png) and %s", items.size(),
              items.size() == 1 ? "picture" : "pictures",
              (dir_out / "utterance-NNNN.svg").string().c_str(), page.string().c_str());
  if (known > 0) std::printf("; %zu of %zu transcripts wrong", wrong, known);
  std::printf("\n");
}

}  // namespace

extern const ShowView kShowSpeech{ShowInput::audio, transcribes_speech, show_speech};

}  // namespace heed::cli
