#include "heed/audio/wav_file.h"

#include <sndfile.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string_view>
#include <utility>

#include "heed/base/atomic_file.h"
#include "heed/base/error.h"

namespace heed {
namespace {

constexpr std::uint16_t kFormatPcm = 1, kFormatFloat = 3, kFormatExtensible = 0xFFFE;
// A data chunk whose size field says "unknown" (a stream written to a pipe): to the end.
constexpr std::uint32_t kSizeUnknown = 0xFFFFFFFF;

std::uint32_t le32(const std::string& b, std::size_t at) {
  const auto* p = reinterpret_cast<const unsigned char*>(b.data() + at);
  return std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8 | std::uint32_t{p[2]} << 16 |
         std::uint32_t{p[3]} << 24;
}

std::uint16_t le16(const std::string& b, std::size_t at) {
  const auto* p = reinterpret_cast<const unsigned char*>(b.data() + at);
  return static_cast<std::uint16_t>(p[0] | p[1] << 8);
}

// Four bytes as text when printable ('RIFF'), else as hex bytes (0x00 0x01 ...).
std::string four_bytes(std::string_view b) {
  const bool printable =
      std::all_of(b.begin(), b.end(), [](char c) { return c >= 0x20 && c < 0x7f; });
  std::string out;
  if (printable) {
    out.push_back('\'');
    out.append(b.data(), b.size());
    out.push_back('\'');
    return out;
  }
  for (unsigned char c : b) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "%s0x%02x", out.empty() ? "" : " ", c);
    out += buf;
  }
  return out;
}

std::string codec_name(std::uint16_t tag) {
  switch (tag) {
    case 0x0002: return "MS ADPCM";
    case 0x0006: return "A-law";
    case 0x0007: return "mu-law";
    case 0x0011: return "IMA ADPCM";
    case 0x0031: return "GSM 6.10";
    case 0x0050: return "MPEG";
    case 0x0055: return "MPEG layer 3";
    default: {
      char buf[16];
      std::snprintf(buf, sizeof buf, "0x%04x", tag);
      return std::string("format tag ") + buf;
    }
  }
}

constexpr const char* kExpectedCodec =
    "expected PCM (8, 16, 24 or 32 bits) or IEEE float (32 or 64 bits)";

// The "fmt " chunk's fields heed checks.
struct Format {
  std::uint16_t tag = 0, channels = 0, block_align = 0, bits = 0;
  std::uint32_t rate = 0;
};

// The structure of a RIFF/WAVE file, checked on its bytes before libsndfile reads it: the
// format, and where the data chunk lies and how long it is.
struct Layout {
  Format format;
  std::size_t data_offset = 0, data_bytes = 0;
};

Format read_format(const std::string& path, const std::string& b, std::size_t at,
                   std::uint32_t size) {
  HEED_CHECK(size >= 16, path, ": the fmt chunk holds ", size,
             " bytes, expected at least 16 (a WAVE format)");
  Format f;
  f.tag = le16(b, at);
  f.channels = le16(b, at + 2);
  f.rate = le32(b, at + 4);
  f.block_align = le16(b, at + 12);
  f.bits = le16(b, at + 14);
  if (f.tag == kFormatExtensible) {
    // WAVE_FORMAT_EXTENSIBLE: the codec is the first two bytes of the sub-format GUID.
    HEED_CHECK(size >= 40, path, ": an extensible fmt chunk of ", size,
               " bytes, expected 40 (with its sub-format)");
    f.tag = le16(b, at + 24);
  }
  HEED_CHECK(f.tag == kFormatPcm || f.tag == kFormatFloat, path, ": unsupported codec ",
             codec_name(f.tag), ", ", kExpectedCodec);
  const bool bits_ok = f.tag == kFormatPcm
                           ? (f.bits == 8 || f.bits == 16 || f.bits == 24 || f.bits == 32)
                           : (f.bits == 32 || f.bits == 64);
  HEED_CHECK(bits_ok, path, ": unsupported ", f.bits, "-bit ",
             f.tag == kFormatPcm ? "PCM" : "IEEE float", ", ", kExpectedCodec);
  HEED_CHECK(f.channels >= 1, path, ": 0 channels, expected at least 1");
  HEED_CHECK(f.rate >= 1 && f.rate <= 0x7fffffff, path, ": sample rate ", f.rate,
             ", expected a positive rate");
  HEED_CHECK(f.block_align == f.channels * (f.bits / 8), path, ": block align ", f.block_align,
             ", expected ", f.channels * (f.bits / 8), " (", f.channels, " channels of ",
             f.bits / 8, " bytes)");
  return f;
}

