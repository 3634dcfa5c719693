// End-to-end tests of `heed translate`: tiny models are trained by `heed train` once per
// suite (a fraction of a second each), then translated through the heed binary.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"
#include "heed/base/random.h"
#include "heed/viz/attention_record.h"

namespace heed {
namespace {

using testing::CommandResult;
using testing::run_heed;
using testing::ScratchDir;

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) (s += l) += '\n';
  return s;
}

class TranslateCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new ScratchDir("heed_cli_translate");
    Rng rng(11);
    const auto [src, tgt] = testing::reversal_lines(rng, 300, 3, 6, 8);
    dir_->file("train.src", src);
    dir_->file("train.tgt", tgt);
    config_ = dir_->file("config.yaml",
                         "data:\n"
                         "  train_source: " + dir_->path("train.src") + "\n"
                         "  train_target: " + dir_->path("train.tgt") + "\n"
                         "model:\n"
                         "  kind: bahdanau\n"
                         "  emb_dim: 8\n"
                         "  enc_hidden: 12\n"
                         "  dec_hidden: 12\n"
                         "training:\n"
                         "  lr: 0.02\n"
                         "  max_tokens: 200\n"
                         "  max_steps: 20\n"
                         "  validate_every: 10\n"
                         "  keep_checkpoints: 2\n"
                         "  threads: 1\n"
                         "output: " + dir_->path("model") + "\n");
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  // Trains model NAME with extra `--set` overrides (once per suite).
  static std::string model(const std::string& name, const std::string& sets = "") {
    const std::string out = dir_->path(name);
    if (!std::filesystem::exists(out + "/best.safetensors")) {
      const CommandResult r = run_heed("train " + config_ + " --set output=" + out + " " + sets);
      EXPECT_EQ(r.exit_code, 0) << r.output;
    }
    return out;
  }
  static std::string input(const std::vector<std::string>& lines) {
    static int n = 0;
    return dir_->file("input" + std::to_string(n++) + ".txt", join_lines(lines));
  }
  static ScratchDir* dir_;
  static std::string config_;
};
ScratchDir* TranslateCli::dir_ = nullptr;
std::string TranslateCli::config_;

const std::vector<std::string> kLines = {"abc", "hgfedcba", "", "aabbcc", "h", "defg", "bad"};
// A fixed output limit, so that a sentence's result does not depend on its batch mates.
const std::string kFixedLimit = " --max-len-a 0 --max-len-b 14";

TEST_F(TranslateCli, OneLinePerInputInInputOrder) {
  const std::string m = model("model");
  const CommandResult all = run_heed("translate -m " + m + kFixedLimit + " < " + input(kLines));
  ASSERT_EQ(all.exit_code, 0) << all.output;
  const auto out = split_lines(all.output);
  ASSERT_EQ(out.size(), kLines.size()) << all.output;
  EXPECT_EQ(out[2], "");  // the empty line
  // Each sentence alone (batch size 1) gives the same line; so does the reversed input.
  const CommandResult one =
      run_heed("translate -m " + m + kFixedLimit + " --batch-size 1 --input " + input(kLines));
  EXPECT_EQ(one.output, all.output);
  // Batches decoded in parallel give the same output.
  const CommandResult par = run_heed("translate -m " + m + kFixedLimit +
                                     " --batch-size 2 --threads 3 < " + input(kLines));
  EXPECT_EQ(par.output, all.output);
  std::vector<std::string> rev(kLines.rbegin(), kLines.rend());
  const CommandResult r = run_heed("translate -m " + m + kFixedLimit + " < " + input(rev));
  auto rev_out = split_lines(r.output);
  std::reverse(rev_out.begin(), rev_out.end());
  EXPECT_EQ(rev_out, out);
  // Greedy decoding too.
  const CommandResult g = run_heed("translate -m " + m + " --beam 1 < " + input(kLines));
  ASSERT_EQ(g.exit_code, 0) << g.output;
  EXPECT_EQ(split_lines(g.output).size(), kLines.size());
}

