#pragma once
// WAV files (docs/DATA.md, "Audio"). read_wav reads a RIFF/WAVE file of PCM samples (8, 16,
// 24 or 32 bits) or IEEE float samples (32 or 64 bits), at any rate, with any number of
// channels; write_wav writes 16-bit PCM mono, atomically. Debian's libsndfile decodes and
// encodes; heed walks the RIFF chunks first, so that a file that is empty, not RIFF/WAVE,
// cut short or in another codec (ADPCM, mu-law, MP3 in a WAV header...) is refused with a
// heed::Error naming the file and what was expected, never read in part.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace heed {

// One channel of samples in [-1, 1] (float files may exceed it) at sample_rate per second.
struct Audio {
  std::vector<float> samples;
  int sample_rate = 0;
  double seconds() const {
    return sample_rate > 0 ? static_cast<double>(samples.size()) / sample_rate : 0.0;
  }
};

// What a WAV file holds, and its samples as stored: interleaved frames of `channels`
// samples, scaled to [-1, 1] as libsndfile scales them (a b-bit PCM value v reads as
// v / 2^(b-1); 8-bit WAV is unsigned, v - 128 first).
struct WavContents {
  std::vector<float> interleaved;
  int sample_rate = 0;
  int channels = 0;
  int bits = 0;           // 8, 16, 24, 32 (PCM) or 32, 64 (float)
  bool is_float = false;  // IEEE float samples
  std::int64_t frames() const {
    return channels > 0 ? static_cast<std::int64_t>(interleaved.size()) / channels : 0;
  }
};

// Reads every frame of a WAV file, channels kept. Throws heed::Error naming the path and
// what was expected for a missing, empty, truncated, non-RIFF/WAVE or non-PCM/float file.
WavContents read_wav_contents(const std::string& path);
// The same of a WAV file's bytes held in memory (an upload); the messages name it `what`.
WavContents wav_contents_of_bytes(std::string bytes, const std::string& what);

// The mean of the channels of each frame (a mono file's samples unchanged).
Audio mix_to_mono(const WavContents& wav);

// read_wav_contents, mixed down to one channel.
Audio read_wav(const std::string& path);
// wav_contents_of_bytes, mixed down to one channel.
Audio wav_of_bytes(std::string bytes, const std::string& what);

// Writes samples as a mono 16-bit PCM WAV file, atomically: each sample is clamped to
// [-1, 1] and stored as round(x * 32768) limited to [-32768, 32767], so a sample that is a
// multiple of 1/32768 reads back exactly. The same samples give the same bytes.
void write_wav(const std::string& path, std::span<const float> samples, int sample_rate);

}  // namespace heed
