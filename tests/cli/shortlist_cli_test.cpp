// End-to-end tests of vocabulary shortlists: `heed shortlist` (from attention and from
// co-occurrence) and `heed translate --shortlist`, through the heed binary, on a tiny model
// trained once per suite. A shortlist holding the whole vocabulary translates exactly as
// none (greedy, beam with n-best); a small one only ever emits its pieces.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"
#include "heed/base/random.h"

namespace heed {
namespace {

using testing::CommandResult;
using testing::run_heed;
using testing::ScratchDir;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string f; std::getline(in, f, '\t');) out.push_back(f);
  return out;
}

class ShortlistCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new ScratchDir("heed_cli_shortlist");
    Rng rng(9);
    std::string src, tgt;
    for (int i = 0; i < 300; ++i) {
      std::string s;
      const auto len = 2 + rng.below(5);
      for (std::uint64_t k = 0; k < len; ++k) s += static_cast<char>('a' + rng.below(8));
      src += s + "\n";
      tgt += std::string(s.rbegin(), s.rend()) + "\n";
    }
    train_src_ = dir_->file("train.src", src);
    train_tgt_ = dir_->file("train.tgt", tgt);
    const std::string config = dir_->file(
        "config.yaml", "data:\n  train_source: " + train_src_ + "\n  train_target: " + train_tgt_ +
                           "\nmodel:\n  kind: bahdanau\n  emb_dim: 8\n  enc_hidden: 12\n"
                           "  dec_hidden: 12\ntraining:\n  lr: 0.02\n  max_tokens: 200\n"
                           "  max_steps: 30\n  validate_every: 15\n  threads: 1\n");
    const CommandResult r = run_heed("train " + config + " --set output=" + dir_->path("m"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    input_ = dir_->file("input.txt", "abc\nhgfe\n\ndddcab\nbad\nh\n");
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static std::string shortlist(const std::string& name, const std::string& options) {
    const std::string out = dir_->path(name);
    const CommandResult r = run_heed("shortlist -m " + dir_->path("m") + " -s " + train_src_ +
                                     " -t " + train_tgt_ + " --out " + out + " " + options);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("heed shortlist: 300 pairs"), std::string::npos) << r.output;
    return out;
  }
  static std::string translate(const std::string& options) {
    const CommandResult r = run_heed("translate -m " + dir_->path("m") + " -i " + input_ +
                                     " --max-len-b 12 " + options);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    // With --shortlist, stderr (merged here) ends with the union's report: kept aside.
    std::string out = r.output;
    report_.clear();
    if (const auto at = out.find("heed translate: shortlist: "); at != std::string::npos) {
      const auto end = out.find('\n', at);
      report_ = out.substr(at, end - at);
      out.erase(at, end == std::string::npos ? end : end - at + 1);
    }
    return out;
  }

  static std::string report_;
  static ScratchDir* dir_;
  static std::string train_src_, train_tgt_, input_;
};
ScratchDir* ShortlistCli::dir_ = nullptr;
std::string ShortlistCli::train_src_, ShortlistCli::train_tgt_, ShortlistCli::input_,
    ShortlistCli::report_;

TEST_F(ShortlistCli, WholeVocabularyTranslatesAsWithout) {
  for (const char* from : {"attention", "cooccurrence"}) {
    // Every target piece of the training data is frequent: the whole vocabulary.
    const std::string s =
        shortlist(std::string("all-") + from, std::string("--frequent 100000 --from ") + from);
    for (const char* decode : {"--beam 1", "--beam 4 --nbest 3", "--beam 3 --batch-size 2"}) {
      const std::string full = translate(decode);
      EXPECT_EQ(report_, "");
      EXPECT_EQ(translate(std::string(decode) + " --shortlist " + s), full)
          << from << " " << decode;
      // Every batch kept the whole vocabulary of 12 (8 letters and the 4 specials).
      EXPECT_EQ(report_,
                "heed translate: shortlist: 12.0 target ids per sentence's batch on average "
                "(12 to 12; 100.0% of 12)");
    }
  }
}

TEST_F(ShortlistCli, SmallShortlistEmitsOnlyTheUnionOfItsSourcesLists) {
  for (const char* from : {"attention", "cooccurrence"}) {
    const std::string s = shortlist(std::string("small-") + from,
                                    std::string("--top-k 2 --frequent 1 --from ") + from);
    std::ifstream in(s);
    std::string line;
    std::getline(in, line);
    EXPECT_EQ(line, std::string("heed-shortlist\t1\ttop-k=2\tfrequent=1\tfrom=") + from);
    std::getline(in, line);
    const std::vector<std::string> frequent = fields(line);
    ASSERT_EQ(frequent.size(), 1u);
    std::map<std::string, std::vector<std::string>> lists;
    while (std::getline(in, line)) {
      std::vector<std::string> f = fields(line);
      ASSERT_LE(f.size(), 3u) << line;
      lists[f[0]] = {f.begin() + 1, f.end()};
    }
    // a..h each co-occur with targets; attention lists only the pieces some target piece
    // attended to most.
    if (std::string(from) == "cooccurrence")
      EXPECT_EQ(lists.size(), 8u);
    else
      EXPECT_GE(lists.size(), 4u);
    // Batches of one sentence: each output's pieces are in the frequent piece and its
    // source's lists.
    const std::vector<std::string> out =
        lines_of(translate(std::string("--beam 3 --batch-size 1 --shortlist ") + s));
    const std::vector<std::string> in_lines = {"abc", "hgfe", "", "dddcab", "bad", "h"};
    ASSERT_EQ(out.size(), in_lines.size());
    for (std::size_t i = 0; i < out.size(); ++i) {
      std::set<std::string> allowed(frequent.begin(), frequent.end());
      for (char c : in_lines[i])
        for (const std::string& t : lists[std::string(1, c)]) allowed.insert(t);
      std::string text = out[i];  // <unk> is always allowed (a special)
      for (std::size_t at; (at = text.find("<unk>")) != std::string::npos;) text.erase(at, 5);
      for (char c : text)
        EXPECT_TRUE(allowed.count(std::string(1, c)))
            << from << ": '" << c << "' in '" << out[i] << "' for '" << in_lines[i] << "'";
    }
  }
}

}  // namespace
}  // namespace heed