TEST_F(TranslateCli, OutputFileIsWrittenInsteadOfStdout) {
  const std::string m = model("model");
  const std::string out = dir_->path("out.txt");
  const CommandResult r = run_heed("translate -m " + m + " -i " + input(kLines) + " -o " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "");
  const CommandResult s = run_heed("translate -m " + m + " -i " + input(kLines));
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), s.output);
  // A FIFO (like /dev/null or /dev/stdout) is written to, not replaced by a plain file.
  const std::string fifo = dir_->path("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const CommandResult piped = run_heed("translate -m " + m + " -i " + input(kLines) + " -o " +
                                       fifo + " & timeout 20 cat " + fifo + "; wait $!");
  EXPECT_EQ(piped.exit_code, 0) << piped.output;
  EXPECT_EQ(piped.output, s.output);
  EXPECT_TRUE(std::filesystem::is_fifo(fifo));
}

TEST_F(TranslateCli, NBestLinesInMosesFormat) {
  const std::string m = model("model");
  const CommandResult best = run_heed("translate -m " + m + " --beam 4 < " + input(kLines));
  const CommandResult r = run_heed("translate -m " + m + " --beam 4 --nbest 3 < " + input(kLines));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto lines = split_lines(r.output);
  const auto best_lines = split_lines(best.output);
  const std::regex format(R"(^(\d+) \|\|\| (.*) \|\|\| (-?\d+\.\d{6})$)");
  std::vector<int> per_input(kLines.size(), 0);
  double previous = 0;
  long previous_index = -1;
  for (const auto& l : lines) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(l, m, format)) << l;
    const long index = std::stol(m[1]);
    const double score = std::stod(m[3]);
    ASSERT_LT(static_cast<std::size_t>(index), kLines.size());
    ASSERT_GE(index, previous_index);  // grouped by input, in order
    if (index == previous_index) {
      EXPECT_LE(score, previous);  // best first
    }
    if (per_input[static_cast<std::size_t>(index)]++ == 0) {
      EXPECT_EQ(m[2].str(), best_lines[static_cast<std::size_t>(index)]);  // first = 1-best
    }
    previous = score;
    previous_index = index;
  }
  for (std::size_t i = 0; i < kLines.size(); ++i)
    EXPECT_EQ(per_input[i], kLines[i].empty() ? 1 : 3) << i;
  EXPECT_NE(r.output.find("2 |||  ||| 0.000000"), std::string::npos);
}

TEST_F(TranslateCli, AttentionJsonMatchesTheTokens) {
  const std::string m = model("model");
  const std::string json = dir_->path("attention.json");
  const CommandResult r =
      run_heed("translate -m " + m + " --attention " + json + " < " + input(kLines));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto out = split_lines(r.output);
  const auto records = viz::read_attention_file(json);
  ASSERT_EQ(records.size(), kLines.size() - 1);  // not the empty line
  std::size_t k = 0;
  for (std::size_t i = 0; i < kLines.size(); ++i) {
    if (kLines[i].empty()) continue;
    const auto& rec = records.at(k++);
    EXPECT_EQ(rec.index, static_cast<std::int64_t>(i));
    ASSERT_EQ(rec.source.size(), kLines[i].size() + 1);  // characters + </s>
    for (std::size_t j = 0; j < kLines[i].size(); ++j) EXPECT_EQ(rec.source[j], kLines[i].substr(j, 1));
    EXPECT_EQ(rec.source.back(), "</s>");
    ASSERT_EQ(rec.alpha.size(), rec.output.size() * rec.source.size());
    std::string text;
    for (const auto& t : rec.output)
      if (t != "</s>") text += t;
    EXPECT_EQ(text, out[i]);
    for (std::size_t t = 0; t < rec.output.size(); ++t) {
      double sum = 0;
      for (std::size_t j = 0; j < rec.source.size(); ++j) sum += rec.at(t, j);
      EXPECT_NEAR(sum, 1.0, 1e-4);
    }
    EXPECT_TRUE(rec.score.has_value());
  }
  // heed plot draws it.
  const CommandResult p = run_heed("plot --attention " + json + " --out " + dir_->path("plots"));
  EXPECT_EQ(p.exit_code, 0) << p.output;
}

