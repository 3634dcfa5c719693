// End to end: the data step of the spoken-words recipe (examples/spoken-words/make_data.sh,
// docs/DATA.md#spoken-words) on a G2P split of a few words the test writes: the manifests
// heed reads, each WAV file readable, the transcripts the words' first pronunciations, the
// held-out voice and accent only in their test splits, byte-identical runs by seed, and the
// exit codes of bad input. Skipped where espeak-ng or flite is not installed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"
#include "heed/audio/wav_file.h"
#include "heed/data/speech_manifest.h"
#include "heed/data/text_file.h"

namespace heed {
namespace {

using testing::run_shell;
using testing::ScratchDir;

const std::string kScript = std::string(HEED_SOURCE_DIR) + "/examples/spoken-words/make_data.sh";

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  std::string f;
  while (std::getline(in, f, '\t')) out.push_back(f);
  return out;
}

class SpokenWordsData : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* program : {"espeak-ng", "flite"})
      if (run_shell(std::string("command -v ") + program).exit_code != 0)
        GTEST_SKIP() << program << " is not installed (apt-get install espeak-ng flite)";
    std::filesystem::create_directories(dir_.path("g2p"));
    // As heed data g2p writes them: a training line per pronunciation ("read" has two), dev
    // and test a line per word with every pronunciation TAB-separated.
    dir_.file("g2p/train.src", "cat\nread\nread\nsun\n");
    dir_.file("g2p/train.tgt", "K AE T\nR EH D\nR IY D\nS AH N\n");
    dir_.file("g2p/dev.src", "dog\n");
    dir_.file("g2p/dev.tgt", "D AO G\n");
    dir_.file("g2p/test.src", "tomato\n");
    dir_.file("g2p/test.tgt", "T AH M EY T OW\tT AH M AA T OW\n");
  }
  testing::CommandResult make(const std::string& out, const std::string& args = "") {
    return run_shell("sh '" + kScript + "' '" + dir_.path("g2p") + "' '" + dir_.path(out) +
                     "' --train 3 --dev 1 --test 1 --jobs 2 " + args);
  }
  ScratchDir dir_{"heed_spoken_words"};
};

TEST_F(SpokenWordsData, WritesManifestsOfReadableWavFilesAndTheFirstPronunciations) {
  const auto r = make("words");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::map<std::string, std::string> first = {
      {"cat", "K AE T"}, {"read", "R EH D"}, {"sun", "S AH N"}, {"dog", "D AO G"},
      {"tomato", "T AH M EY T OW"}};
  const std::map<std::string, std::size_t> sizes = {
      {"train", 3}, {"dev", 1}, {"test-seen", 1}, {"test-voice", 1}, {"test-accent", 1}};
  std::map<std::string, std::string> spoken;  // wav path -> "synthesiser voice"
  for (const auto& [split, n] : sizes) {
    const auto manifest = read_speech_manifest(dir_.path("words/" + split + ".tsv"));
    const auto voices = read_lines(dir_.path("words/" + split + ".voices"));
    ASSERT_EQ(manifest.size(), n) << split;
    ASSERT_EQ(voices.size(), n + 1) << split;  // a header line
    EXPECT_EQ(voices[0], "wav\tword\tsynthesiser\tvoice\tvariant\trate\tpitch");
    for (std::size_t i = 0; i < n; ++i) {
      const auto v = fields(voices[i + 1]);
      ASSERT_EQ(v.size(), 7u) << voices[i + 1];
      const std::string wav = "wav/" + split + "/00000" + std::to_string(i) + ".wav";
      EXPECT_EQ(v[0], wav);
      EXPECT_EQ(manifest[i].audio_path, dir_.path("words/" + wav));
      ASSERT_TRUE(first.count(v[1])) << v[1];
      EXPECT_EQ(manifest[i].transcript, first.at(v[1])) << split << " " << v[1];
      const Audio a = read_wav(manifest[i].audio_path);
      EXPECT_GT(a.seconds(), 0.2) << wav;
      EXPECT_LT(a.seconds(), 5.0) << wav;
      if (v[2] == "espeak-ng") {
        EXPECT_EQ(a.sample_rate, 22050) << wav;
      } else {
        ASSERT_EQ(v[2], "flite") << wav;
        EXPECT_EQ(a.sample_rate, v[3] == "kal" ? 8000 : 16000) << wav;
      }
      spoken[split] += v[2] + " " + v[3] + ";";
      if (split == "train" || split == "dev" || split == "test-seen") {
        EXPECT_NE(v[3], "slt") << "the held-out flite voice in " << split;
        EXPECT_NE(v[3], "en-gb-scotland") << "the held-out accent in " << split;
      }
    }
  }
  EXPECT_EQ(spoken["test-voice"], "flite slt;");
  EXPECT_EQ(spoken["test-accent"], "espeak-ng en-gb-scotland;");
  // The training words are three different words (read once, its first pronunciation).
  std::map<std::string, int> trained;
  const auto lines = read_lines(dir_.path("words/train.voices"));
  for (std::size_t i = 1; i < lines.size(); ++i) ++trained[fields(lines[i])[1]];
  EXPECT_EQ(trained, (std::map<std::string, int>{{"cat", 1}, {"read", 1}, {"sun", 1}}));
}

TEST_F(SpokenWordsData, TheSameSeedGivesTheSameFilesAnotherSeedOtherVoices) {
  ASSERT_EQ(make("a", "--seed 7").exit_code, 0);
  ASSERT_EQ(make("b", "--seed 7").exit_code, 0);
  ASSERT_EQ(make("c", "--seed 8").exit_code, 0);
  for (const char* split : {"train", "dev", "test-seen", "test-voice", "test-accent"}) {
    const std::string tsv = std::string(split) + ".tsv", voices = std::string(split) + ".voices";
    EXPECT_EQ(bytes_of(dir_.path("a/" + tsv)), bytes_of(dir_.path("b/" + tsv))) << split;
    EXPECT_EQ(bytes_of(dir_.path("a/" + voices)), bytes_of(dir_.path("b/" + voices))) << split;
    for (const auto& u : read_speech_manifest(dir_.path("a/" + tsv))) {
      const std::string rel = std::filesystem::relative(u.audio_path, dir_.path("a")).string();
      EXPECT_EQ(bytes_of(u.audio_path), bytes_of(dir_.path("b/" + rel))) << rel;
    }
  }
  // Seed 8 draws other voices, rates and pitches for the training words (exact for these
  // two seeds; the generator is the script's own, the same on every machine).
  EXPECT_NE(bytes_of(dir_.path("a/train.voices")), bytes_of(dir_.path("c/train.voices")));
}

TEST_F(SpokenWordsData, BadInputIsRefusedWithItsExitCode) {
  auto r = make("words", "--train many");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("expected a whole number, got 'many'"), std::string::npos) << r.output;
  r = make("words", "--voices x");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("usage: make_data.sh"), std::string::npos) << r.output;
  std::filesystem::remove(dir_.path("g2p/test.tgt"));
  r = make("words");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("g2p/test.tgt: missing"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir_.path("words/train.tsv")));
}

}  // namespace
}  // namespace heed
