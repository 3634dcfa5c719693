// WAV files: every PCM width and float format, written by libsndfile, read back exactly;
// stereo mixed down; heed's 16-bit writer; and every bad file refused with a message naming
// the file and what was expected.
#include "heed/audio/wav_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "audio/test_wav.h"
#include "data/temp_dir.h"
#include "heed/base/error.h"

namespace heed {
namespace {

using testing::TempDir;
using testing::wav_header;

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// The message of the heed::Error that reading path throws ("" when none is thrown).
std::string read_error(const std::string& path) {
  try {
    read_wav(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// b-bit PCM values (the smallest, the largest, zero and a few between) and what libsndfile
// reads them as: v / 2^(b-1).
struct PcmCase {
  int subtype, bits;
  std::vector<std::int64_t> values;
};

TEST(WavFile, ReadsEveryPcmWidthExactly) {
  TempDir dir;
  const std::vector<PcmCase> cases = {
      {SF_FORMAT_PCM_U8, 8, {-128, 127, 0, 1, -1, 64, -77}},
      {SF_FORMAT_PCM_16, 16, {-32768, 32767, 0, 1, -1, 12345, -20000}},
      {SF_FORMAT_PCM_24, 24, {-8388608, 8388607, 0, 1, -1, 4000000, -123456}},
      // Values whose quotient by 2^31 a float holds exactly (24 significant bits).
      {SF_FORMAT_PCM_32, 32, {-2147483648LL, 0x7FFFFF00, 0, 256, -256, 12345 << 8, -(1 << 20)}},
  };
  for (const PcmCase& c : cases) {
    std::vector<int> ints;
    for (std::int64_t v : c.values) ints.push_back(static_cast<int>(v * (1LL << (32 - c.bits))));
    const std::string path = dir.file("pcm" + std::to_string(c.bits) + ".wav");
    testing::write_wav_ints(path, ints, 8000, 1, c.subtype);
    const WavContents wav = read_wav_contents(path);
    EXPECT_EQ(wav.sample_rate, 8000);
    EXPECT_EQ(wav.channels, 1);
    EXPECT_EQ(wav.bits, c.bits);
    EXPECT_FALSE(wav.is_float);
    ASSERT_EQ(wav.interleaved.size(), c.values.size()) << c.bits;
    for (std::size_t i = 0; i < c.values.size(); ++i)
      EXPECT_EQ(wav.interleaved[i],
                static_cast<float>(static_cast<double>(c.values[i]) / (1LL << (c.bits - 1))))
          << c.bits << "-bit value " << c.values[i];
  }
}

TEST(WavFile, ReadsFloatAndDoubleExactly) {
  TempDir dir;
  const std::vector<float> values = {0.0f, 1.0f, -1.0f, 0.1f, -0.3333333f, 1.5f, 1e-7f};
  for (int subtype : {SF_FORMAT_FLOAT, SF_FORMAT_DOUBLE}) {
    const std::string path = dir.file("f" + std::to_string(subtype) + ".wav");
    testing::write_wav_floats(path, values, 22050, 1, subtype);
    const WavContents wav = read_wav_contents(path);
    EXPECT_TRUE(wav.is_float);
    EXPECT_EQ(wav.bits, subtype == SF_FORMAT_FLOAT ? 32 : 64);
    EXPECT_EQ(wav.sample_rate, 22050);
    EXPECT_EQ(wav.interleaved, values);  // above 1 too: float files are not clipped
  }
}

TEST(WavFile, MixesStereoDownToTheMeanOfItsChannels) {
  TempDir dir;
  const std::string path = dir.file("stereo.wav");
  // Frames (L, R) of 16-bit values.
  const std::vector<int> lr = {1000, 3000, -4000, 2000, 32767, 32767, -32768, 0};
  std::vector<int> ints;
  for (int v : lr) ints.push_back(v * 65536);
  testing::write_wav_ints(path, ints, 16000, 2, SF_FORMAT_PCM_16);
  const WavContents wav = read_wav_contents(path);
  EXPECT_EQ(wav.channels, 2);
  EXPECT_EQ(wav.frames(), 4);
  const Audio audio = read_wav(path);
  EXPECT_EQ(audio.sample_rate, 16000);
  const std::vector<float> expected = {2000 / 32768.0f, -1000 / 32768.0f, 32767 / 32768.0f,
                                       -16384 / 32768.0f};
  EXPECT_EQ(audio.samples, expected);
  EXPECT_DOUBLE_EQ(audio.seconds(), 4.0 / 16000);
}

TEST(WavFile, MixesAnyNumberOfChannels) {
  TempDir dir;
  const std::string path = dir.file("three.wav");
  testing::write_wav_floats(path, {0.25f, 0.5f, -0.75f, 1.0f, 1.0f, 1.0f}, 8000, 3,
                            SF_FORMAT_FLOAT);
  EXPECT_EQ(read_wav(path).samples, (std::vector<float>{0.0f, 1.0f}));
}

TEST(WavFile, WritesSixteenBitPcmThatReadsBack) {
  TempDir dir;
  const std::string path = dir.file("out.wav");
  const std::vector<float> samples = {0.0f, 0.5f, -0.5f, -1.0f, 32767 / 32768.0f, 2.0f, -3.0f,
                                      1e-6f};
  write_wav(path, samples, 8000);
  const WavContents wav = read_wav_contents(path);
  EXPECT_EQ(wav.bits, 16);
  EXPECT_EQ(wav.channels, 1);
  EXPECT_EQ(wav.sample_rate, 8000);
  // Multiples of 1/32768 come back as they were; 2 and -3 are clamped, 1 to 32767/32768.
  const std::vector<float> expected = {0.0f, 0.5f, -0.5f, -1.0f, 32767 / 32768.0f,
                                       32767 / 32768.0f, -1.0f, 0.0f};
  EXPECT_EQ(wav.interleaved, expected);
  // A plain 44-byte header and the samples; the same samples give the same bytes.
  EXPECT_EQ(std::filesystem::file_size(path), 44u + 2 * samples.size());
  const std::string again = dir.file("again.wav");
  write_wav(again, samples, 8000);
  EXPECT_EQ(bytes_of(path), bytes_of(again));
  // Atomic: nothing but the two files is left in the folder.
  int files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.file(""))) ++files;
  EXPECT_EQ(files, 2);
  write_wav(dir.file("empty.wav"), {}, 16000);
  EXPECT_TRUE(read_wav(dir.file("empty.wav")).samples.empty());
}

TEST(WavFile, ReadsBytesHeldInMemoryAsAFile) {
  TempDir dir;
  std::string b = wav_header(1, 2, 8000, 16, 4);
  testing::put16(b, 16384);
  testing::put16(b, 0);  // frame 0: (0.5 + 0) / 2
  const std::string path = dir.write("stereo.wav", b);
  const Audio upload = wav_of_bytes(b, "the request body");
  EXPECT_EQ(upload.samples, read_wav(path).samples);
  EXPECT_EQ(upload.samples, (std::vector<float>{0.25f}));
  EXPECT_EQ(upload.sample_rate, 8000);
  EXPECT_EQ(wav_contents_of_bytes(b, "x").channels, 2);
  // Its errors name it as the caller says.
  try {
    wav_of_bytes("hello, world\n", "the request body");
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "the request body: not a WAV file: it starts with 'hell', expected 'RIFF'");
  }
}

TEST(WavFile, ReadsAStreamedDataChunkOfUnknownSizeToTheEnd) {
  TempDir dir;
  std::string b = wav_header(1, 1, 8000, 16, 0xFFFFFFFF);
  testing::put16(b, 16384);
  testing::put16(b, 0xC000);  // -16384
  EXPECT_EQ(read_wav(dir.write("stream.wav", b)).samples, (std::vector<float>{0.5f, -0.5f}));
}

TEST(WavFile, SkipsOtherChunksBeforeTheData) {
  TempDir dir;
  std::string b = wav_header(1, 1, 8000, 16, 2);
  // A LIST chunk of 3 bytes (and its pad byte) between fmt and data.
  b.insert(36, std::string("LIST\x03\x00\x00\x00" "abc\x00", 12));
  testing::put16(b, 8192);
  EXPECT_EQ(read_wav(dir.write("list.wav", b)).samples, (std::vector<float>{0.25f}));
}

TEST(WavFile, RefusesAMissingFileOrADirectory) {
  TempDir dir;
  const std::string missing = dir.file("nope.wav");
  EXPECT_NE(read_error(missing).find(missing + ": cannot open for reading (No such file"),
            std::string::npos)
      << read_error(missing);
  EXPECT_EQ(read_error(dir.file("")), dir.file("") + ": is a directory, expected a WAV file");
}

TEST(WavFile, RefusesAnEmptyFile) {
  TempDir dir;
  const std::string path = dir.write("empty.wav", "");
  EXPECT_EQ(read_error(path), path + ": empty file, expected a WAV file (RIFF/WAVE)");
}

TEST(WavFile, RefusesWhatIsNotRiffWave) {
  TempDir dir;
  const std::string text = dir.write("text.wav", "hello, world\n");
  EXPECT_EQ(read_error(text), text + ": not a WAV file: it starts with 'hell', expected 'RIFF'");
  const std::string flac = dir.write("flac.wav", std::string("fLaC\0\0\0\x22", 8));
  EXPECT_EQ(read_error(flac), flac + ": not a WAV file: it starts with 'fLaC', expected 'RIFF'");
  const std::string binary = dir.write("bin.wav", std::string("\x01\x02\xff", 3));
  EXPECT_EQ(read_error(binary),
            binary + ": not a WAV file: it starts with 0x01 0x02 0xff, expected 'RIFF'");
  const std::string avi = dir.write("avi.wav", std::string("RIFF\x04\0\0\0AVI ", 12));
  EXPECT_EQ(read_error(avi), avi + ": a RIFF file of type 'AVI ', expected 'WAVE'");
}

TEST(WavFile, RefusesATruncatedFile) {
  TempDir dir;
  const std::string short_header = dir.write("riff.wav", "RIFF");
  EXPECT_EQ(read_error(short_header),
            short_header + ": truncated: 4 bytes, expected at least 12 (the RIFF/WAVE header)");
  const std::string full = wav_header(1, 1, 8000, 16, 1600) + std::string(1600, '\0');
  const std::string cut_data = dir.write("cut.wav", full.substr(0, 1044));
  EXPECT_EQ(read_error(cut_data), cut_data +
                                      ": truncated: the data chunk holds 1000 bytes, expected "
                                      "1600 (its header): the file was cut short");
  const std::string cut_fmt = dir.write("cutfmt.wav", full.substr(0, 30));
  EXPECT_EQ(read_error(cut_fmt),
            cut_fmt + ": truncated: the 'fmt ' chunk at byte 12 holds 10 bytes, expected 16 "
                      "(its header)");
  const std::string no_data = dir.write("nodata.wav", full.substr(0, 36));
  EXPECT_EQ(read_error(no_data), no_data +
                                     ": truncated: the file ends at byte 36 before its data "
                                     "chunk, expected a 'fmt ' and a 'data' chunk");
  const std::string no_fmt = dir.write("nofmt.wav", full.substr(0, 12));
  EXPECT_EQ(read_error(no_fmt), no_fmt +
                                    ": truncated: the file ends at byte 12 before its fmt "
                                    "chunk, expected a 'fmt ' and a 'data' chunk");
}

TEST(WavFile, RefusesAFileCutShortAfterLibsndfileWroteIt) {
  TempDir dir;
  const std::string path = dir.file("sf.wav");
  testing::write_wav_ints(path, std::vector<int>(1000, 1 << 20), 8000, 1, SF_FORMAT_PCM_16);
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 1);
  EXPECT_NE(read_error(path).find(path + ": truncated: the data chunk holds 1999 bytes, expected "
                                         "2000 (its header)"),
            std::string::npos)
      << read_error(path);
}

TEST(WavFile, RefusesOtherCodecs) {
  TempDir dir;
  const std::string adpcm = dir.write("adpcm.wav", wav_header(2, 1, 8000, 4, 0));
  EXPECT_EQ(read_error(adpcm),
            adpcm + ": unsupported codec MS ADPCM, expected PCM (8, 16, 24 or 32 bits) or "
                    "IEEE float (32 or 64 bits)");
  const std::string mulaw = dir.write("ulaw.wav", wav_header(7, 1, 8000, 8, 0));
  EXPECT_NE(read_error(mulaw).find(mulaw + ": unsupported codec mu-law, expected PCM"),
            std::string::npos);
  const std::string odd = dir.write("odd.wav", wav_header(0x1234, 1, 8000, 16, 0));
  EXPECT_NE(read_error(odd).find(odd + ": unsupported codec format tag 0x1234, expected PCM"),
            std::string::npos);
  // IMA ADPCM as libsndfile itself writes it.
  const std::string ima = dir.file("ima.wav");
  testing::write_wav_floats(ima, std::vector<float>(2000, 0.25f), 8000, 1, SF_FORMAT_IMA_ADPCM);
  EXPECT_NE(read_error(ima).find(ima + ": unsupported codec IMA ADPCM, expected PCM"),
            std::string::npos)
      << read_error(ima);
  const std::string twelve = dir.write("twelve.wav", wav_header(1, 1, 8000, 12, 0));
  EXPECT_EQ(read_error(twelve),
            twelve + ": unsupported 12-bit PCM, expected PCM (8, 16, 24 or 32 bits) or IEEE "
                     "float (32 or 64 bits)");
  const std::string half = dir.write("half.wav", wav_header(3, 1, 8000, 16, 0));
  EXPECT_NE(read_error(half).find(half + ": unsupported 16-bit IEEE float, expected"),
            std::string::npos);
}

TEST(WavFile, RefusesAnExtensibleHeaderOfAnotherCodec) {
  TempDir dir;
  // WAVE_FORMAT_EXTENSIBLE whose sub-format GUID starts with 0x0002 (MS ADPCM).
  std::string b = "RIFF";
  testing::put32(b, 60);
  b += "WAVEfmt ";
  testing::put32(b, 40);
  testing::put16(b, 0xFFFE);
  testing::put16(b, 1);
  testing::put32(b, 8000);
  testing::put32(b, 16000);
  testing::put16(b, 2);
  testing::put16(b, 16);
  testing::put16(b, 22);
  testing::put16(b, 16);
  testing::put32(b, 4);  // channel mask
  testing::put16(b, 2);  // the GUID's first two bytes, then the rest of the PCM GUID's
  b += std::string("\0\0\0\0\x10\0\x80\0\0\xaa\0\x38\x9b\x71", 14);
  b += "data";
  testing::put32(b, 0);
  const std::string path = dir.write("ext.wav", b);
  EXPECT_NE(read_error(path).find(path + ": unsupported codec MS ADPCM"), std::string::npos)
      << read_error(path);
  // The same header with PCM as its sub-format reads.
  b[44] = 1;
  EXPECT_TRUE(read_wav(dir.write("ext_pcm.wav", b)).samples.empty());
}

TEST(WavFile, RefusesInconsistentHeaders) {
  TempDir dir;
  std::string b = wav_header(1, 2, 8000, 16, 6);  // 6 bytes: one and a half 4-byte frames
  b += std::string(6, '\0');
  const std::string partial = dir.write("partial.wav", b);
  EXPECT_EQ(read_error(partial),
            partial + ": a data chunk of 6 bytes, expected a whole number of 4-byte frames");
  std::string align = wav_header(1, 2, 8000, 16, 0);
  align[32] = 3;  // block align 3 for 2 channels of 2 bytes
  const std::string bad_align = dir.write("align.wav", align);
  EXPECT_EQ(read_error(bad_align),
            bad_align + ": block align 3, expected 4 (2 channels of 2 bytes)");
  const std::string no_channels = dir.write("mono0.wav", wav_header(1, 0, 8000, 16, 0));
  EXPECT_EQ(read_error(no_channels), no_channels + ": 0 channels, expected at least 1");
  const std::string no_rate = dir.write("rate0.wav", wav_header(1, 1, 0, 16, 0));
  EXPECT_EQ(read_error(no_rate), no_rate + ": sample rate 0, expected a positive rate");
  // data before fmt
  std::string swapped = "RIFF";
  testing::put32(swapped, 4 + 8 + 8 + 16);
  swapped += "WAVEdata";
  testing::put32(swapped, 0);
  swapped += wav_header(1, 1, 8000, 16, 0).substr(12, 24);
  const std::string data_first = dir.write("datafirst.wav", swapped);
  EXPECT_EQ(read_error(data_first),
            data_first + ": a data chunk before the fmt chunk, expected 'fmt ' first");
  const std::string short_fmt = dir.write(
      "shortfmt.wav", std::string("RIFF\x14\0\0\0WAVEfmt \x08\0\0\0\x01\0\x01\0\x40\x1f\0\0", 28));
  EXPECT_EQ(read_error(short_fmt),
            short_fmt + ": the fmt chunk holds 8 bytes, expected at least 16 (a WAVE format)");
}

TEST(WavFile, WriteRefusesARateBelowOne) {
  TempDir dir;
  EXPECT_THROW(write_wav(dir.file("x.wav"), {}, 0), Error);
}

}  // namespace
}  // namespace heed
