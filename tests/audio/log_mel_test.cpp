// Log-mel features: heed's equal torchaudio's MelSpectrogram followed by log(max(x, floor))
// within 1e-4 on fixed signals (tests/golden/log_mel.safetensors, tools/make_audio_goldens.py),
// the mel scales, frame counts, options and their errors.
#include "heed/audio/log_mel.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <sstream>

#include "heed/base/error.h"
#include "support/golden.h"

namespace heed {
namespace {

// The golden file's "k=v k=v ..." options as LogMelOptions.
LogMelOptions parse_options(const std::string& text) {
  LogMelOptions o;
  std::istringstream in(text);
  std::string word;
  while (in >> word) {
    const auto eq = word.find('=');
    const std::string key = word.substr(0, eq), value = word.substr(eq + 1);
    if (key == "sample_rate") o.sample_rate = std::stoi(value);
    else if (key == "n_fft") o.n_fft = std::stoi(value);
    else if (key == "win_length") o.win_length = std::stoi(value);
    else if (key == "hop_length") o.hop_length = std::stoi(value);
    else if (key == "n_mels") o.n_mels = std::stoi(value);
    else if (key == "f_min") o.f_min = std::stod(value);
    else if (key == "f_max") o.f_max = std::stod(value);
    else if (key == "mel_scale") o.mel_scale = parse_enum<MelScale>(value, key);
    else if (key == "mel_norm") o.mel_norm = parse_enum<MelNorm>(value, key);
    else if (key == "log_floor") o.log_floor = std::stod(value);
    else ADD_FAILURE() << "unknown option " << key;
  }
  return o;
}

TEST(LogMel, EqualsTorchaudioWithinOneTenThousandth) {
  const SafeTensorsFile golden = testing::load_golden("log_mel");
  int cases = 0;
  for (const auto& [key, text] : golden.metadata) {
    const auto dot = key.rfind(".options");
    if (dot == std::string::npos) continue;
    const std::string name = key.substr(0, dot);
    const LogMelOptions o = parse_options(text);
    const std::vector<double> x64 = golden.get("in." + name).to_vector();
    const std::vector<float> x(x64.begin(), x64.end());  // float32 values, stored as F64
    const Tensor got = log_mel(x, o);
    const Tensor& want = golden.get("out." + name);
    ASSERT_EQ(got.shape(), want.shape()) << name;
    EXPECT_EQ(got.dim(0), log_mel_frames(static_cast<std::int64_t>(x.size()), o)) << name;
    const double diff = testing::max_abs_diff(got, want);
    EXPECT_LE(diff, 1e-4) << name;
    RecordProperty(name + "_max_abs_diff", std::to_string(diff));
    ++cases;
  }
  EXPECT_EQ(cases, 6);
}

TEST(LogMel, SilenceSitsAtTheFloor) {
  LogMelOptions o;
  o.log_floor = 1e-6;
  const Tensor y = log_mel(std::vector<float>(800, 0.0f), o);
  ASSERT_EQ(y.dim(0), 6);
  for (double v : y.to_vector()) EXPECT_FLOAT_EQ(v, std::log(1e-6));
}

TEST(LogMel, CountsCentredFrames) {
  const LogMelOptions o;  // hop 160
  EXPECT_EQ(log_mel_frames(0, o), 0);
  EXPECT_EQ(log_mel_frames(1, o), 1);
  EXPECT_EQ(log_mel_frames(159, o), 1);
  EXPECT_EQ(log_mel_frames(160, o), 2);
  EXPECT_EQ(log_mel_frames(16000, o), 101);
  EXPECT_EQ(log_mel(std::vector<float>{}, o).shape(), Shape({0, 80}));
}

TEST(LogMel, ReflectsSignalsShorterThanHalfAWindow) {
  // One sample or a few: the reflection bounces off both ends again and again.
  const LogMelOptions o;
  const Tensor one = log_mel(std::vector<float>{0.5f}, o);
  ASSERT_EQ(one.shape(), Shape({1, 80}));
  for (double v : one.to_vector()) EXPECT_TRUE(std::isfinite(v));
  const std::vector<float> three = {0.1f, -0.4f, 0.3f};
  const Tensor y = log_mel(three, o);
  ASSERT_EQ(y.shape(), Shape({1, 80}));
  // The frame centred on sample 0 reads x at -200..199, reflected: x0 x1 x2 x1 x0 x1 ...
  // (period 4). The same 400 values inside a longer signal, frame 1 of `written` at hop 200
  // (samples 0..399, no reflection), must give the same row.
  std::vector<float> written(401);
  const float cycle[4] = {0.1f, -0.4f, 0.3f, -0.4f};
  for (int i = 0; i < 401; ++i) written[i] = cycle[((i - 200) % 4 + 4) % 4];
  LogMelOptions hop200 = o;
  hop200.hop_length = 200;
  const Tensor z = log_mel(written, hop200);
  for (int m = 0; m < 80; ++m) EXPECT_EQ(y.at({0, m}), z.at({1, m})) << m;
}

TEST(LogMel, TakesAudioAtItsRateOnly) {
  LogMel extract(LogMelOptions::for_rate(8000));
  EXPECT_EQ(extract(Audio{std::vector<float>(800, 0.1f), 8000}).shape(), Shape({11, 80}));
  try {
    extract(Audio{std::vector<float>(10), 16000});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "log-mel: audio at 16000 Hz, expected 8000 Hz (resample it first)");
  }
}

TEST(LogMel, ForRateGivesTwentyFiveMillisecondWindowsEveryTen) {
  const LogMelOptions a = LogMelOptions::for_rate(16000);
  EXPECT_EQ(a.n_fft, 400);
  EXPECT_EQ(a.win_length, 400);
  EXPECT_EQ(a.hop_length, 160);
  const LogMelOptions b = LogMelOptions::for_rate(8000);
  EXPECT_EQ(b.n_fft, 200);
  EXPECT_EQ(b.hop_length, 80);
  EXPECT_EQ(b.sample_rate, 8000);
  const LogMelOptions c = LogMelOptions::for_rate(22050);  // 551.25 samples: 551, FFT even
  EXPECT_EQ(c.win_length, 551);
  EXPECT_EQ(c.n_fft, 552);
  EXPECT_EQ(c.hop_length, 221);
  EXPECT_NO_THROW(validate(c));
}

TEST(LogMel, SameSignalSameFeatures) {
  std::vector<float> x(3000);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(std::sin(0.05 * i * i));
  LogMel extract(LogMelOptions{});
  const Tensor a = extract(x), b = extract(x);  // the plan's buffers reused
  EXPECT_EQ(a.to_vector(), b.to_vector());
  EXPECT_EQ(a.dtype(), DType::f32);
}

std::string validate_error(const LogMelOptions& o) {
  try {
    validate(o);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(LogMel, RefusesOptionsItCannotRunWith) {
  LogMelOptions o;
  o.n_fft = 401;
  o.win_length = 401;
  EXPECT_EQ(validate_error(o), "log-mel: n_fft 401, expected an even number >= 2");
  o = {};
  o.win_length = 500;
  EXPECT_EQ(validate_error(o), "log-mel: win_length 500, expected 1 to n_fft (400)");
  o = {};
  o.hop_length = 0;
  EXPECT_EQ(validate_error(o), "log-mel: hop_length 0, expected >= 1");
  o = {};
  o.n_mels = 0;
  EXPECT_EQ(validate_error(o), "log-mel: n_mels 0, expected >= 1");
  o = {};
  o.f_max = 9000;
  EXPECT_EQ(validate_error(o),
            "log-mel: f_min 0 and f_max 9000 Hz, expected 0 <= f_min < f_max <= 8000 (half "
            "the sample rate)");
  o = {};
  o.log_floor = 0;
  EXPECT_EQ(validate_error(o), "log-mel: log_floor 0, expected > 0");
  EXPECT_THROW(LogMel{o}, Error);
}

TEST(MelFilterbank, Scales) {
  EXPECT_NEAR(hz_to_mel(700, MelScale::htk), 2595 * std::log10(2.0), 1e-9);
  EXPECT_NEAR(hz_to_mel(1000, MelScale::slaney), 15.0, 1e-12);
  EXPECT_NEAR(hz_to_mel(500, MelScale::slaney), 7.5, 1e-12);
  EXPECT_NEAR(hz_to_mel(6400, MelScale::slaney), 15.0 + 27.0, 1e-9);
  for (MelScale s : {MelScale::htk, MelScale::slaney})
    for (double hz : {0.0, 100.0, 999.0, 1000.0, 4321.0, 8000.0})
      EXPECT_NEAR(mel_to_hz(hz_to_mel(hz, s), s), hz, 1e-9) << enum_name(s) << " " << hz;
}

TEST(MelFilterbank, TrianglesPeakAtOneAndOverlapByHalves) {
  // 5 filters from 0 to 4000 Hz over 201 bins at 8 kHz (20 Hz per bin).
  const int n_freqs = 201, n_mels = 5;
  const std::vector<double> w = mel_filterbank(n_freqs, 0, 4000, n_mels, 8000, MelScale::htk,
                                               MelNorm::none);
  ASSERT_EQ(w.size(), static_cast<std::size_t>(n_freqs * n_mels));
  for (int m = 0; m < n_mels; ++m) {
    double top = 0;
    for (int k = 0; k < n_freqs; ++k) {
      const double v = w[k * n_mels + m];
      EXPECT_GE(v, 0.0);
      EXPECT_LE(v, 1.0);
      top = std::max(top, v);
    }
    EXPECT_GT(top, 0.9) << m;
  }
  // Between the first peak and the last, neighbouring filters sum to 1.
  const double first_peak = mel_to_hz(hz_to_mel(4000, MelScale::htk) / 6, MelScale::htk);
  const double last_peak = mel_to_hz(hz_to_mel(4000, MelScale::htk) * 5 / 6, MelScale::htk);
  for (int k = 0; k < n_freqs; ++k) {
    const double hz = 20.0 * k;
    if (hz < first_peak || hz > last_peak) continue;
    double sum = 0;
    for (int m = 0; m < n_mels; ++m) sum += w[k * n_mels + m];
    EXPECT_NEAR(sum, 1.0, 1e-12) << hz;
  }
  // Slaney's norm: each filter's weights times 2 / (its width in Hz).
  const std::vector<double> s = mel_filterbank(n_freqs, 0, 4000, n_mels, 8000, MelScale::htk,
                                               MelNorm::slaney);
  const double width0 = mel_to_hz(hz_to_mel(4000, MelScale::htk) * 2 / 6, MelScale::htk);
  for (int k = 0; k < n_freqs; ++k) EXPECT_NEAR(s[k * n_mels], w[k * n_mels] * 2 / width0, 1e-15);
  EXPECT_THROW(mel_filterbank(1, 0, 4000, 5, 8000, MelScale::htk, MelNorm::none), Error);
  EXPECT_THROW(mel_filterbank(201, 4000, 4000, 5, 8000, MelScale::htk, MelNorm::none), Error);
}

}  // namespace
}  // namespace heed
