#pragma once
// WAV files for the audio tests: written by libsndfile itself in any format (so that heed's
// reader is tested against the library's writer, not against itself), and WAV bytes built by
// hand for the files libsndfile would never write (bad headers, other codecs).
#include <gtest/gtest.h>
#include <sndfile.h>

#include <cstdint>
#include <string>
#include <vector>

namespace heed::testing {

// Writes frames of `channels` interleaved int samples (full 32-bit scale: libsndfile keeps
// the top bits of each for narrower formats) as a WAV file of the given subtype.
inline void write_wav_ints(const std::string& path, const std::vector<int>& interleaved, int rate,
                           int channels, int subtype) {
  SF_INFO info{};
  info.samplerate = rate;
  info.channels = channels;
  info.format = SF_FORMAT_WAV | subtype;
  SNDFILE* f = sf_open(path.c_str(), SFM_WRITE, &info);
  ASSERT_NE(f, nullptr) << sf_strerror(nullptr);
  const auto frames = static_cast<sf_count_t>(interleaved.size() / channels);
  EXPECT_EQ(sf_writef_int(f, interleaved.data(), frames), frames);
  sf_close(f);
}

// The same for float samples (FLOAT, DOUBLE, or a codec such as IMA ADPCM).
inline void write_wav_floats(const std::string& path, const std::vector<float>& interleaved,
                             int rate, int channels, int subtype) {
  SF_INFO info{};
  info.samplerate = rate;
  info.channels = channels;
  info.format = SF_FORMAT_WAV | subtype;
  SNDFILE* f = sf_open(path.c_str(), SFM_WRITE, &info);
  ASSERT_NE(f, nullptr) << sf_strerror(nullptr);
  const auto frames = static_cast<sf_count_t>(interleaved.size() / channels);
  EXPECT_EQ(sf_writef_float(f, interleaved.data(), frames), frames);
  sf_close(f);
}

inline void put16(std::string& s, std::uint32_t v) {
  s += static_cast<char>(v & 0xff);
  s += static_cast<char>((v >> 8) & 0xff);
}
inline void put32(std::string& s, std::uint32_t v) {
  put16(s, v & 0xffff);
  put16(s, v >> 16);
}

// A canonical 44-byte header: RIFF/WAVE, a 16-byte fmt chunk of format `tag`, and a data
// chunk header announcing data_bytes (the caller appends the data, or not).
inline std::string wav_header(std::uint16_t tag, int channels, int rate, int bits,
                              std::uint32_t data_bytes) {
  std::string s = "RIFF";
  put32(s, 36 + data_bytes);
  s += "WAVEfmt ";
  put32(s, 16);
  put16(s, tag);
  put16(s, static_cast<std::uint32_t>(channels));
  put32(s, static_cast<std::uint32_t>(rate));
  put32(s, static_cast<std::uint32_t>(rate * channels * bits / 8));
  put16(s, static_cast<std::uint32_t>(channels * bits / 8));
  put16(s, static_cast<std::uint32_t>(bits));
  s += "data";
  put32(s, data_bytes);
  return s;
}

}  // namespace heed::testing
