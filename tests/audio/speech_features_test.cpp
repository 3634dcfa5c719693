// The features of a speech model (audio/speech_features.h): log-mel frames at the model's rate,
// per-utterance normalisation on or off, frame stacking, resampling of a file at another rate,
// and the errors.
#include "heed/audio/speech_features.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "heed/audio/resample.h"
#include "heed/audio/utterance_norm.h"
#include "heed/base/error.h"

namespace heed {
namespace {

std::vector<float> tone(int rate, double hz, double seconds) {
  std::vector<float> s(static_cast<std::size_t>(rate * seconds));
  for (std::size_t i = 0; i < s.size(); ++i)
    s[i] = static_cast<float>(0.5 * std::sin(2 * M_PI * hz * static_cast<double>(i) / rate));
  return s;
}

TEST(SpeechFeatures, AreLogMelFramesNormalisedPerUtterance) {
  const Audio a{tone(8000, 440, 0.3), 8000};
  SpeechFeatureOptions o{8000, 20, false};
  EXPECT_EQ(o.log_mel().n_fft, 200);
  EXPECT_EQ(o.log_mel().hop_length, 80);
  EXPECT_EQ(o.log_mel().n_mels, 20);
  const Tensor raw = SpeechFeatures(o)(a, "tone");
  EXPECT_EQ(raw.shape(), Shape({31, 20}));  // 1 + 2400 / 80 frames
  EXPECT_EQ(raw.to_vector(), log_mel(a.samples, o.log_mel()).to_vector());
  o.normalize = true;
  EXPECT_EQ(SpeechFeatures(o)(a, "tone").to_vector(), normalize_utterance(raw).to_vector());
}

TEST(SpeechFeatures, StackJoinsConsecutiveFramesZeroPaddingTheLast) {
  const Tensor x = Tensor::from({5, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  EXPECT_EQ(stack_frames(x, 1).to_vector(), x.to_vector());
  const Tensor y = stack_frames(x, 3);
  EXPECT_EQ(y.shape(), Shape({2, 6}));
  EXPECT_EQ(y.to_vector(), (std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0, 0}));
  EXPECT_EQ(stack_frames(x, 5).shape(), Shape({1, 10}));
  EXPECT_EQ(stack_frames(x, 8).shape(), Shape({1, 16}));
  const Audio a{tone(8000, 440, 0.3), 8000};
  SpeechFeatureOptions o{8000, 20, true, 4};
  EXPECT_EQ(o.frame_dim(), 80);
  const Tensor stacked = SpeechFeatures(o)(a, "tone");
  EXPECT_EQ(stacked.shape(), Shape({8, 80}));  // ceil(31 / 4)
  o.stack = 1;
  EXPECT_EQ(stacked.to_vector(), stack_frames(SpeechFeatures(o)(a, "tone"), 4).to_vector());
}

TEST(SpeechFeatures, ResampleAudioAtAnotherRate) {
  const Audio a{tone(16000, 440, 0.2), 16000};
  const SpeechFeatureOptions o{8000, 10, true};
  const Tensor x = SpeechFeatures(o)(a, "tone");
  EXPECT_EQ(x.to_vector(),
            normalize_utterance(log_mel(resample(a.samples, 16000, 8000), o.log_mel())).to_vector());
}

TEST(SpeechFeatures, NameTheFileOrTheUtteranceThatFails) {
  SpeechFeatures f(SpeechFeatureOptions{8000, 10, true});
  try {
    f(Audio{{}, 8000}, "silence.wav");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "silence.wav: holds no samples, expected speech");
  }
  const std::string missing = (std::filesystem::temp_directory_path() / "heed_no_such.wav").string();
  try {
    f(missing);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace heed
