// End-to-end tests of alignments: `heed translate --alignment`, `heed align` (forced
// decoding) and `heed score --metric aer`, through the heed binary, on tiny models trained
// once per suite (a fraction of a second each).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
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

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) (s += l) += '\n';
  return s;
}

// "text ||| alignment" -> {text, alignment}.
std::pair<std::string, std::string> split_field(const std::string& line) {
  const auto at = line.find(" ||| ");
  if (at == std::string::npos) return {line, "<no field>"};
  return {line.substr(0, at), line.substr(at + 5)};
}

std::vector<double> numbers(const std::string& soft) {
  std::vector<double> v;
  std::string s = soft;
  for (char& c : s)
    if (c == ',') c = ' ';
  std::istringstream in(s);
  for (double x; in >> x;) v.push_back(x);
  return v;
}

class AlignmentCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new ScratchDir("heed_cli_alignment");
    Rng rng(5);
    std::string src, tgt;
    for (int i = 0; i < 300; ++i) {
      std::string s;
      const auto words = 1 + rng.below(3);
      for (std::uint64_t w = 0; w < words; ++w) {
        if (w) s += ' ';
        const auto len = 1 + rng.below(4);
        for (std::uint64_t k = 0; k < len; ++k) s += static_cast<char>('a' + rng.below(6));
      }
      src += s + "\n";
      tgt += std::string(s.rbegin(), s.rend()) + "\n";
    }
    const std::string train_src = dir_->file("train.src", src);
    const std::string train_tgt = dir_->file("train.tgt", tgt);
    const std::string config = dir_->file(
        "config.yaml", "data:\n  train_source: " + train_src + "\n  train_target: " + train_tgt +
                           "\nmodel:\n  kind: bahdanau\n  emb_dim: 8\n  enc_hidden: 12\n"
                           "  dec_hidden: 12\ntraining:\n  lr: 0.02\n  max_tokens: 200\n"
                           "  max_steps: 20\n  validate_every: 10\n  threads: 1\n");
    for (const char* kind : {"bahdanau", "noattn"}) {
      const CommandResult r = run_heed("train " + config + " --set output=" + dir_->path(kind) +
                                       " --set model.kind=" + kind);
      ASSERT_EQ(r.exit_code, 0) << r.output;
    }
    // A Transformer of two decoder layers of two heads: its attention is a layer's and head's.
    const std::string transformer = dir_->file(
        "transformer.yaml", "data:\n  train_source: " + train_src + "\n  train_target: " +
                                train_tgt + "\nmodel:\n  kind: transformer\n  d_model: 16\n"
                                "  heads: 2\n  ff_dim: 32\n  enc_layers: 1\n  dec_layers: 2\n"
                                "training:\n  lr: 0.01\n  max_tokens: 200\n  max_steps: 20\n"
                                "  validate_every: 10\n  threads: 1\n");
    const CommandResult r =
        run_heed("train " + transformer + " --set output=" + dir_->path("transformer"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    input_ = dir_->file("input.txt", joined(kInput));
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static std::string model() { return dir_->path("bahdanau"); }
  // The models whose attention aligns: the recurrent one, and the Transformer's as trained
  // (the last layer's heads averaged), its first layer's second head, its first layer averaged.
  static std::vector<std::string> attending() {
    const std::string t = dir_->path("transformer");
    return {model(), t, t + " --attention-layer 1 --attention-head 2",
            t + " --attention-layer 1 --attention-head 0"};
  }

  static inline const std::vector<std::string> kInput = {"abc de", "f", "", "aab bcc cdd",
                                                         "edcba"};
  static ScratchDir* dir_;
  static std::string input_;
};
ScratchDir* AlignmentCli::dir_ = nullptr;
std::string AlignmentCli::input_;

// Greedy decoding's attention and forced decoding of its own output are the same
// computation (the decoder's step, or its fused form): the hard links must agree, and the
// soft rows to rounding.
TEST_F(AlignmentCli, ForcedDecodingOfTheGreedyOutputGivesTheSameAlignment) {
 for (const std::string& m : attending()) {
  SCOPED_TRACE(m);
  const std::string base = "translate -m " + m + " --beam 1 --max-len-a 0 --max-len-b 12";
  for (const char* mode : {"hard", "soft", "0.2"}) {
    const CommandResult t = run_heed(base + " --alignment " + mode + " -i " + input_);
    ASSERT_EQ(t.exit_code, 0) << t.output;
    const auto lines = lines_of(t.output);
    ASSERT_EQ(lines.size(), kInput.size()) << t.output;
    std::vector<std::string> outputs, links;
    for (const auto& l : lines) {
      const auto [text, alignment] = split_field(l);
      ASSERT_NE(alignment, "<no field>") << l;
      outputs.push_back(text);
      links.push_back(alignment);
    }
    EXPECT_EQ(lines[2], " ||| ");  // the empty line keeps its field
    // The plain translation is the text before the field.
    const CommandResult plain = run_heed(base + " -i " + input_);
    EXPECT_EQ(lines_of(plain.output), outputs);

    const std::string hyp = dir_->file(std::string("greedy-") + mode + ".txt", joined(outputs));
    const CommandResult a = run_heed("align -m " + m + " -s " + input_ + " -t " + hyp +
                                     " --alignment " + mode);
    ASSERT_EQ(a.exit_code, 0) << a.output;
    const auto forced = lines_of(a.output);
    ASSERT_EQ(forced.size(), kInput.size()) << a.output;
    for (std::size_t i = 0; i < forced.size(); ++i) {
      if (std::string(mode) != "soft") {
        EXPECT_EQ(forced[i], links[i]) << mode << " line " << i;
        continue;
      }
      const auto f = numbers(forced[i]), g = numbers(links[i]);
      ASSERT_EQ(f.size(), g.size()) << "line " << i;
      for (std::size_t k = 0; k < f.size(); ++k) EXPECT_NEAR(f[k], g[k], 2e-4) << "line " << i;
    }
  }
 }
}

// The attention layer and head choose what aligns: the Transformer's first layer's heads give
// other links than its last layer's average (on the same output), and a layer or head the
// model lacks, or a model without layers, is refused with the range.
TEST_F(AlignmentCli, TheTransformersAttentionLayerAndHeadChooseTheLinks) {
  const std::string t = dir_->path("transformer");
  const std::string hyp = dir_->file("t-out.txt", run_heed("translate -m " + t + " -i " + input_).output);
  std::vector<std::string> soft;
  for (const char* choice : {"", " --attention-layer 1 --attention-head 1",
                             " --attention-layer 1 --attention-head 2", " --attention-layer 2"}) {
    const CommandResult a = run_heed("align -m " + t + choice + " -s " + input_ + " -t " + hyp +
                                     " --alignment soft");
    ASSERT_EQ(a.exit_code, 0) << choice << "\n" << a.output;
    soft.push_back(a.output);
  }
  EXPECT_EQ(soft[0], soft[3]);  // as trained: the last layer (2), heads averaged
  EXPECT_NE(soft[0], soft[1]);
  EXPECT_NE(soft[1], soft[2]);
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"align -m " + t + " --attention-layer 3 -s " + input_ + " -t " + hyp,
       "--attention-layer 3: " + t + "'s decoder has 2 layers (1 to 2, or 0 for the last)"},
      {"translate -m " + t + " --attention-head 3 -i " + input_,
       "--attention-head 3: " + t + "'s attention has 2 heads (1 to 2, or 0 for the heads averaged)"},
      {"translate -m " + model() + " --attention-layer 1 -i " + input_,
       "holds a bahdanau model, which has one attention; only a Transformer"},
  };
  for (const auto& [args, words] : refused) {
    const CommandResult r = run_heed(args);
    EXPECT_EQ(r.exit_code, 1) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(words), std::string::npos) << args << "\n" << r.output;
  }
}

