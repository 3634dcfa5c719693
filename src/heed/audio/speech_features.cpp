#include "heed/audio/speech_features.h"

#include "heed/audio/resample.h"
#include "heed/audio/utterance_norm.h"
#include "heed/base/error.h"

namespace heed {

LogMelOptions SpeechFeatureOptions::log_mel() const {
  LogMelOptions o = LogMelOptions::for_rate(sample_rate);
  o.n_mels = mels;
  return o;
}

SpeechFeatures::SpeechFeatures(const SpeechFeatureOptions& options)
    : options_(options), log_mel_(options.log_mel()) {}

Tensor SpeechFeatures::operator()(const Audio& audio, const std::string& what) {
  HEED_CHECK(!audio.samples.empty(), what, ": holds no samples, expected speech");
  Tensor x = audio.sample_rate == options_.sample_rate
                 ? log_mel_(audio)
                 : log_mel_(resample(audio, options_.sample_rate));
  return options_.normalize ? normalize_utterance(x) : x;
}

Tensor SpeechFeatures::operator()(const std::string& wav_path) {
  return (*this)(read_wav(wav_path), wav_path);
}

}  // namespace heed
