// POST /transcribe's request and the spectrogram of its answer, without a server
// (serve/transcribe_request.h, serve/transcribe_response.h): the WAV body read as a file is,
// the beam parameter, what is refused with which status, and the spectrogram's columns.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include <string>
#include <vector>

#include "cli/cli_test_util.h"
#include "heed/audio/wav_file.h"
#include "heed/serve/transcribe_request.h"
#include "heed/serve/transcribe_response.h"

namespace heed::serve {
namespace {

// A WAV file's bytes: 16-bit PCM mono of n samples at rate, written by heed's writer.
std::string wav_bytes(std::size_t n, int rate) {
  testing::ScratchDir dir("heed_transcribe_request");
  std::vector<float> s(n);
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<float>(i % 100) / 200.0f;
  write_wav(dir.path("a.wav"), s, rate);
  std::ifstream in(dir.path("a.wav"), std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// The status and message of the ApiError parse_transcribe_request throws.
std::pair<int, std::string> refusal(const std::string& body, const std::string& type,
                                    const std::string& beam, const RequestLimits& limits = {}) {
  try {
    parse_transcribe_request(body, type, beam, limits);
  } catch (const ApiError& e) {
    return {e.status(), e.what()};
  }
  return {0, ""};
}

TEST(TranscribeRequest, ReadsTheWavBodyAndTheBeam) {
  const std::string wav = wav_bytes(800, 8000);
  for (const char* type : {"audio/wav", "audio/x-wav; codecs=1", "", "application/octet-stream",
                           "application/x-www-form-urlencoded"}) {
    const TranscribeRequest r = parse_transcribe_request(wav, type, "", {});
    EXPECT_EQ(r.audio.samples.size(), 800u) << type;
    EXPECT_EQ(r.audio.sample_rate, 8000) << type;
    EXPECT_EQ(r.beam, 1) << type;
  }
  EXPECT_EQ(parse_transcribe_request(wav, "audio/wav", "7", {}).beam, 7);
}

TEST(TranscribeRequest, RefusesWhatItCannotRead) {
  const std::string wav = wav_bytes(800, 8000);
  EXPECT_EQ(refusal("hello", "audio/wav", "").first, 400);
  EXPECT_EQ(refusal("hello", "audio/wav", "").second,
            "the request body: not a WAV file: it starts with 'hell', expected 'RIFF'");
  EXPECT_EQ(refusal("", "audio/wav", "").second,
            "the request body: empty file, expected a WAV file (RIFF/WAVE)");
  EXPECT_EQ(refusal(wav_bytes(0, 8000), "audio/wav", ""),
            std::make_pair(400, std::string("the request body: the WAV file holds no samples, "
                                            "expected speech")));
  const auto json = refusal(wav, "Application/JSON; charset=utf-8", "");
  EXPECT_EQ(json.first, 415);
  EXPECT_NE(json.second.find("takes the WAV file itself as the body (Content-Type audio/wav"),
            std::string::npos)
      << json.second;
  EXPECT_NE(json.second.find("not application/json"), std::string::npos) << json.second;
  EXPECT_EQ(refusal(wav, "multipart/form-data; boundary=x", "").first, 415);
  EXPECT_EQ(refusal(wav, "text/plain", "").first, 415);
  for (const char* beam : {"0", "65", "x", "2x", "-1", " 3"})
    EXPECT_EQ(refusal(wav, "audio/wav", beam),
              std::make_pair(400, "beam=" + std::string(beam) +
                                      ": expected an integer from 1 to 64"))
        << beam;
  RequestLimits limits;
  limits.max_audio_seconds = 0.05;  // 800 samples at 8 kHz are 0.1 s
  EXPECT_EQ(refusal(wav, "audio/wav", "", limits),
            std::make_pair(413, std::string("the audio is 0.10 s long, at most 0.05 s "
                                            "(--max-audio-seconds)")));
}

TEST(SpectrogramColumns, AveragesFramesIntoAtMostTheColumnsAsked) {
  // 5 frames of 2 bins: bin 0 is the frame's index, bin 1 is 4 below it.
  Tensor x = Tensor::zeros({5, 2});
  for (int t = 0; t < 5; ++t) {
    x.data<float>()[t * 2] = static_cast<float>(t);
    x.data<float>()[t * 2 + 1] = static_cast<float>(t) - 4.0f;
  }
  const SpectrogramColumns all = spectrogram_columns(x, 10, 8.0);
  EXPECT_EQ(all.frames_per_column, 1);
  ASSERT_EQ(all.levels.size(), 5u);
  EXPECT_DOUBLE_EQ(all.high, 4.0);
  // level = round(255 (v - 4 + 8) / 8), clamped: frame 4's bins 4 and 0 -> 255 and 128 (127.5
  // rounds away from zero); frame 0's bin 1 (-4) -> 0.
  EXPECT_EQ(all.levels[4], (std::vector<int>{255, 128}));
  EXPECT_EQ(all.levels[0], (std::vector<int>{128, 0}));
  const SpectrogramColumns two = spectrogram_columns(x, 2, 8.0);
  EXPECT_EQ(two.frames_per_column, 3);
  ASSERT_EQ(two.levels.size(), 2u);  // frames 0-2 (mean 1) and 3-4 (mean 3.5)
  EXPECT_EQ(two.levels[0][0], 159);  // 255 * 5 / 8 = 159.375
  EXPECT_EQ(two.levels[1][0], 239);  // 255 * 7.5 / 8 = 239.06
  EXPECT_EQ(two.frames, 5);
  EXPECT_EQ(two.mels, 2);
}

}  // namespace
}  // namespace heed::serve
