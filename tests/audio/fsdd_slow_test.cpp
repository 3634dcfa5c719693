// The real Free Spoken Digit Dataset, when the environment names it (HEED_FSDD: its folder,
// holding recordings/; skipped otherwise): 2,500 recordings of five speakers, every one an
// 8 kHz 16-bit mono WAV that heed reads, the official split's sizes, and finite log-mel
// features for every recording at 8 kHz and resampled to 16 kHz.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "heed/audio/fsdd.h"
#include "heed/audio/log_mel.h"
#include "heed/audio/resample.h"
#include "heed/audio/wav_file.h"

namespace heed {
namespace {

std::string fsdd_dir() {
  const char* dir = std::getenv("HEED_FSDD");
  return dir ? dir : "";
}

TEST(FsddSlow, ReadsEveryRecordingAndItsFeatures) {
  const std::string dir = fsdd_dir();
  if (dir.empty()) GTEST_SKIP() << "HEED_FSDD is not set (the folder of FSDD's recordings/)";
  const auto recordings = list_fsdd_recordings(dir);
  ASSERT_EQ(recordings.size(), 2500u);
  EXPECT_EQ(fsdd_speakers(recordings).size(), 5u);
  const DigitSplit split = split_fsdd_recordings(recordings, DigitSplitOptions{});
  EXPECT_EQ(split.test.size(), 250u);
  EXPECT_EQ(split.dev.size(), 225u);
  EXPECT_EQ(split.train.size(), 2025u);
  LogMel at8k(LogMelOptions::for_rate(8000)), at16k(LogMelOptions::for_rate(16000));
  double seconds = 0;
  for (const DigitRecording& r : recordings) {
    const WavContents wav = read_wav_contents(r.path);
    ASSERT_EQ(wav.sample_rate, 8000) << r.path;
    ASSERT_EQ(wav.channels, 1) << r.path;
    ASSERT_EQ(wav.bits, 16) << r.path;
    const Audio audio = mix_to_mono(wav);
    seconds += audio.seconds();
    for (const Tensor& f : {at8k(audio), at16k(resample(audio, 16000))})
      for (double v : f.to_vector()) ASSERT_TRUE(std::isfinite(v)) << r.path;
  }
  RecordProperty("seconds_of_audio", std::to_string(seconds));
  EXPECT_NEAR(seconds, 1025.2, 0.01);  // FSDD at commit 26eb9aa, these five speakers
}

}  // namespace
}  // namespace heed