TEST_F(AlignmentCli, HardLinksStayInsideTheSentenceAndScoreZeroAgainstThemselves) {
 for (const std::string& m : attending()) {
  SCOPED_TRACE(m);
  const CommandResult t =
      run_heed("translate -m " + m + " --beam 3 --alignment hard -i " + input_);
  ASSERT_EQ(t.exit_code, 0) << t.output;
  std::vector<std::string> links;
  for (const auto& l : lines_of(t.output)) links.push_back(split_field(l).second);
  for (std::size_t i = 0; i < links.size(); ++i) {
    std::istringstream in(links[i]);
    for (std::string link; in >> link;) {
      const auto dash = link.find('-');
      ASSERT_NE(dash, std::string::npos) << link;
      EXPECT_LT(std::stoul(link.substr(0, dash)), kInput[i].size()) << link;  // source chars
    }
  }
  const std::string hyp = dir_->file("links.txt", joined(links));
  const CommandResult s = run_heed("score -m aer -r " + hyp + " --hyp " + hyp + " -b");
  ASSERT_EQ(s.exit_code, 0) << s.output;
  EXPECT_EQ(s.output, "0.00\n");
  // The same links read as 1-based gold are off by one everywhere.
  const CommandResult off = run_heed("score -m aer -r " + hyp + " --ref-one-based --hyp " + hyp);
  if (links[0].find("0-") == std::string::npos) continue;  // only a 0 position is refused
  EXPECT_EQ(off.exit_code, 1) << off.output;
  EXPECT_NE(off.output.find("bad alignment link '0-"), std::string::npos) << off.output;
 }
}

