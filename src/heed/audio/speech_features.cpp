#include "heed/audio/speech_features.h"

#include <algorithm>

#include "heed/audio/resample.h"
#include "heed/audio/utterance_norm.h"
#include "heed/base/error.h"

namespace heed {

LogMelOptions SpeechFeatureOptions::log_mel() const {
  LogMelOptions o = LogMelOptions::for_rate(sample_rate);
  o.n_mels = mels;
  return o;
}

Tensor stack_frames(const Tensor& frames, int k) {
  HEED_CHECK(k >= 1 && frames.ndim() == 2 && frames.dtype() == DType::f32,
             "stack_frames: expected (frames, bins) float32 and k >= 1");
  if (k == 1) return frames;
  const std::int64_t T = frames.dim(0), bins = frames.dim(1), n = (T + k - 1) / k;
  Tensor out = Tensor::zeros({n, k * bins});
  const Tensor x = frames.contiguous();
  const float* src = x.data<float>();
  float* dst = out.data<float>();
  for (std::int64_t t = 0; t < T; ++t)  // frame t is row t / k, block t % k
    std::copy_n(src + t * bins, bins, dst + t * bins);
  return out;
}

SpeechFeatures::SpeechFeatures(const SpeechFeatureOptions& options)
    : options_(options), log_mel_(options.log_mel()) {}

Tensor SpeechFeatures::operator()(const Audio& audio, const std::string& what) {
  HEED_CHECK(!audio.samples.empty(), what, ": holds no samples, expected speech");
  Tensor x = audio.sample_rate == options_.sample_rate
                 ? log_mel_(audio)
                 : log_mel_(resample(audio, options_.sample_rate));
  HEED_CHECK(x.dim(0) >= 1, what, ": too short for one frame at ", options_.sample_rate, " Hz");
  return stack_frames(options_.normalize ? normalize_utterance(x) : x, options_.stack);
}

Tensor SpeechFeatures::operator()(const std::string& wav_path) {
  return (*this)(read_wav(wav_path), wav_path);
}

}  // namespace heed
