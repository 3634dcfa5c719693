// End to end: `heed data digits` (docs/cli/data.md) on a tiny FSDD-shaped folder the test
// writes: the files, training utterances from training recordings only (official split and
// held-out speaker), byte-identical runs by seed, the rate, and the exit codes of bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"
#include "heed/audio/wav_file.h"
#include "heed/data/text_file.h"

namespace heed {
namespace {

using testing::run_heed;
using testing::ScratchDir;

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// The words of a split's transcripts.
std::set<std::string> words_of(const std::vector<std::string>& lines) {
  std::set<std::string> words;
  for (const std::string& line : lines) {
    std::istringstream in(line.substr(line.find('\t') + 1));
    std::string w;
    while (in >> w) words.insert(w);
  }
  return words;
}

class DataDigitsCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(testing::heed_binary()))
      GTEST_SKIP() << testing::heed_binary() << " not built (ninja heed_cli)";
    // Speaker a says "one" at indices 0-4 (the official test split) and "two" at 5-9, speaker
    // b "nine" at every index: a transcript tells which recordings an utterance drew from.
    std::filesystem::create_directories(src_ + "/recordings");
    for (int i = 0; i < 10; ++i) {
      std::vector<float> burst(400);
      for (std::size_t k = 0; k < burst.size(); ++k)
        burst[k] = 0.3f * static_cast<float>(std::sin(0.2 * (i + 1) * k));
      write_wav(src_ + "/recordings/" + (i < 5 ? "1" : "2") + "_a_" + std::to_string(i) + ".wav",
                burst, 8000);
      write_wav(src_ + "/recordings/9_b_" + std::to_string(i) + ".wav", burst, 8000);
    }
  }
  testing::CommandResult digits(const std::string& out, const std::string& args) {
    return run_heed("data digits --fsdd '" + src_ + "' --out '" + dir_.path(out) + "' " + args);
  }
  std::vector<std::string> lines(const std::string& file) { return read_lines(dir_.path(file)); }
  ScratchDir dir_{"heed_data_digits"};
  std::string src_ = dir_.path("fsdd");
};

TEST_F(DataDigitsCommand, WritesThreeSplitsDeterministically) {
  const std::string args = "--count 6 --dev-count 2 --test-count 3 --seed 5 --max-digits 3";
  auto r = digits("a", args);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("20 recordings of 2 speakers (a, b), resampled to 8000 Hz"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("official split: recording indices 0-4 test"), std::string::npos);
  EXPECT_NE(r.output.find("heed data digits: train 6/6 utterances"), std::string::npos);
  const auto train = lines("a/train.tsv"), dev = lines("a/dev.tsv"), test = lines("a/test.tsv");
  ASSERT_EQ(train.size(), 6u);
  ASSERT_EQ(dev.size(), 2u);
  ASSERT_EQ(test.size(), 3u);
  EXPECT_EQ(train[0].substr(0, train[0].find('\t')), "train/000000.wav");
  EXPECT_EQ(test[2].substr(0, test[2].find('\t')), "test/000002.wav");
  for (const auto& line : train) {
    const Audio a = read_wav(dir_.path("a/" + line.substr(0, line.find('\t'))));
    EXPECT_EQ(a.sample_rate, 8000);
    EXPECT_GT(a.samples.size(), 2 * 800u + 400u);  // edges of 0.1 s at least, and one digit
  }
  // Each split's noise: the utterance's path, white or pink, the SNR in [10, 30] dB, and the
  // quietest digit's SNR, at most the utterance's (the SNR averages the digits' power).
  for (const char* split : {"train", "dev", "test"}) {
    const auto manifest = lines(std::string("a/") + split + ".tsv");
    const auto noise = lines(std::string("a/") + split + ".noise.tsv");
    ASSERT_EQ(noise.size(), manifest.size()) << split;
    for (std::size_t i = 0; i < noise.size(); ++i) {
      std::istringstream fields(noise[i]);
      std::string path, kind, snr, quietest;
      ASSERT_TRUE(std::getline(fields, path, '\t') && std::getline(fields, kind, '\t') &&
                  std::getline(fields, snr, '\t') && std::getline(fields, quietest))
          << noise[i];
      EXPECT_LE(std::stod(quietest), std::stod(snr) + 0.005) << noise[i];
      EXPECT_EQ(path, manifest[i].substr(0, manifest[i].find('\t')));
      EXPECT_TRUE(kind == "white" || kind == "pink") << kind;
      EXPECT_GE(std::stod(snr), 10.0) << snr;
      EXPECT_LE(std::stod(snr), 30.0) << snr;
    }
  }
  // Training and dev utterances from training recordings only, test from test ones.
  for (const auto& w : words_of(train)) EXPECT_TRUE(w == "two" || w == "nine") << w;
  for (const auto& w : words_of(dev)) EXPECT_TRUE(w == "two" || w == "nine") << w;
  for (const auto& w : words_of(test)) EXPECT_TRUE(w == "one" || w == "nine") << w;
  // Same seed: byte-identical files; another seed: other utterances.
  ASSERT_EQ(digits("b", args).exit_code, 0);
  for (const auto& line : train) {
    const std::string wav = line.substr(0, line.find('\t'));
    EXPECT_EQ(bytes_of(dir_.path("a/" + wav)), bytes_of(dir_.path("b/" + wav))) << wav;
  }
  for (const char* f : {"train.tsv", "dev.tsv", "test.tsv", "test.noise.tsv", "dev/000001.wav",
                        "test/000000.wav"})
    EXPECT_EQ(bytes_of(dir_.path(std::string("a/") + f)), bytes_of(dir_.path(std::string("b/") + f)))
        << f;
  ASSERT_EQ(digits("c", "--count 6 --dev-count 2 --test-count 3 --seed 6 --max-digits 3").exit_code, 0);
  EXPECT_NE(bytes_of(dir_.path("a/train/000000.wav")), bytes_of(dir_.path("c/train/000000.wav")));
}