TEST_F(AlignmentCli, WordsMergeCharacterLinksAndNbestLinesCarryTheirOwn) {
  const CommandResult w = run_heed("translate -m " + model() +
                                   " --alignment hard --alignment-words -i " + input_);
  ASSERT_EQ(w.exit_code, 0) << w.output;
  const auto lines = lines_of(w.output);
  ASSERT_EQ(lines.size(), kInput.size());
  // "f" is one word: every link is 0-j, j a word of the output.
  const auto [text, links] = split_field(lines[1]);
  std::istringstream in(links);
  for (std::string link; in >> link;) EXPECT_EQ(link.rfind("0-", 0), 0u) << lines[1];

  const CommandResult n =
      run_heed("translate -m " + model() + " --beam 3 --nbest 2 --alignment hard -i " + input_);
  ASSERT_EQ(n.exit_code, 0) << n.output;
  const auto nbest = lines_of(n.output);
  ASSERT_EQ(nbest.size(), 2 * kInput.size() - 1);  // the empty line gives one
  for (const auto& l : nbest) {
    std::size_t fields = 1;
    for (std::size_t at = l.find(" ||| "); at != std::string::npos; at = l.find(" ||| ", at + 1))
      ++fields;
    EXPECT_EQ(fields, 4u) << l;  // index ||| text ||| score ||| alignment
  }
}

TEST_F(AlignmentCli, BadRequestsAreClearErrors) {
  struct Case {
    std::string args;
    int code;
    std::string words;
  };
  const std::string one = dir_->file("one.txt", "abc\n");
  const std::vector<Case> cases = {
      {"translate -m " + model() + " --alignment 2 -i " + input_, 2,
       "expected hard, soft or a threshold in (0, 1], got '2'"},
      {"translate -m " + model() + " --alignment-words -i " + input_, 2,
       "--alignment-words needs --alignment"},
      {"translate -m " + dir_->path("noattn") + " --alignment hard -i " + input_, 1,
       "needs a model with attention"},
      {"align -m " + dir_->path("noattn") + " -s " + input_ + " -t " + input_, 1,
       "alignment needs a model with attention"},
      {"align -m " + model() + " -s " + input_ + " -t " + one, 1, "lines"},
      {"align -m " + model() + " -s " + input_, 2, "--target is required"},
      {"align -m " + model() + " -s " + input_ + " -t " + input_ + " --alignment hardly", 2,
       "expected hard, soft or a threshold"},
      {"score -m aer -r " + one + " --hyp " + one, 1, "one.txt:1: bad alignment link 'abc'"},
  };
  for (const auto& c : cases) {
    const CommandResult r = run_heed(c.args);
    EXPECT_EQ(r.exit_code, c.code) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.words), std::string::npos) << c.args << "\n" << r.output;
  }
}

