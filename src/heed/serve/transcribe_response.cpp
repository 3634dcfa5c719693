#include "heed/serve/transcribe_response.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "heed/audio/log_mel.h"
#include "heed/audio/resample.h"
#include "heed/audio/speech_features.h"
#include "heed/base/error.h"
#include "heed/translate/speech_decoding.h"

namespace heed::serve {
namespace {

// A weight to 4 decimals: enough for a picture, a third of the bytes of a float's 9 digits.
double rounded(float w) { return std::round(static_cast<double>(w) * 1e4) / 1e4; }

}  // namespace

SpectrogramColumns spectrogram_columns(const Tensor& log_mel, std::int64_t max_columns,
                                       double range) {
  HEED_CHECK(log_mel.ndim() == 2 && log_mel.dtype() == DType::f32 && log_mel.dim(0) > 0 &&
                 max_columns >= 1 && range > 0.0,
             "spectrogram_columns: expected (frames, mels) float32 with frames >= 1");
  const Tensor x = log_mel.contiguous();
  const float* p = x.data<float>();
  SpectrogramColumns s;
  s.frames = x.dim(0);
  s.mels = x.dim(1);
  s.range = range;
  s.frames_per_column = (s.frames + max_columns - 1) / max_columns;
  s.high = *std::max_element(p, p + x.numel());
  for (std::int64_t t0 = 0; t0 < s.frames; t0 += s.frames_per_column) {
    const std::int64_t t1 = std::min(s.frames, t0 + s.frames_per_column);
    std::vector<int> column(static_cast<std::size_t>(s.mels));
    for (std::int64_t b = 0; b < s.mels; ++b) {
      double sum = 0;
      for (std::int64_t t = t0; t < t1; ++t) sum += p[t * s.mels + b];
      const double v = sum / static_cast<double>(t1 - t0);
      column[static_cast<std::size_t>(b)] = static_cast<int>(
          std::lround(std::clamp(255.0 * (v - s.high + range) / range, 0.0, 255.0)));
    }
    s.levels.push_back(std::move(column));
  }
  return s;
}

std::string transcribe_response(const LoadedModel& speech, const TranscribeRequest& request,
                                const std::string& model, std::mutex& decoding,
                                std::chrono::steady_clock::time_point start) {
  using nlohmann::json;
  const SpeechFeatureOptions fo = speech_feature_options(speech.config);
  const Audio audio = request.audio.sample_rate == fo.sample_rate
                          ? request.audio
                          : resample(request.audio, fo.sample_rate);
  SpeechFeatures features(fo);
  const Tensor feats = features(audio, "the request body");
  const Tensor log_mel = LogMel(fo.log_mel())(audio);
  DecodeOptions o;
  o.beam = request.beam;
  o.n_best = 1;
  Transcript t;
  {
    const std::lock_guard<std::mutex> lock(decoding);
    t = transcribe(*speech.model, *speech.tgt_tokenizer, speech.tgt_vocab, {feats}, o, 1)
            .at(0)
            .at(0);
  }
  json attention = json::array();
  for (const auto& row : t.attention) {
    json r = json::array();
    for (float w : row) r.push_back(rounded(w));
    attention.push_back(std::move(r));
  }
  const SpectrogramColumns s = spectrogram_columns(log_mel, kMaxSpectrogramColumns);
  const json spectrogram = {
      {"frames", s.frames},
      {"mels", s.mels},
      {"seconds_per_frame",
       static_cast<double>(fo.log_mel().hop_length) / static_cast<double>(fo.sample_rate)},
      {"frames_per_column", s.frames_per_column},
      {"columns", s.levels.size()},
      {"high", s.high},
      {"range", s.range},
      {"levels", s.levels}};
  const std::int64_t per_annotation = speech.config.model.listener.reduction() * fo.stack;
  const json out = {
      {"text", t.text},
      {"score", t.score},
      {"symbols", t.symbols},
      {"attention", std::move(attention)},
      {"annotations", (s.frames + per_annotation - 1) / per_annotation},
      {"frames_per_annotation", per_annotation},
      {"spectrogram", spectrogram},
      {"seconds", request.audio.seconds()},
      {"sample_rate", request.audio.sample_rate},
      {"beam", request.beam},
      {"model", model},
      {"milliseconds", std::chrono::duration<double, std::milli>(
                           std::chrono::steady_clock::now() - start)
                           .count()}};
  return out.dump();
}

}  // namespace heed::serve