TEST_F(TranslateCli, EnsembleOfTheSameModelTwiceEqualsTheModel) {
  const std::string m = model("model");
  const std::string in = input(kLines);
  for (const char* beam : {"1", "5"}) {
    const CommandResult one = run_heed("translate -m " + m + " --beam " + beam + " < " + in);
    const CommandResult two =
        run_heed("translate -m " + m + " -m " + m + " --beam " + beam + " < " + in);
    ASSERT_EQ(two.exit_code, 0) << two.output;
    EXPECT_EQ(two.output, one.output) << "beam " << beam;
  }
  // An ensemble of different architectures with the same vocabularies works.
  const std::string luong = model("luong", "--set model.kind=luong --set model.score=general");
  const CommandResult mixed = run_heed("translate -m " + m + " -m " + luong + " < " + in);
  ASSERT_EQ(mixed.exit_code, 0) << mixed.output;
  EXPECT_EQ(split_lines(mixed.output).size(), kLines.size());
}

TEST_F(TranslateCli, WeightsAndCheckpointSelectTheWeights) {
  const std::string m = model("model");
  const std::string in = input(kLines);
  const CommandResult last = run_heed("translate -m " + m + " --checkpoint last < " + in);
  const CommandResult w =
      run_heed("translate -m " + m + " --weights " + m + "/last.safetensors < " + in);
  ASSERT_EQ(w.exit_code, 0) << w.output;
  EXPECT_EQ(w.output, last.output);
  // Several weights files with one directory: an ensemble of checkpoints.
  const CommandResult e = run_heed("translate -m " + m + " -w " + m + "/last.safetensors -w " + m +
                                   "/checkpoints/step_10.safetensors < " + in);
  ASSERT_EQ(e.exit_code, 0) << e.output;
  EXPECT_EQ(split_lines(e.output).size(), kLines.size());
  const CommandResult both = run_heed("translate -m " + m + " -c last -w " + m +
                                      "/last.safetensors < " + in);
  EXPECT_EQ(both.exit_code, 2) << both.output;
}

// Location-aware attention and coverage (docs/MODELS.md#location-aware-attention, #coverage):
// trained with the coverage loss, whose dev value each validation logs; heed info names them;
// --attention-window keeps each step after the first within L,R of the previous median.
TEST_F(TranslateCli, LocationFeaturesCoverageAndWindowedDecoding) {
  const std::string m = dir_->path("features");
  const CommandResult t = run_heed(
      "train " + config_ + " --set output=" + m + " --set model.location_filters=3" +
      " --set model.location_width=3 --set model.coverage=true --set training.coverage_loss=1" +
      " --set data.dev_source=" + dir_->path("train.src") +
      " --set data.dev_target=" + dir_->path("train.tgt") + " --set data.max_dev_sentences=20");
  ASSERT_EQ(t.exit_code, 0) << t.output;
  EXPECT_NE(t.output.find(", coverage "), std::string::npos) << t.output;
  const CommandResult info = run_heed("info --model " + m);
  ASSERT_EQ(info.exit_code, 0) << info.output;
  EXPECT_NE(info.output.find("location-aware attention (3 filters of width 3), coverage"),
            std::string::npos)
      << info.output;

  const std::string in = input(kLines);
  const CommandResult plain = run_heed("translate -m " + m + kFixedLimit + " < " + in);
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  const CommandResult wide =
      run_heed("translate -m " + m + kFixedLimit + " --attention-window 100,100 < " + in);
  EXPECT_EQ(wide.output, plain.output);  // wider than every sentence: nothing changes
  const std::string json = dir_->path("windowed.json");
  const CommandResult w = run_heed("translate -m " + m + kFixedLimit +
                                   " --attention-window 0,1 --attention " + json + " < " + in);
  ASSERT_EQ(w.exit_code, 0) << w.output;
  for (const auto& rec : viz::read_attention_file(json))
    for (std::size_t t = 1; t < rec.output.size(); ++t) {
      int nonzero = 0;
      for (std::size_t j = 0; j < rec.source.size(); ++j) nonzero += rec.at(t, j) != 0.0;
      EXPECT_LE(nonzero, 2) << "sentence " << rec.index << " step " << t;
    }
  EXPECT_EQ(run_heed("translate -m " + m + " --attention-window 2 < " + in).exit_code, 2);
}

