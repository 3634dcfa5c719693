// End to end: runs the built `heed` binary (<build>/heed, next to this test's tests/ folder)
// on small dictionaries the test writes, and on the real CMUdict export when installed.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "data/temp_dir.h"
#include "heed/base/utf8.h"
#include "heed/data/pronunciation_dictionary.h"
#include "heed/data/text_file.h"

namespace heed {
namespace {

using Lines = std::vector<std::string>;

std::string heed_binary() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  return (exe.parent_path().parent_path() / "heed").string();
}

struct Result {
  int code = -1;
  std::string output;  // stdout and stderr together
};

Result run_heed(const std::string& args) {
  Result r;
  // Built by appending: g++ 12 warns falsely (-Wrestrict) on "'" + std::string + ...
  std::string cmd(1, '\'');
  cmd.append(heed_binary()).append("' ").append(args).append(" 2>&1");
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 4096> buf;
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) r.output.append(buf.data(), n);
  int status = ::pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

class DataCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(heed_binary()))
      GTEST_SKIP() << heed_binary() << " not built (ninja heed_cli)";
  }
  testing::TempDir dir_;
};

// 40 words, upper case like many user dictionaries, with variants, comments and a
// non-letter word.
std::string tiny_dictionary() {
  std::string text = ";;; a tiny test dictionary\n# comment line\n";
  for (int i = 0; i < 40; ++i) {
    std::string suffix;  // i in base 26, letters only
    for (int k = i; k > 0; k /= 26) suffix += static_cast<char>('A' + k % 26);
    const std::string word = "WORD" + suffix;
    text += word + "\tW ER1 T" + suffix + "\n";
    if (i % 4 == 0) text += word + "(2)  W AO0 T" + suffix + "  # second\n";
  }
  text += "READ R EH1 D\nREAD(2) R IY1 D\nREAD(3) R IY1 D\nA.M.\tEY2 EH1 M\n";
  return text;
}