Layout check_layout(const std::string& path, const std::string& b) {
  HEED_CHECK(!b.empty(), path, ": empty file, expected a WAV file (RIFF/WAVE)");
  const std::string_view head(b.data(), std::min<std::size_t>(4, b.size()));
  HEED_CHECK(head == std::string_view("RIFF").substr(0, head.size()), path,
             ": not a WAV file: it starts with ", four_bytes(head), ", expected 'RIFF'");
  HEED_CHECK(b.size() >= 12, path, ": truncated: ", b.size(),
             " bytes, expected at least 12 (the RIFF/WAVE header)");
  const std::string_view type(b.data() + 8, 4);
  HEED_CHECK(type == "WAVE", path, ": a RIFF file of type ", four_bytes(type),
             ", expected 'WAVE'");
  Layout layout;
  bool have_format = false;
  std::size_t at = 12;
  while (true) {
    HEED_CHECK(b.size() - at >= 8, path, ": truncated: the file ends at byte ", b.size(),
               " before its ", have_format ? "data chunk" : "fmt chunk",
               ", expected a 'fmt ' and a 'data' chunk");
    const std::string_view id(b.data() + at, 4);
    const std::uint32_t size = le32(b, at + 4);
    at += 8;
    const std::size_t left = b.size() - at;
    if (id == "data") {
      HEED_CHECK(have_format, path, ": a data chunk before the fmt chunk, expected 'fmt ' first");
      const std::size_t block = layout.format.block_align;
      layout.data_offset = at;
      layout.data_bytes = size == kSizeUnknown ? left - left % block : size;
      HEED_CHECK(layout.data_bytes <= left, path, ": truncated: the data chunk holds ", left,
                 " bytes, expected ", size, " (its header): the file was cut short");
      HEED_CHECK(layout.data_bytes % block == 0, path, ": a data chunk of ", layout.data_bytes,
                 " bytes, expected a whole number of ", block, "-byte frames");
      return layout;
    }
    HEED_CHECK(size <= left, path, ": truncated: the ", four_bytes(id), " chunk at byte ", at - 8,
               " holds ", left, " bytes, expected ", size, " (its header)");
    if (id == "fmt ") {
      layout.format = read_format(path, b, at, size);
      have_format = true;
    }
    at += size + (size & 1);  // chunks are padded to an even size
    HEED_CHECK(at <= b.size(), path, ": truncated: the pad byte of the ", four_bytes(id),
               " chunk is missing");
  }
}

// libsndfile's virtual I/O over bytes in memory: reading a file heed has read (and checked)
// once, and writing into a string that heed then writes atomically.
struct MemoryFile {
  std::string bytes;
  sf_count_t position = 0;
};

sf_count_t memory_length(void* user) { return static_cast<MemoryFile*>(user)->bytes.size(); }

sf_count_t memory_seek(sf_count_t offset, int whence, void* user) {
  auto* f = static_cast<MemoryFile*>(user);
  const sf_count_t base = whence == SEEK_SET ? 0
                          : whence == SEEK_CUR ? f->position
                                               : static_cast<sf_count_t>(f->bytes.size());
  if (base + offset < 0) return -1;
  f->position = base + offset;
  return f->position;
}

sf_count_t memory_read(void* out, sf_count_t count, void* user) {
  auto* f = static_cast<MemoryFile*>(user);
  const sf_count_t size = static_cast<sf_count_t>(f->bytes.size());
  const sf_count_t n = std::max<sf_count_t>(0, std::min(count, size - f->position));
  if (n > 0) std::memcpy(out, f->bytes.data() + f->position, static_cast<std::size_t>(n));
  f->position += n;
  return n;
}

sf_count_t memory_write(const void* in, sf_count_t count, void* user) {
  auto* f = static_cast<MemoryFile*>(user);
  const auto end = static_cast<std::size_t>(f->position + count);
  if (f->bytes.size() < end) f->bytes.resize(end);
  std::memcpy(f->bytes.data() + f->position, in, static_cast<std::size_t>(count));
  f->position += count;
  return count;
}

sf_count_t memory_tell(void* user) { return static_cast<MemoryFile*>(user)->position; }

SF_VIRTUAL_IO memory_io() {
  return SF_VIRTUAL_IO{memory_length, memory_seek, memory_read, memory_write, memory_tell};
}

struct SndfileCloser {
  void operator()(SNDFILE* f) const { sf_close(f); }
};
using Sndfile = std::unique_ptr<SNDFILE, SndfileCloser>;