TEST_F(TranslateCli, Errors) {
  const std::string m = model("model");
  const std::string in = input(kLines);
  const CommandResult missing = run_heed("translate -m " + dir_->path("nope") + " < " + in);
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.output.find("no such model directory"), std::string::npos) << missing.output;
  EXPECT_EQ(run_heed("translate -m " + m + " --bogus < " + in).exit_code, 2);
  EXPECT_EQ(run_heed("translate < " + in).exit_code, 2);  // --model is required
  EXPECT_EQ(run_heed("translate -m " + m + " --norm cubic < " + in).exit_code, 2);

  const CommandResult nbest = run_heed("translate -m " + m + " --beam 2 --nbest 3 < " + in);
  EXPECT_EQ(nbest.exit_code, 2);  // a usage error
  EXPECT_NE(nbest.output.find("--nbest 3 is larger than --beam 2"), std::string::npos)
      << nbest.output;

  const std::string small = model("small", "--set data.target.vocab_max_size=8");
  const CommandResult vocab = run_heed("translate -m " + m + " -m " + small + " < " + in);
  EXPECT_EQ(vocab.exit_code, 1);
  EXPECT_NE(vocab.output.find("target vocabularies differ"), std::string::npos) << vocab.output;

  const std::string lower = model("lower", "--set data.source.lowercase=true");
  const CommandResult tok = run_heed("translate -m " + m + " -m " + lower + " < " + in);
  EXPECT_EQ(tok.exit_code, 1);
  EXPECT_NE(tok.output.find("source tokenisers differ"), std::string::npos) << tok.output;

  const std::string loc = model("location", "--set model.kind=luong --set model.score=location "
                                            "--set model.max_src_len=8 --set data.source.max_length=8");
  const CommandResult too_long = run_heed("translate -m " + loc + " --strict < " + in);
  EXPECT_EQ(too_long.exit_code, 1);
  EXPECT_NE(too_long.output.find("input line 2 has 9 tokens, more than the model's maximum source "
                                 "length 8"),
            std::string::npos)
      << too_long.output;
  // Without --strict the line is skipped with a warning and an empty output line.
  const std::string out_file = dir_->path("skipped.txt");
  const CommandResult warned = run_heed("translate -m " + loc + " -o " + out_file + " < " + in);
  EXPECT_EQ(warned.exit_code, 0) << warned.output;
  EXPECT_NE(warned.output.find("warning: skipped 1 of 7 input lines longer than 8 tokens (the "
                               "model's maximum source length): line 2"),
            std::string::npos)
      << warned.output;
  std::ifstream f(out_file);
  std::vector<std::string> out;
  for (std::string l; std::getline(f, l);) out.push_back(l);
  ASSERT_EQ(out.size(), kLines.size());
  EXPECT_EQ(out[1], "");

  const std::string noattn = model("noattn", "--set model.kind=noattn");
  const CommandResult att =
      run_heed("translate -m " + noattn + " --attention " + dir_->path("x.json") + " < " + in);
  EXPECT_EQ(att.exit_code, 1);
  EXPECT_NE(att.output.find("needs a model with attention"), std::string::npos) << att.output;
  // Without attention output it translates.
  EXPECT_EQ(run_heed("translate -m " + noattn + " < " + in).exit_code, 0);
}

TEST_F(TranslateCli, EmptyInput) {
  const std::string m = model("model");
  const CommandResult r = run_heed("translate -m " + m + " < /dev/null");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "");
}

}  // namespace
}  // namespace heed