TEST_F(DataCommand, SplitsATinyDictionaryByWord) {
  auto dict = dir_.write("tiny.dict", tiny_dictionary());
  auto out = dir_.file("out");
  auto r = run_heed("data g2p --dict " + dict + " --out " + out +
                    " --dev-fraction 0.1 --test-fraction 0.1 --letters-only --stress strip");
  ASSERT_EQ(r.code, 0) << r.output;
  // 54 entries; 41 words kept (40 + read): a.m. dropped, READ(3) repeats READ(2).
  EXPECT_NE(r.output.find("54 entries, 41 words, 52 pronunciations"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("dropped 1 entries of words with characters other than letters"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("merged 1 repeated"), std::string::npos) << r.output;

  auto train_src = read_lines(out + "/train.src");
  auto train_tgt = read_lines(out + "/train.tgt");
  auto dev_src = read_lines(out + "/dev.src"), dev_tgt = read_lines(out + "/dev.tgt");
  auto test_src = read_lines(out + "/test.src"), test_tgt = read_lines(out + "/test.tgt");
  ASSERT_EQ(train_src.size(), train_tgt.size());
  ASSERT_EQ(dev_src.size(), 4u);  // round(41 * 0.1)
  ASSERT_EQ(test_src.size(), 4u);
  ASSERT_EQ(dev_tgt.size(), 4u);
  std::set<std::string> train_words(train_src.begin(), train_src.end());
  EXPECT_EQ(train_words.size(), 33u);
  for (const auto& w : dev_src) EXPECT_FALSE(train_words.count(w)) << w;
  for (const auto& w : test_src) EXPECT_FALSE(train_words.count(w)) << w;
  for (const auto& w : train_src) EXPECT_EQ(w, heed::to_lower(w));
  for (const auto& p : train_tgt) EXPECT_EQ(p.find_first_of("0123456789"), std::string::npos);
  // Variants: a word of the form WORD.. with i % 4 == 0 has two references on its line.
  std::size_t two = 0;
  for (const auto* part : {&dev_tgt, &test_tgt})
    for (const auto& line : *part) two += line.find('\t') != std::string::npos;
  std::size_t train_pairs = train_src.size() - train_words.size();
  EXPECT_EQ(train_pairs + two, 11u);  // 10 WORD variants + read(2)

  // Same seed, same files; another seed, another split.
  auto again = dir_.file("again");
  ASSERT_EQ(run_heed("data g2p --dict " + dict + " --out " + again +
                     " --dev-fraction 0.1 --test-fraction 0.1 --letters-only --stress strip")
                .code,
            0);
  EXPECT_EQ(read_lines(again + "/test.src"), test_src);
  auto other = dir_.file("other");
  ASSERT_EQ(run_heed("data g2p --dict " + dict + " --out " + other +
                     " --dev-fraction 0.1 --test-fraction 0.1 --letters-only --stress strip --seed 7")
                .code,
            0);
  EXPECT_NE(read_lines(other + "/test.src"), test_src);
}

TEST_F(DataCommand, ExistingSplit) {
  auto train = dir_.write("train.dict", "a AH0\na(2) EY1\nb B IY1\nc S IY1\nd D IY1\ne IY1\n");
  auto test = dir_.write("test.dict", "f EH1 F\ng JH IY1\ne IY1\n");
  auto out = dir_.file("out");
  auto r = run_heed("data g2p --train " + train + " --test " + test + " --out " + out +
                    " --dev-fraction 0.2");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("removed 1 training words"), std::string::npos) << r.output;
  EXPECT_EQ(read_lines(out + "/test.src"), (Lines{"e", "f", "g"}));
  EXPECT_EQ(read_lines(out + "/dev.src").size(), 1u);  // round(4 * 0.2)
  auto kept = read_lines(out + "/train.src");
  kept.push_back(read_lines(out + "/dev.src")[0]);
  EXPECT_EQ(std::set<std::string>(kept.begin(), kept.end()),
            (std::set<std::string>{"a", "b", "c", "d"}));
  EXPECT_EQ(run_heed("data g2p --train " + train + " --test " + test + " --out " + out +
                     " --test-fraction 0.1")
                .code,
            1);
}

TEST_F(DataCommand, ErrorsAreClear) {
  auto bad = dir_.write("bad.dict", "a AH0\n\nlonely\n");
  auto r = run_heed("data g2p --dict " + bad + " --out " + dir_.file("o"));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find(bad + ":3: expected a word followed by its phones"), std::string::npos)
      << r.output;

  r = run_heed("data g2p --out " + dir_.file("o"));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("give exactly one source"), std::string::npos) << r.output;

  r = run_heed("data g2p --cmudict --cmudict-path " + dir_.file("nope.txt") + " --out " +
               dir_.file("o"));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("run tools/setup.sh"), std::string::npos) << r.output;

  r = run_heed("data g2p --dict " + bad + " --stress sometimes --out " + dir_.file("o"));
  EXPECT_EQ(r.code, 2) << r.output;  // usage error
  auto good = dir_.write("good.dict", "a AH0\n");
  r = run_heed("data g2p --dict " + good + " --train " + good + " --test " + good + " --out " +
               dir_.file("o"));
  EXPECT_EQ(r.code, 2) << r.output;
}

// The real dictionary with default options, where tools/setup.sh installed it.
TEST_F(DataCommand, RealCmudict) {
  const std::string path = default_cmudict_path();
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " not installed (tools/setup.sh)";
  auto out = dir_.file("cmu");
  auto r = run_heed("data g2p --cmudict --out " + out);
  ASSERT_EQ(r.code, 0) << r.output;
  std::cout << r.output;
  auto dict = read_pronunciation_dictionary(path);
  auto train = read_lines(out + "/train.src"), dev = read_lines(out + "/dev.src"),
       test = read_lines(out + "/test.src");
  std::set<std::string> train_words(train.begin(), train.end());
  EXPECT_EQ(train_words.size() + dev.size() + test.size(), dict.words.size());
  const double n = static_cast<double>(dict.words.size());
  EXPECT_NEAR(dev.size() / n, 0.05, 1e-4);
  EXPECT_NEAR(test.size() / n, 0.05, 1e-4);
  std::size_t refs = 0;
  for (const auto& line : read_lines(out + "/test.tgt"))
    refs += 1 + std::count(line.begin(), line.end(), '\t');
  std::size_t dev_refs = 0;
  for (const auto& line : read_lines(out + "/dev.tgt"))
    dev_refs += 1 + std::count(line.begin(), line.end(), '\t');
  EXPECT_EQ(train.size() + dev_refs + refs, dict.pronunciations());
}

}  // namespace
}  // namespace heed
