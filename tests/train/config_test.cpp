// TrainConfig parsing: defaults, overrides, and the message of every kind of mistake.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "heed/base/error.h"
#include "heed/train/config.h"

namespace heed {
namespace {

const std::string kMinimal =
    "data:\n"
    "  train_source: a.src\n"
    "  train_target: a.tgt\n"
    "output: out\n";

// The message of the heed::Error that parsing throws ("" if none).
std::string error_of(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  try {
    parse_train_config(yaml, "cfg.yaml", sets);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(TrainConfig, EveryExampleConfigIsValid) {
  // The recipes' configs parse and pass every check (their data paths need not exist here).
  namespace fs = std::filesystem;
  int seen = 0;
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(HEED_SOURCE_DIR) / "examples")) {
    if (entry.path().extension() != ".yaml") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_EQ(error_of(text.str()), "") << entry.path();
    ++seen;
  }
  EXPECT_GE(seen, 3);
}

TEST(TrainConfig, MinimalConfigGetsDefaults) {
  const TrainConfig c = parse_train_config(kMinimal, "cfg.yaml");
  EXPECT_EQ(c.data.train_source, "a.src");
  EXPECT_EQ(c.output, "out");
  EXPECT_EQ(c.data.source.tokenizer, "char");
  EXPECT_EQ(c.model.kind, "bahdanau");
  EXPECT_EQ(c.training.optimizer, "adam");
  EXPECT_DOUBLE_EQ(c.training.lr, 1e-3);
  EXPECT_EQ(c.training.schedule, "constant");
  EXPECT_EQ(c.training.max_tokens, 4096);
  EXPECT_EQ(c.training.metric, "loss");
  EXPECT_EQ(c.training.dtype, "f32");
  EXPECT_EQ(c.training.precision, "fp32");
}

TEST(TrainConfig, ReadsEverySection) {
  const TrainConfig c = parse_train_config(kMinimal +
                                               "model:\n  kind: luong\n  score: general\n"
                                               "  dropout: 0.3\n  bidirectional: false\n"
                                               "training:\n  lr: 5e-4\n  schedule: warmup\n"
                                               "  max_steps: 100\n  metric: bleu\n",
                                           "cfg.yaml");
  EXPECT_EQ(c.model.kind, "luong");
  EXPECT_EQ(c.model.score, "general");
  EXPECT_DOUBLE_EQ(c.model.dropout, 0.3);
  EXPECT_FALSE(c.model.bidirectional);
  EXPECT_DOUBLE_EQ(c.training.lr, 5e-4);
  EXPECT_EQ(c.training.schedule, "warmup");
  EXPECT_EQ(c.training.max_steps, 100);
  EXPECT_TRUE(metric_higher_is_better(c.training.metric));
}

TEST(TrainConfig, SetOverridesAndCreatesSections) {
  const TrainConfig c = parse_train_config(
      kMinimal, "cfg.yaml",
      {"training.lr=0.0005", "model.emb_dim=64", "data.source.tokenizer=whitespace", "output=x"});
  EXPECT_DOUBLE_EQ(c.training.lr, 0.0005);
  EXPECT_EQ(c.model.emb_dim, 64);
  EXPECT_EQ(c.data.source.tokenizer, "whitespace");
  EXPECT_EQ(c.output, "x");
}

TEST(TrainConfig, RoundTripsThroughYaml) {
  TrainConfig c = parse_train_config(kMinimal, "cfg.yaml",
                                     {"training.lr=0.00123456789", "data.dev_source=d.src",
                                      "data.dev_target=d.tgt", "model.encoder_cell=lstm"});
  c.model.src_vocab = 40;
  const TrainConfig d = parse_train_config(to_yaml(c), "saved.yaml");
  EXPECT_EQ(to_yaml(d), to_yaml(c));
  EXPECT_DOUBLE_EQ(d.training.lr, 0.00123456789);
  EXPECT_EQ(d.model.src_vocab, 40);
  EXPECT_EQ(d.model.encoder_cell, "lstm");
  EXPECT_EQ(d.data.source.spm_model, "");
}

TEST(TrainConfigErrors, UnknownKeyNamesKeyLineAndSuggestion) {
  EXPECT_EQ(error_of(kMinimal + "training:\n  lrr: 0.1\n"),
            "cfg.yaml:6: unknown key 'training.lrr' (did you mean 'training.lr'?)");
  EXPECT_EQ(error_of(kMinimal + "colour: red\n"), "cfg.yaml:5: unknown key 'colour'");
  EXPECT_EQ(error_of(kMinimal, {"training.bogus=1"}), "--set: unknown key 'training.bogus'");
}

TEST(TrainConfigErrors, WrongTypes) {
  EXPECT_EQ(error_of(kMinimal + "training:\n  lr: fast\n"),
            "cfg.yaml:6: training.lr: expected a number, got 'fast'");
  EXPECT_EQ(error_of(kMinimal + "training:\n  max_steps: 1.5\n"),
            "cfg.yaml:6: training.max_steps: expected an integer, got '1.5'");
  EXPECT_EQ(error_of(kMinimal + "model:\n  bidirectional: maybe\n"),
            "cfg.yaml:6: model.bidirectional: expected true or false, got 'maybe'");
  EXPECT_EQ(error_of(kMinimal + "training:\n  lr: [1, 2]\n"),
            "cfg.yaml:6: training.lr: expected a single value, got a list");
  EXPECT_EQ(error_of(kMinimal + "training: 3\n"),
            "cfg.yaml:5: training: expected a mapping of keys to values, got '3'");
  EXPECT_EQ(error_of(kMinimal, {"training.lr=abc"}),
            "--set: training.lr: expected a number, got 'abc'");
}

TEST(TrainConfigErrors, Choices) {
  EXPECT_EQ(error_of(kMinimal + "training:\n  optimizer: rmsprop\n"),
            "cfg.yaml:6: training.optimizer: expected one of adam | adamw | sgd, got 'rmsprop'");
  EXPECT_EQ(error_of(kMinimal + "model:\n  kind: transformer\n"),
            "cfg.yaml:6: model.kind: expected one of bahdanau | luong | noattn, got 'transformer'");
  EXPECT_NE(error_of(kMinimal, {"training.schedule=cosine"}).find("constant | plateau | warmup"),
            std::string::npos);
  EXPECT_NE(error_of(kMinimal, {"training.metric=chrf"}).find("loss | bleu | wer | g2p"),
            std::string::npos);
  EXPECT_NE(error_of(kMinimal, {"data.target.tokenizer=bpe"})
                .find("data.target.tokenizer: expected one of char | whitespace | sentencepiece"),
            std::string::npos);
  EXPECT_NE(error_of(kMinimal, {"training.precision=fp16"}).find("fp32 | bf16"), std::string::npos);
  EXPECT_NE(error_of(kMinimal, {"training.precision=bf16", "training.dtype=f64"})
                .find("bf16 products need dtype f32"),
            std::string::npos);
  EXPECT_EQ(error_of(kMinimal, {"training.precision=bf16"}), "");
}

TEST(TrainConfigErrors, RequiredKeysAndRanges) {
  EXPECT_EQ(error_of("output: out\n"), "cfg.yaml: data.train_source: required: the training source file");
  EXPECT_EQ(error_of("data:\n  train_source: a\n  train_target: b\n"),
            "cfg.yaml: output: required: the model directory to write");
  EXPECT_EQ(error_of(kMinimal + "training:\n  lr: -1\n"), "cfg.yaml:6: training.lr: must be positive");
  EXPECT_EQ(error_of(kMinimal + "model:\n  dropout: 1.5\n"),
            "cfg.yaml:6: model.dropout: must be in [0, 1)");
  EXPECT_NE(error_of(kMinimal, {"data.dev_source=d.src"}).find("dev_source and dev_target go together"),
            std::string::npos);
  EXPECT_NE(error_of(kMinimal, {"training.max_steps=0", "training.max_epochs=0"})
                .find("set at least one so that training ends"),
            std::string::npos);
  // A time budget alone is an end condition.
  EXPECT_EQ(error_of(kMinimal, {"training.max_steps=0", "training.max_epochs=0",
                                "training.max_seconds=60"}),
            "");
  EXPECT_NE(error_of(kMinimal, {"training.schedule=warmup", "training.decay=linear",
                                "training.max_steps=0"})
                .find("training.decay: linear decay needs training.max_steps"),
            std::string::npos);
  EXPECT_EQ(error_of(kMinimal, {"training.validate_every=0"}),
            "--set: training.validate_every: must be at least 1");
}

TEST(TrainConfigErrors, BadYamlAndBadOverrides) {
  EXPECT_NE(error_of("data: [\n").find("cfg.yaml:"), std::string::npos);
  EXPECT_NE(error_of("data: [\n").find("invalid YAML"), std::string::npos);
  EXPECT_EQ(error_of("- a\n- b\n"),
            "cfg.yaml: expected a mapping with the sections data, model, training and the key "
            "output; got a list");
  EXPECT_EQ(error_of(kMinimal, {"training.lr"}),
            "--set training.lr: expected key=value, e.g. training.lr=0.0005");
  EXPECT_EQ(error_of(kMinimal, {"output.x=1"}), "--set output.x=1: 'output' is not a section");
}

TEST(TrainConfigErrors, MissingFile) {
  try {
    load_train_config("/nonexistent/cfg.yaml");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "/nonexistent/cfg.yaml: cannot open the config for reading");
  }
}

}  // namespace
}  // namespace heed