std::string read_bytes(const std::string& path) {
  std::error_code ec;
  HEED_CHECK(!std::filesystem::is_directory(path, ec), path,
             ": is a directory, expected a WAV file");
  std::ifstream in(path, std::ios::binary);
  HEED_CHECK(in, path, ": cannot open for reading (", std::strerror(errno), ")");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  HEED_CHECK(!in.bad(), path, ": cannot read (", std::strerror(errno), ")");
  return bytes;
}

}  // namespace

WavContents read_wav_contents(const std::string& path) {
  return wav_contents_of_bytes(read_bytes(path), path);
}

WavContents wav_contents_of_bytes(std::string bytes, const std::string& path) {
  MemoryFile file{std::move(bytes)};
  const Layout layout = check_layout(path, file.bytes);
  // libsndfile reads the header again; a data chunk longer than the file's bytes was refused
  // above, so every frame it announces is there.
  SF_VIRTUAL_IO io = memory_io();
  SF_INFO info{};
  Sndfile sf(sf_open_virtual(&io, SFM_READ, &info, &file));
  HEED_CHECK(sf != nullptr, path, ": not a readable WAV file (libsndfile: ",
             sf_strerror(nullptr), ")");
  const int major = info.format & SF_FORMAT_TYPEMASK;
  HEED_CHECK(major == SF_FORMAT_WAV || major == SF_FORMAT_WAVEX, path,
             ": libsndfile reads it as another format than WAV, expected RIFF/WAVE");
  const Format& f = layout.format;
  const std::int64_t frames = static_cast<std::int64_t>(layout.data_bytes / f.block_align);
  HEED_CHECK(info.channels == f.channels && info.samplerate == static_cast<int>(f.rate) &&
                 info.frames == frames,
             path, ": libsndfile reads ", info.frames, " frames of ", info.channels,
             " channels at ", info.samplerate, " Hz, expected ", frames, " of ", f.channels,
             " at ", f.rate, " (the header)");
  WavContents out;
  out.sample_rate = info.samplerate;
  out.channels = info.channels;
  out.bits = f.bits;
  out.is_float = f.tag == kFormatFloat;
  out.interleaved.resize(static_cast<std::size_t>(frames) * f.channels);
  const sf_count_t got = sf_readf_float(sf.get(), out.interleaved.data(), frames);
  HEED_CHECK(got == frames, path, ": truncated: read ", got, " frames, expected ", frames,
             " (the header)");
  return out;
}

Audio mix_to_mono(const WavContents& wav) {
  Audio audio;
  audio.sample_rate = wav.sample_rate;
  const std::int64_t frames = wav.frames();
  audio.samples.resize(static_cast<std::size_t>(frames));
  const int c = wav.channels;
  if (c == 1) {
    audio.samples = wav.interleaved;
    return audio;
  }
  for (std::int64_t t = 0; t < frames; ++t) {
    double sum = 0;
    for (int k = 0; k < c; ++k) sum += wav.interleaved[static_cast<std::size_t>(t * c + k)];
    audio.samples[static_cast<std::size_t>(t)] = static_cast<float>(sum / c);
  }
  return audio;
}

Audio read_wav(const std::string& path) { return mix_to_mono(read_wav_contents(path)); }

Audio wav_of_bytes(std::string bytes, const std::string& what) {
  return mix_to_mono(wav_contents_of_bytes(std::move(bytes), what));
}

void write_wav(const std::string& path, std::span<const float> samples, int sample_rate) {
  HEED_CHECK(sample_rate > 0, path, ": sample rate ", sample_rate, ", expected a positive rate");
  std::vector<short> pcm(samples.size());
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const double x = std::clamp(static_cast<double>(samples[i]), -1.0, 1.0);
    pcm[i] = static_cast<short>(std::clamp(std::lround(x * 32768.0), -32768L, 32767L));
  }
  MemoryFile file;
  SF_VIRTUAL_IO io = memory_io();
  SF_INFO info{};
  info.samplerate = sample_rate;
  info.channels = 1;
  info.format = SF_FORMAT_WAV | SF_FORMAT_PCM_16;
  {
    Sndfile sf(sf_open_virtual(&io, SFM_WRITE, &info, &file));
    HEED_CHECK(sf != nullptr, path, ": cannot encode WAV (libsndfile: ", sf_strerror(nullptr),
               ")");
    const auto n = static_cast<sf_count_t>(pcm.size());
    HEED_CHECK(sf_writef_short(sf.get(), pcm.data(), n) == n, path,
               ": cannot encode WAV (libsndfile: ", sf_strerror(sf.get()), ")");
  }  // sf_close writes the final header sizes
  write_file_atomically(path, file.bytes);
}

}  // namespace heed