TEST_F(DataDigitsCommand, HoldsOutASpeaker) {
  auto r = digits("s", "--count 8 --dev-count 2 --test-count 4 --test-speaker b");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("held-out speaker b"), std::string::npos) << r.output;
  EXPECT_EQ(words_of(lines("s/test.tsv")), std::set<std::string>{"nine"});
  for (const auto& w : words_of(lines("s/train.tsv"))) EXPECT_TRUE(w == "one" || w == "two") << w;
  for (const auto& w : words_of(lines("s/dev.tsv"))) EXPECT_TRUE(w == "one" || w == "two") << w;
}

TEST_F(DataDigitsCommand, ResamplesToTheRateAsked) {
  auto r = digits("r", "--count 2 --dev-count 0 --test-count 1 --rate 16000 --min-digits 2 "
                       "--max-digits 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(read_wav(dir_.path("r/train/000001.wav")).sample_rate, 16000);
  EXPECT_EQ(std::filesystem::file_size(dir_.path("r/dev.tsv")), 0u);  // no dev utterances
  for (const auto& line : lines("r/train.tsv"))
    EXPECT_EQ(std::count(line.begin(), line.end(), ' '), 1) << line;  // two words
}

TEST_F(DataDigitsCommand, PerturbsTheTrainingDigitsSpeedOnly) {
  const std::string args = "--count 4 --dev-count 2 --test-count 2 --seed 3";
  ASSERT_EQ(digits("p", args).exit_code, 0);
  auto r = digits("q", args + " --speed 0.8,1.2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("training digits at speed 0.8 to 1.2"), std::string::npos) << r.output;
  // Dev and test: the same utterances as without --speed; training: other audio.
  for (const char* f : {"dev.tsv", "test.tsv", "dev/000001.wav", "test/000000.wav"})
    EXPECT_EQ(bytes_of(dir_.path(std::string("p/") + f)), bytes_of(dir_.path(std::string("q/") + f)))
        << f;
  EXPECT_NE(bytes_of(dir_.path("p/train/000000.wav")), bytes_of(dir_.path("q/train/000000.wav")));
  r = digits("x", "--speed 1.2,0.8");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("speeds 1.2 to 0.8: expected 0.5 <= min <= max <= 2"), std::string::npos)
      << r.output;
  EXPECT_EQ(digits("x", "--speed 0.3,1").exit_code, 2);
  EXPECT_EQ(digits("x", "--speed 1.1").exit_code, 2);
}

TEST_F(DataDigitsCommand, RefusesBadInput) {
  // A truncated recording: exit 1 naming it, nothing written.
  const std::string bad = src_ + "/recordings/2_a_7.wav";
  std::filesystem::resize_file(bad, 100);
  auto r = digits("x", "--count 2");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(bad + ": truncated"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir_.path("x/train.tsv")));
  EXPECT_FALSE(std::filesystem::exists(dir_.path("x/train")));
  write_wav(bad, std::vector<float>(400, 0.1f), 8000);
  r = digits("x", "--test-speaker zed");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--test-speaker zed: no recordings of that speaker; the speakers are a, b"),
            std::string::npos)
      << r.output;
  r = digits("x", "--min-digits 4 --max-digits 2");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("expected 1 <= min <= max <= 50"), std::string::npos) << r.output;
  r = digits("x", "--max-digits 0");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = run_heed("data digits --fsdd '" + dir_.path("nope") + "' --out '" + dir_.path("x") + "'");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("nope: no such directory"), std::string::npos) << r.output;
  std::ofstream(dir_.path("file")) << "mine\n";
  r = digits("file", "--count 1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("exists and is not a directory"), std::string::npos) << r.output;
  EXPECT_EQ(bytes_of(dir_.path("file")), "mine\n");
  r = run_heed("data digits --out '" + dir_.path("x") + "'");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--fsdd"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace heed

namespace heed {
namespace {

// examples/digits/snr_bands.sh: an eval's errors by the noise each utterance was mixed with,
// and by its quietest digit's SNR (a band below 0 dB too); a noise file without that column
// (an older heed data digits) gives the first table alone.
TEST(SnrBands, BreaksErrorsDownByBandAndKind) {
  testing::ScratchDir dir("heed_snr_bands");
  const std::string noise = dir.file("test.noise.tsv",
                                     "test/0.wav\twhite\t11.50\t4.20\n"
                                     "test/1.wav\tpink\t12.00\t-3.10\n"
                                     "test/2.wav\tpink\t27.25\t20.00\n");
  const auto line = [](int n, const char* ref, const char* out) {
    return "{\"line\":" + std::to_string(n) + ",\"audio\":\"test/" + std::to_string(n - 1) +
           ".wav\",\"reference\":\"" + ref + "\",\"output\":\"" + out + "\",\"correct\":" +
           (std::string(ref) == out ? "true" : "false") + "}\n";
  };
  const std::string jsonl = dir.file("e.jsonl", line(1, "one two", "one three") +
                                                    line(2, "four", "four") +
                                                    line(3, "five six seven", "five seven"));
  const std::string script = std::string(HEED_SOURCE_DIR) + "/examples/digits/snr_bands.sh";
  const auto r = testing::run_shell("sh " + script + " " + noise + " " + jsonl);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // 10-15 dB: one of two strings wrong, one substitution in three digits; 25-30: one
  // deletion in three.
  EXPECT_NE(r.output.find(" 10 to  15 dB            2           50.00          33.33"),
            std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" 25 to  30 dB            1          100.00          33.33"),
            std::string::npos) << r.output;
  EXPECT_NE(r.output.find("white                    1          100.00          50.00"),
            std::string::npos) << r.output;
  EXPECT_NE(r.output.find("all                      3           66.67          33.33"),
            std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("15 to  20"), std::string::npos) << r.output;  // empty bands left out
  // The quietest digits: -3.10 dB falls in -5 to 0, 4.20 in 0 to 5.
  const std::size_t quiet = r.output.find("quietest digit");
  ASSERT_NE(quiet, std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" -5 to   0 dB            1            0.00           0.00", quiet),
            std::string::npos) << r.output;
  EXPECT_NE(r.output.find("  0 to   5 dB            1          100.00          50.00", quiet),
            std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" 20 to  25 dB            1          100.00          33.33", quiet),
            std::string::npos) << r.output;
  const std::string old = dir.file("old.noise.tsv",
                                   "test/0.wav\twhite\t11.50\ntest/1.wav\tpink\t12.00\n"
                                   "test/2.wav\tpink\t27.25\n");
  const auto three = testing::run_shell("sh " + script + " " + old + " " + jsonl);
  ASSERT_EQ(three.exit_code, 0) << three.output;
  EXPECT_NE(three.output.find("all                      3           66.67          33.33"),
            std::string::npos) << three.output;
  EXPECT_EQ(three.output.find("quietest"), std::string::npos) << three.output;
  const auto missing = testing::run_shell("sh " + script + " " + dir.path("none.tsv") + " " + jsonl);
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.output.find("none.tsv: no such file"), std::string::npos) << missing.output;
}

}  // namespace
}  // namespace heed
