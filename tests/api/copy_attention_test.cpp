// Copy attention learns to copy (model.copy; docs/MODELS.md#copy-attention): a tiny Bahdanau
// model trained through heed::Trainer on "my name is X" -> "hello X", where every name X is
// made up and (seen once at most) absent from both vocabularies, outputs names it has never
// seen, copied from the source, through greedy and beam search; heed::Translator says which
// word was copied and gives p_gen per token. The same model without copy outputs <unk>.
#include <heed/trainer.h>
#include <heed/translator.h>

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"

namespace heed {
namespace {

using testing::ScratchDir;

// A made-up name of 2-3 syllables: practically never the same twice.
std::string made_up_name(Rng& rng) {
  static const std::string consonants = "bcdfghklmnprstvz", vowels = "aeiou";
  std::string s;
  const std::uint64_t syllables = 2 + rng.below(2);
  for (std::uint64_t i = 0; i < syllables; ++i) {
    s += consonants[rng.below(consonants.size())];
    s += vowels[rng.below(vowels.size())];
  }
  return s;
}

// Four phrasings of a name, each answered by "hello <name>".
std::string phrase(Rng& rng, const std::string& name) {
  switch (rng.below(4)) {
    case 0: return "my name is " + name;
    case 1: return "call me " + name;
    case 2: return name + " is my name";
    default: return "i am " + name + " , hi";
  }
}

// The tiny recurrent model's sizes, or the Transformer's.
const std::string kBahdanau = "  kind: bahdanau\n  emb_dim: 16\n  enc_hidden: 24\n  dec_hidden: 24\n";
const std::string kTransformer =
    "  kind: transformer\n  d_model: 32\n  heads: 2\n  ff_dim: 64\n  enc_layers: 1\n"
    "  dec_layers: 1\n";

std::string config(const ScratchDir& dir, bool copy, const std::string& output = "",
                   const std::string& model_extra = "", const std::string& training_extra = "",
                   const std::string& model = kBahdanau) {
  Rng rng(3);
  for (const char* split : {"train", "dev"}) {
    std::ofstream src(dir.path(std::string(split) + ".src")), tgt(dir.path(std::string(split) + ".tgt"));
    for (int i = 0; i < (std::string(split) == "train" ? 600 : 40); ++i) {
      const std::string name = made_up_name(rng);
      src << phrase(rng, name) << "\n";
      tgt << "hello " << name << "\n";
    }
  }
  return "data:\n"
         "  train_source: " + dir.path("train.src") + "\n"
         "  train_target: " + dir.path("train.tgt") + "\n"
         "  dev_source: " + dir.path("dev.src") + "\n"
         "  dev_target: " + dir.path("dev.tgt") + "\n"
         "  source: {tokenizer: whitespace, vocab_min_freq: 2}\n"
         "  target: {tokenizer: whitespace, vocab_min_freq: 2}\n"
         "model:\n" + model +
         "  copy: " + (copy ? "true" : "false") + "\n" + model_extra +
         "training:\n"
         "  lr: 0.01\n"
         "  max_tokens: 400\n"
         "  max_steps: 80\n"
         "  validate_every: 40\n"
         "  metric: wer\n" + training_extra +
         "output: " + dir.path(!output.empty() ? output : copy ? "copy" : "plain") + "\n";
}

// Names none of the training data holds, in the four phrasings.
const std::vector<std::string> kInputs = {"my name is zuxaqor", "call me wobbleking",
                                          "quentaril is my name", "i am jorvex , hi"};
const std::vector<std::string> kNames = {"zuxaqor", "wobbleking", "quentaril", "jorvex"};

// The trained copy model in dir/copy outputs every unseen name, copied, greedy and beam.
void expect_copies(const ScratchDir& dir) {
  const Translator t = Translator::load(dir.path("copy"));
  for (int beam : {1, 4}) {
    Translator::Options o;
    o.beam = beam;
    o.n_best = beam == 1 ? 1 : 2;
    const std::vector<Translator::Result> out = t.translate(kInputs, o);
    for (std::size_t i = 0; i < kInputs.size(); ++i) {
      ASSERT_EQ(out[i].nbest.size(), static_cast<std::size_t>(o.n_best));
      const Translator::Hypothesis& h = out[i].nbest.front();
      EXPECT_EQ(h.text, "hello " + kNames[i]) << kInputs[i] << ", beam " << beam;
      ASSERT_EQ(h.tokens, (std::vector<std::string>{"hello", kNames[i], "</s>"}));
      EXPECT_EQ(h.copied, (std::vector<bool>{false, true, false}));
      ASSERT_EQ(h.p_gen.size(), 3u);
      // "hello" is generated, the name copied.
      EXPECT_GT(h.p_gen[0], 0.5f) << kInputs[i];
      EXPECT_LT(h.p_gen[1], 0.5f) << kInputs[i];
    }
  }
}

TEST(CopyAttention, AnUnknownSourceWordComesOutCopied) {
  ScratchDir dir("heed_copy");
  const Trainer::Result trained = Trainer::from_yaml(config(dir, true)).train();
  EXPECT_EQ(trained.best_score, 0.0);  // dev WER: every made-up dev name copied
  expect_copies(dir);
}

// The Transformer copies through its attention output (the last layer's encoder-decoder
// weights, the heads averaged), trained on the whole target at once.
TEST(CopyAttention, TheTransformerCopiesToo) {
  ScratchDir dir("heed_copy_transformer");
  const Trainer::Result trained =
      Trainer::from_yaml(config(dir, true, "", "", "", kTransformer)).train();
  EXPECT_EQ(trained.best_score, 0.0);
  expect_copies(dir);
}

TEST(CopyAttention, WithoutCopyTheSameModelCannotSayTheName) {
  ScratchDir dir("heed_copy");
  Trainer::from_yaml(config(dir, false)).train();
  const Translator t = Translator::load(dir.path("plain"));
  Translator::Options o;
  o.beam = 1;
  const Translator::Hypothesis h = t.translate(kInputs[0], o).nbest.front();
  EXPECT_EQ(h.text, "hello <unk>");
  EXPECT_TRUE(h.p_gen.empty());
  EXPECT_TRUE(h.copied.empty());
}

// The dev coverage losses of a run's validations (history.jsonl's dev_coverage_loss).
std::vector<double> dev_coverage_losses(const std::string& model_dir) {
  std::ifstream in(model_dir + "/history.jsonl");
  std::vector<double> out;
  std::string line;
  const std::string key = "\"dev_coverage_loss\":";
  while (std::getline(in, line))
    if (const auto at = line.find(key); at != std::string::npos)
      out.push_back(std::stod(line.substr(at + key.size())));
  return out;
}

// See et al.'s whole model: copy attention with coverage in the score and the coverage loss in
// training (the copy step records the weights the loss reads: without them the loss refuses
// to run). It still copies every unseen name, and the dev coverage loss falls.
TEST(CopyAttention, WithCoverageAndItsLoss) {
  ScratchDir dir("heed_copy_coverage");
  const Trainer::Result trained = Trainer::from_yaml(
      config(dir, true, "both", "  coverage: true\n", "  coverage_loss: 1.0\n")).train();
  EXPECT_EQ(trained.best_score, 0.0);
  const std::vector<double> losses = dev_coverage_losses(dir.path("both"));
  ASSERT_EQ(losses.size(), 2u);
  EXPECT_LT(losses.back(), losses.front()) << "the dev coverage loss did not fall";
  const Translator t = Translator::load(dir.path("both"));
  for (std::size_t i = 0; i < kInputs.size(); ++i)
    EXPECT_EQ(t.translate(kInputs[i], {}).nbest.front().text, "hello " + kNames[i]);
}

}  // namespace
}  // namespace heed
