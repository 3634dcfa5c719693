#pragma once
// The features a speech model reads (model.kind las; docs/DATA.md#audio): a WAV file mixed
// down to mono, resampled to the model's rate (libsoxr), log-mel frames of 25 ms windows every
// 10 ms (LogMelOptions::for_rate) and, optionally, per-utterance normalisation and frame
// stacking. Training,
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
  // Frame stacking: each k consecutive frames joined into one of k * mels values (the last one
  // zero-padded), so that k times fewer frames reach the model; 1 = none.
  int stack = 1;
  LogMelOptions log_mel() const;  // for_rate(sample_rate) with mels bins
  int frame_dim() const { return mels * stack; }
};

// Frames (T, bins) float32 stacked by k: (ceil(T / k), k * bins), row i = [x_{ki}; ...;
// x_{ki+k-1}], zero where t >= T.
Tensor stack_frames(const Tensor& frames, int k);

// Computes them, keeping LogMel's plan between calls: one per thread.
class SpeechFeatures {
 public:
  explicit SpeechFeatures(const SpeechFeatureOptions& options);

  // (frames, mels * stack) float32, at least one frame. heed::Error naming what for audio without
  // samples.
  Tensor operator()(const Audio& audio, const std::string& what);
  // read_wav's errors name the file.
  Tensor operator()(const std::string& wav_path);

 private:
  SpeechFeatureOptions options_;
  LogMel log_mel_;
};

}  // namespace heed
