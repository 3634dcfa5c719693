#include "heed/cli/transcribe_command.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "heed/base/error.h"
#include "heed/cli/attention_window_option.h"
#include "heed/cli/ctc_weight_option.h"
#include "heed/cli/model_options.h"
#include "heed/cli/validators.h"
#include "heed/kernels/gemm.h"
#include "heed/translate/speech_decoding.h"

namespace heed::cli {
namespace {

class TranscribeCommand : public Command {
 public:
  std::string name() const override { return "transcribe"; }
  std::string description() const override {
    return "Transcribe WAV files with a speech model (model.kind las): one line per file";
  }

  void setup(CLI::App& app) override {
    add_model_options(app, models_);  // --model (model.kind las; repeated: an ensemble)
    app.add_option("files", files_, "WAV files (any rate, mixed down to mono)")->required();
    app.add_option("--beam,-k", beam_, "beam width; 1 = greedy decoding")
        ->check(int_range(1, 1000))
        ->capture_default_str();
    app.add_option("--nbest,-n", nbest_, "transcripts per file (at most --beam); N > 1 writes "
                   "INDEX ||| TEXT ||| SCORE lines")
        ->check(int_range(1, 1000))
        ->capture_default_str();
    app.add_option("--alpha", alpha_, "length-normalisation exponent of the beam's final ranking")
        ->check(real_range(0, 10))
        ->capture_default_str();
    app.add_option("--max-len", max_len_, "the most output symbols per file, EOS included; 0 = "
                   "2 per annotation + 10")
        ->check(int_range(0, 100000))
        ->capture_default_str();
    add_attention_window_option(app, window_, "listener frames (annotations)");
    add_ctc_weight_option(app, ctc_weight_);
    app.add_option("--batch-size,-b", batch_, "files per batch")
        ->check(int_range(1, 100000))
        ->capture_default_str();
    app.add_option("--threads,-t", threads_, "threads (0 = the OpenMP default)")
        ->check(int_range(0, 4096));
  }

  int run() override {
    if (nbest_ > beam_)
      throw UsageError("--nbest " + std::to_string(nbest_) + " exceeds --beam " +
                       std::to_string(beam_) + ": beam search keeps at most --beam hypotheses");
    if (ctc_weight_ > 0 && beam_ < 2)
      throw UsageError("--ctc-weight re-ranks beam search's transcripts: give --beam 2 or more");
    if (threads_ > 0) kernels::set_num_threads(static_cast<int>(threads_));
    const SpeechModels models = load_speech_models(models_.specs());
    const LoadedModel& m = models.first();
    // Every file is read before anything is written: a bad one stops the run with its name.
    SpeechFeatures features(speech_feature_options(m.config));
    std::vector<Tensor> feats;
    feats.reserve(files_.size());
    for (const std::string& f : files_) feats.push_back(features(f));
    DecodeOptions o;
    o.beam = beam_;
    o.n_best = nbest_;
    o.alpha = alpha_;
    o.max_len = max_len_;
    o.window = parse_attention_window(window_);
    const std::vector<std::vector<Transcript>> out =
        transcribe(*models.decoder, *m.tgt_tokenizer, m.tgt_vocab, feats, o,
                   static_cast<std::size_t>(batch_), ctc_weight_);
    for (std::size_t i = 0; i < out.size(); ++i) {
      if (nbest_ == 1) {
        std::printf("%s\n", out[i].front().text.c_str());
        continue;
      }
      for (const Transcript& t : out[i])
        std::printf("%zu ||| %s ||| %.6f\n", i, t.text.c_str(), t.score);
    }
    std::fflush(stdout);
    return 0;
  }

 private:
  ModelFlags models_;
  std::string window_;
  std::vector<std::string> files_;
  std::int64_t beam_ = 1, nbest_ = 1, max_len_ = 0, batch_ = 32, threads_ = 0;
  double alpha_ = 0.0;
  double ctc_weight_ = 0.0;
};

}  // namespace

std::unique_ptr<Command> make_transcribe_command() { return std::make_unique<TranscribeCommand>(); }

}  // namespace heed::cli