TEST_F(AlignmentCli, AlignWritesAttentionRecordsAndAnOutputFile) {
  const std::string out = dir_->path("forced.txt"), att = dir_->path("forced.jsonl");
  const CommandResult a = run_heed("align -m " + model() + " -s " + input_ + " -t " + input_ +
                                   " -o " + out + " -a " + att);
  ASSERT_EQ(a.exit_code, 0) << a.output;
  EXPECT_EQ(a.output, "");
  const CommandResult p = run_heed("plot --attention " + att + " --out " + dir_->path("plots"));
  EXPECT_EQ(p.exit_code, 0) << p.output;
  // One record per non-empty pair, each |target + EOS| x |source + EOS|.
  std::ifstream in(att);
  std::size_t records = 0;
  for (std::string l; std::getline(in, l);) ++records;
  EXPECT_EQ(records, kInput.size() - 1);
}

// Saliency (the gradient of each target token's log-probability with respect to each source
// embedding) aligns without attention too, and goes into the attention records.
TEST_F(AlignmentCli, SaliencyAlignsAndIsWrittenBesideTheAttention) {
  const std::string target = dir_->file("reversed.txt", "ed cba\nf\n\nddc ccb baa\nabcde\n");
  for (const char* kind : {"bahdanau", "noattn", "transformer"}) {
    const CommandResult a = run_heed("align -m " + dir_->path(kind) + " -s " + input_ + " -t " +
                                     target + " --from saliency");
    ASSERT_EQ(a.exit_code, 0) << kind << "\n" << a.output;
    const auto lines = lines_of(a.output);
    ASSERT_EQ(lines.size(), kInput.size());
    EXPECT_EQ(lines[2], "");
    std::size_t links = 0;  // a row may favour the source EOS (no link), not all of them
    for (std::size_t i = 0; i < lines.size(); ++i) {
      std::istringstream in(lines[i]);
      for (std::string link; in >> link; ++links)
        EXPECT_LT(std::stoul(link.substr(0, link.find('-'))), kInput[i].size()) << link;
    }
    EXPECT_GT(links, 5u) << kind;
  }
  const std::string att = dir_->path("saliency.jsonl");
  const CommandResult s = run_heed("align -m " + model() + " -s " + input_ + " -t " + target +
                                   " --saliency -a " + att);
  ASSERT_EQ(s.exit_code, 0) << s.output;
  std::ifstream in(att);
  std::string first;
  std::getline(in, first);
  EXPECT_NE(first.find("\"saliency\":[["), std::string::npos) << first;
  EXPECT_NE(first.find("\"grad_x_input\":[["), std::string::npos) << first;
  // An ensemble has no single source embedding.
  const CommandResult e = run_heed("align -m " + model() + " -m " + model() + " -s " + input_ +
                                   " -t " + target + " --from saliency");
  EXPECT_EQ(e.exit_code, 1) << e.output;
  EXPECT_NE(e.output.find("saliency needs a single model"), std::string::npos) << e.output;
  const CommandResult n = run_heed("align -m " + dir_->path("noattn") + " -s " + input_ + " -t " +
                                   target + " --from saliency -a " + att);
  EXPECT_EQ(n.exit_code, 1) << n.output;
  EXPECT_NE(n.output.find("--attention needs a model with attention"), std::string::npos);
}

}  // namespace
}  // namespace heed
