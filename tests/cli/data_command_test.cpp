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
  EXPECT_NE(r.output.find(": 41 words, 52 pronunciations, 11 words with several (from 54 entry "
                          "lines)"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("dropped 1 entry lines of words with characters other than letters"),
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

// A benchmark-style dictionary of `count` words from `first` on, in either of its two
// forms: every pronunciation of a word on its line, TAB-separated, or CMUdict-style, one
// pronunciation per line with `WORD(2)` and repeated words (some at the end of the file).
// Every fifth word has two pronunciations and every tenth three; every seventh also has a
// variant differing only in stress. Upper case, as benchmark files often are, plus a word
// that --letters-only drops.
std::string benchmark_dictionary(int first, int count, bool one_line) {
  std::string text = "# a benchmark-style dictionary\n", later;
  for (int i = first; i < first + count; ++i) {
    std::string letters;  // i in base 26, letters only
    for (int k = i; k > 0; k /= 26) letters += static_cast<char>('A' + k % 26);
    const std::string word = "W" + letters;
    std::vector<std::string> prons = {"W ER1 " + letters};
    if (i % 5 == 0) prons.push_back("W AO0 " + letters + " Z");
    if (i % 10 == 0) prons.push_back("V IH1 " + letters);
    if (i % 7 == 0) prons.push_back("W ER2 " + letters);
    if (one_line) {
      text += word;
      for (const auto& p : prons) text += "\t" + p;
      text += "\n";
      continue;
    }
    text += word + "  " + prons[0] + "\n";
    for (std::size_t k = 1; k < prons.size(); ++k) {
      if (k == 1)
        text += word + "(" + std::to_string(k + 1) + ")  " + prons[k] + "\n";
      else
        later += word + "  " + prons[k] + "\n";
    }
  }
  const std::string odd = "A.M.";
  return text + later + (one_line ? odd + "\tEY2\tEH1 M\n" : odd + "  EY2\n" + odd + "  EH1 M\n");
}

const char* const kSplitFiles[] = {"train.src", "train.tgt", "dev.src",
                                   "dev.tgt",   "test.src",  "test.tgt"};

TEST_F(DataCommand, BothDictionaryFormsGiveIdenticalSplits) {
  const std::string options = " --dev-fraction 0.1 --letters-only --stress strip";
  std::string out[2];
  for (int one_line = 0; one_line < 2; ++one_line) {
    const std::string form = one_line ? "tabs" : "cmu";
    // The test file overlaps training in one word, as real splits sometimes do.
    auto train = dir_.write(form + ".train", benchmark_dictionary(1, 60, one_line));
    auto test = dir_.write(form + ".test", benchmark_dictionary(60, 20, one_line));
    out[one_line] = dir_.file("out-" + form);
    auto r = run_heed("data g2p --train " + train + " --test " + test + " --out " +
                      out[one_line] + options);
    ASSERT_EQ(r.code, 0) << r.output;
    // Test words 60..79: 65 and 75 with two pronunciations, 60 and 70 with three (70's
    // stress variant, like 63's and 77's, merges under --stress strip): 26 in all.
    EXPECT_NE(r.output.find(test + ": 20 words, 26 pronunciations, 4 words with several"),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("removed 1 training words"), std::string::npos) << r.output;
  }
  for (const char* f : kSplitFiles)
    EXPECT_EQ(read_lines(out[0] + "/" + f), read_lines(out[1] + "/" + f)) << f;
  // The references really hold the variants apart: word 60 (= 2 * 26 + 8, "wic") has three.
  auto test_src = read_lines(out[1] + "/test.src");
  auto test_tgt = read_lines(out[1] + "/test.tgt");
  ASSERT_EQ(test_src.size(), 20u);
  const auto at = std::find(test_src.begin(), test_src.end(), "wic");
  ASSERT_NE(at, test_src.end());
  EXPECT_EQ(test_tgt[at - test_src.begin()], "W ER IC\tW AO IC Z\tV IH IC");

  // --dict reads the two forms the same way too.
  for (int one_line = 0; one_line < 2; ++one_line) {
    const std::string form = one_line ? "tabs" : "cmu";
    auto r = run_heed("data g2p --dict " + dir_.file(form + ".train") + " --out " +
                      dir_.file("dict-" + form) + options);
    ASSERT_EQ(r.code, 0) << r.output;
  }
  for (const char* f : kSplitFiles)
    EXPECT_EQ(read_lines(dir_.file("dict-cmu/") + f), read_lines(dir_.file("dict-tabs/") + f))
        << f;
}

TEST_F(DataCommand, OwnTestFilesReadBackAsADictionary) {
  auto dict = dir_.write("bench.dict", benchmark_dictionary(1, 120, false));
  auto out = dir_.file("out");
  auto r = run_heed("data g2p --dict " + dict + " --out " + out +
                    " --dev-fraction 0.1 --test-fraction 0.2 --stress keep");
  ASSERT_EQ(r.code, 0) << r.output;
  const auto test_src = read_lines(out + "/test.src"), test_tgt = read_lines(out + "/test.tgt");
  ASSERT_EQ(test_src.size(), 24u);
  // test.src and test.tgt side by side (what `paste test.src test.tgt` gives) are a
  // dictionary in the TAB form; as the test file of a split it must give back the same
  // references, word for word.
  std::string pasted, train;
  std::size_t several = 0, prons = 0;
  for (std::size_t i = 0; i < test_src.size(); ++i) {
    pasted += test_src[i] + "\t" + test_tgt[i] + "\n";
    several += test_tgt[i].find('\t') != std::string::npos;
    prons += 1 + std::count(test_tgt[i].begin(), test_tgt[i].end(), '\t');
  }
  ASSERT_GT(several, 0u);
  const auto train_src = read_lines(out + "/train.src"), train_tgt = read_lines(out + "/train.tgt");
  for (std::size_t i = 0; i < train_src.size(); ++i)
    train += train_src[i] + "  " + train_tgt[i] + "\n";
  auto back = dir_.file("back");
  const auto test_dict = dir_.write("test.dict", pasted);
  r = run_heed("data g2p --train " + dir_.write("train.dict", train) + " --test " + test_dict +
               " --out " + back + " --dev-fraction 0");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find(test_dict + ": 24 words, " + std::to_string(prons) +
                          " pronunciations, " + std::to_string(several) + " words with several"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(read_lines(back + "/test.src"), test_src);
  EXPECT_EQ(read_lines(back + "/test.tgt"), test_tgt);
  EXPECT_EQ(read_lines(back + "/train.src"), train_src);
  EXPECT_EQ(read_lines(back + "/train.tgt"), train_tgt);

  // Scored against these references, an output equal to any variant is right: the last
  // variant of every word scores 0, and the variants glued into one (what the old reader
  // made of such a line) are wrong exactly for the words with several.
  std::string last, glued;
  for (const auto& refs : test_tgt) {
    last += refs.substr(refs.rfind('\t') + 1) + "\n";
    std::string g = refs;
    std::replace(g.begin(), g.end(), '\t', ' ');
    glued += g + "\n";
  }
  auto ref = back + "/test.tgt";
  r = run_heed("score -m g2p -b -r " + ref + " --hyp " + dir_.write("last.hyp", last));
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(r.output, "0.00 0.00\n");
  r = run_heed("score -m g2p -r " + ref + " --hyp " + dir_.write("glued.hyp", glued));
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("entries = 24 wrong = " + std::to_string(several)), std::string::npos)
      << r.output;
}

TEST_F(DataCommand, AmbiguousLinesAreErrors) {
  auto train = dir_.write("train.dict", "a AH0\nb B IY1\nc S IY1\n");
  // A space after the word, then TABs: variants or phone separators? Refused.
  auto test = dir_.write("test.dict", "d\tD IY1\nABS  AE1 B Z\tEY1 B IY1 EH1 S\n");
  auto r = run_heed("data g2p --train " + train + " --test " + test + " --out " + dir_.file("o"));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find(test + ":2: ambiguous line"), std::string::npos) << r.output;
  auto empty = dir_.write("empty.dict", "a\tAH0\t\tEY1\n");
  r = run_heed("data g2p --dict " + empty + " --out " + dir_.file("o"));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find(empty + ":1: pronunciation 2 is empty"), std::string::npos)
      << r.output;
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
