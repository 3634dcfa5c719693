#pragma once
// The features a speech model reads (model.kind las; docs/DATA.md#audio): a WAV file mixed
// down to mono, resampled to the model's rate (libsoxr), log-mel frames of 25 ms windows every
// 10 ms (LogMelOptions::for_rate) and, optionally, per-utterance normalisation. Training,
// `heed transcribe` and `heed eval` compute them alike from the model's data.audio keys.
#include <string>

#include "heed/audio/log_mel.h"
#include "heed/audio/wav_file.h"
#include "heed/tensor/tensor.h"

namespace heed {

struct SpeechFeatureOptions {
  int sample_rate = 16000;
  int mels = 80;
  bool normalize = true;
  LogMelOptions log_mel() const;  // for_rate(sample_rate) with mels bins
};

// Computes them, keeping LogMel's plan between calls: one per thread.
class SpeechFeatures {
 public:
  explicit SpeechFeatures(const SpeechFeatureOptions& options);

  // (frames, mels) float32, at least one frame. heed::Error naming what for audio without
  // samples.
  Tensor operator()(const Audio& audio, const std::string& what);
  // read_wav's errors name the file.
  Tensor operator()(const std::string& wav_path);

 private:
  SpeechFeatureOptions options_;
  LogMel log_mel_;
};

}  // namespace heed
