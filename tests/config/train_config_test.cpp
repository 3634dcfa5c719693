// TrainConfig parsing: defaults, overrides, and the message of every kind of mistake.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "config/config_error.h"
#include "heed/base/error.h"
#include "heed/config/train_config.h"

namespace heed {
namespace {

const std::string kMinimal =
    "data:\n"
    "  train_source: a.src\n"
    "  train_target: a.tgt\n"
    "output: out\n";

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
  EXPECT_EQ(c.data.source.tokenizer, TokenizerKind::chars);
  EXPECT_EQ(c.model.kind, ModelKind::bahdanau);
  EXPECT_EQ(c.training.optimizer, OptimizerKind::adam);
  EXPECT_DOUBLE_EQ(c.training.lr, 1e-3);
  EXPECT_EQ(c.training.schedule, ScheduleKind::constant);
  EXPECT_EQ(c.training.max_tokens, 4096);
  EXPECT_EQ(c.training.metric, DevMetric::loss);
  EXPECT_EQ(c.training.dtype, DType::f32);
  EXPECT_EQ(c.training.precision, kernels::MatmulPrecision::f32);
}

TEST(TrainConfig, ReadsEverySection) {
  const TrainConfig c = parse_train_config(kMinimal +
                                               "model:\n  kind: luong\n  score: general\n"
                                               "  dropout: 0.3\n  bidirectional: false\n"
                                               "training:\n  lr: 5e-4\n  schedule: warmup\n"
                                               "  max_steps: 100\n  metric: bleu\n",
                                           "cfg.yaml");
  EXPECT_EQ(c.model.kind, ModelKind::luong);
  EXPECT_EQ(c.model.score, AttentionScore::general);
  EXPECT_DOUBLE_EQ(c.model.dropout, 0.3);
  EXPECT_FALSE(c.model.bidirectional);
  EXPECT_DOUBLE_EQ(c.training.lr, 5e-4);
  EXPECT_EQ(c.training.schedule, ScheduleKind::warmup);
  EXPECT_EQ(c.training.max_steps, 100);
  EXPECT_TRUE(metric_higher_is_better(c.training.metric));
}

TEST(TrainConfig, SetOverridesAndCreatesSections) {
  const TrainConfig c = parse_train_config(
      kMinimal, "cfg.yaml",
      {"training.lr=0.0005", "model.emb_dim=64", "data.source.tokenizer=whitespace", "output=x"});
  EXPECT_DOUBLE_EQ(c.training.lr, 0.0005);
  EXPECT_EQ(c.model.emb_dim, 64);
  EXPECT_EQ(c.data.source.tokenizer, TokenizerKind::whitespace);
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
  EXPECT_EQ(d.model.encoder_cell, RnnCell::lstm);
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
  EXPECT_EQ(error_of(kMinimal + "model:\n  kind: reformer\n"),
            "cfg.yaml:6: model.kind: expected one of bahdanau | luong | noattn | ram | fc | cnn | "
            "image2seq | memn2n | transformer | las, got 'reformer'");
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
  EXPECT_NE(error_of(kMinimal, {"training.precision=int8"})
                .find("training.precision: int8 is a decoding precision (heed translate "
                      "--precision int8); training runs fp32 or bf16 products"),
            std::string::npos)
      << error_of(kMinimal, {"training.precision=int8"});
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

namespace heed {
namespace {

// yaml-cpp keeps both entries of a repeated key and a lookup sees the first one; the reader
// refuses the file instead, naming both lines.
TEST(TrainConfigErrors, KeyGivenTwiceNamesBothLines) {
  EXPECT_EQ(error_of(kMinimal + "training:\n  lr: 0.1\n  lr: 0.2\n"),
            "cfg.yaml:7: key 'training.lr' given twice (first at line 6); keep one");
  EXPECT_NE(error_of(kMinimal + "model:\n  kind: luong\nmodel:\n  emb_dim: 8\n").find(
                "key 'model' given twice (first at line 5)"),
            std::string::npos);
}

// Names become enums once, here; aliases read as their value and are written canonically.
TEST(TrainConfig, ChoicesAreTyped) {
  TrainConfig c = parse_train_config(kMinimal + "model:\n  kind: luong\n  score: additive\n"
                                                "  encoder_cell: lstm\ntraining:\n"
                                                "  precision: bf16\n  metric: g2p\n",
                                     "cfg.yaml");
  EXPECT_EQ(c.model.kind, ModelKind::luong);
  EXPECT_EQ(c.model.score, AttentionScore::mlp);
  EXPECT_EQ(c.model.encoder_cell, RnnCell::lstm);
  EXPECT_EQ(c.training.precision, kernels::MatmulPrecision::bf16);
  EXPECT_EQ(c.training.metric, DevMetric::g2p);
  EXPECT_NE(to_yaml(c).find("score: mlp"), std::string::npos);
  c = parse_train_config(kMinimal + "model:\n  encoder_cell: \"\"\n", "cfg.yaml");
  EXPECT_FALSE(c.model.encoder_cell.has_value());  // the kind's default
  EXPECT_EQ(parse_train_config(to_yaml(c), "saved.yaml").model.encoder_cell, std::nullopt);
}

// Hard attention (docs/CONFIG.md): model.attention.{mode, hard_eval} and the REINFORCE knobs.
TEST(TrainConfig, AttentionModeDefaultsToSoftAndRoundTrips) {
  const TrainConfig d = parse_train_config(kMinimal, "cfg.yaml");
  EXPECT_EQ(d.model.attention_mode, AttentionMode::soft);
  EXPECT_EQ(d.model.hard_eval, HardEval::argmax);
  EXPECT_DOUBLE_EQ(d.training.reinforce_weight, 1.0);
  EXPECT_DOUBLE_EQ(d.training.entropy_weight, 0.0);
  EXPECT_DOUBLE_EQ(d.training.baseline_decay, 0.9);
  EXPECT_DOUBLE_EQ(d.training.hard_soft_mix, 0.0);
  const TrainConfig c = parse_train_config(
      kMinimal + "model:\n  attention:\n    mode: hard\n    hard_eval: expectation\n"
                 "training:\n  entropy_weight: 0.01\n  baseline_decay: 0.5\n"
                 "  hard_soft_mix: 0.5\n",
      "cfg.yaml");
  EXPECT_DOUBLE_EQ(c.training.hard_soft_mix, 0.5);
  EXPECT_EQ(c.model.attention_mode, AttentionMode::hard);
  EXPECT_EQ(c.model.hard_eval, HardEval::expectation);
  EXPECT_DOUBLE_EQ(c.training.entropy_weight, 0.01);
  const TrainConfig r = parse_train_config(to_yaml(c), "saved.yaml");
  EXPECT_EQ(to_yaml(r), to_yaml(c));
  EXPECT_EQ(r.model.attention_mode, AttentionMode::hard);
  EXPECT_EQ(parse_train_config(kMinimal, "cfg.yaml", {"model.attention.mode=hard"})
                .model.attention_mode,
            AttentionMode::hard);
  // A model directory written before the key existed has no model.attention: soft.
  std::string old = to_yaml(d);
  const auto at = old.find("  attention:");
  ASSERT_NE(at, std::string::npos);
  old.erase(at, old.find("training:") - at);
  EXPECT_EQ(parse_train_config(old, "old.yaml").model.attention_mode, AttentionMode::soft);
}

TEST(TrainConfigErrors, AttentionModeErrorsNameTheKey) {
  EXPECT_EQ(error_of(kMinimal + "model:\n  attention:\n    mode: stochastic\n"),
            "cfg.yaml:7: model.attention.mode: expected one of soft | hard | none, got 'stochastic'");
  EXPECT_EQ(error_of(kMinimal, {"model.attention.hard_eval=sample"}),
            "--set: model.attention.hard_eval: expected one of argmax | expectation, got 'sample'");
  EXPECT_EQ(error_of(kMinimal, {"model.attention.mod=hard"}),
            "--set: unknown key 'model.attention.mod' (did you mean 'model.attention.mode'?)");
  EXPECT_EQ(error_of(kMinimal, {"training.baseline_decay=1"}),
            "--set: training.baseline_decay: must be in [0, 1)");
  EXPECT_EQ(error_of(kMinimal, {"training.entropy_weight=-0.1"}),
            "--set: training.entropy_weight: must be 0 or more");
  EXPECT_EQ(error_of(kMinimal, {"training.reinforce_weight=-1"}),
            "--set: training.reinforce_weight: must be 0 or more");
  EXPECT_EQ(error_of(kMinimal, {"training.hard_soft_mix=1.5"}),
            "--set: training.hard_soft_mix: must be in [0, 1] (the probability that a batch "
            "reads the soft expectation)");
  EXPECT_EQ(error_of(kMinimal, {"training.hard_soft_mix=0.5"}),
            "--set: training.hard_soft_mix: mixes the soft expectation into hard attention's "
            "training (model.attention.mode hard), not model.kind bahdanau with mode soft; set "
            "it to 0");
}

const std::string kRam =
    "data:\n"
    "  train_images: d/train-images-idx3-ubyte.gz\n"
    "  train_target: d/train.tgt\n"
    "model:\n"
    "  kind: ram\n"
    "output: out\n";

// model.kind ram: its keys, its data keys, its metric, and the round trip.
TEST(TrainConfig, RamKeysRoundTrip) {
  TrainConfig c = parse_train_config(kRam, "cfg.yaml",
                                     {"model.glimpses=7", "model.core=lstm", "model.scales=2",
                                      "model.location_std=0.2", "model.sample_paths=5",
                                      "training.metric=error", "data.dev_images=d/test.gz",
                                      "data.dev_target=d/test.tgt"});
  EXPECT_EQ(c.model.kind, ModelKind::ram);
  EXPECT_EQ(c.data.train_images, "d/train-images-idx3-ubyte.gz");
  EXPECT_EQ(c.model.ram.glimpses, 7);
  EXPECT_EQ(c.model.ram.core, RamCore::lstm);
  EXPECT_EQ(c.model.ram.glimpse_size, 8);
  EXPECT_EQ(c.training.metric, DevMetric::error);
  const TrainConfig d = parse_train_config(to_yaml(c), "saved.yaml");
  EXPECT_EQ(to_yaml(d), to_yaml(c));
  EXPECT_DOUBLE_EQ(d.model.ram.location_std, 0.2);
  EXPECT_EQ(d.model.ram.sample_paths, 5);
}

TEST(TrainConfigErrors, RamNamesTheKey) {
  EXPECT_EQ(error_of("data:\n  train_target: t\nmodel:\n  kind: ram\noutput: o\n"),
            "cfg.yaml: data.train_images: required for model.kind ram: the training images (an "
            "IDX file of heed data images)");
  EXPECT_NE(error_of(kRam, {"data.train_source=a.src"}).find("give data.train_images, not train_source"),
            std::string::npos);
  EXPECT_NE(error_of(kMinimal, {"data.train_images=x.gz"}).find("only model.kind ram reads images"),
            std::string::npos);
  EXPECT_NE(error_of(kRam, {"data.dev_images=x.gz"}).find("dev_images and dev_target go together"),
            std::string::npos);
  EXPECT_NE(error_of(kRam, {"training.metric=bleu"}).find("use loss or error"), std::string::npos);
  EXPECT_NE(error_of(kMinimal, {"training.metric=error"}).find("classification error of model.kind ram"),
            std::string::npos);
  EXPECT_NE(error_of(kRam, {"model.core=gru"}).find("model.core: expected one of rnn | lstm"),
            std::string::npos);
  EXPECT_NE(error_of(kRam, {"model.glimpses=0"}).find("model.glimpses: must be at least 1"),
            std::string::npos);
  EXPECT_NE(error_of(kRam, {"model.location_std=0"}).find("model.location_std: must be in (0, 1]"),
            std::string::npos);
  EXPECT_NE(error_of(kRam, {"model.scales=9"}).find("model.scales: must be at most 8"),
            std::string::npos);
}

// data.generate: the image classifiers' training set drawn by heed, placed anew every epoch.
const std::string kGenerated =
    "data:\n"
    "  generate:\n"
    "    kind: cluttered\n"
    "    count: 500\n"
    "    pieces: 8\n"
    "model:\n"
    "  kind: ram\n"
    "output: out\n";

TEST(TrainConfig, GenerateKeysRoundTrip) {
  const TrainConfig c = parse_train_config(kGenerated, "cfg.yaml",
                                           {"data.generate.seed=7", "data.generate.size=64"});
  ASSERT_TRUE(c.data.generate.kind);
  EXPECT_EQ(*c.data.generate.kind, ImageSetKind::cluttered);
  EXPECT_EQ(c.data.generate.count, 500);
  EXPECT_EQ(c.data.generate.pieces, 8);
  EXPECT_EQ(c.data.generate.piece_size, 8);
  EXPECT_EQ(c.data.generate.size, 64);
  EXPECT_EQ(c.data.generate.seed, 7u);
  EXPECT_EQ(c.data.generate.source, "/usr/share/datasets/fashion-mnist");
  EXPECT_TRUE(c.data.train_images.empty());
  const TrainConfig d = parse_train_config(to_yaml(c), "saved.yaml");
  EXPECT_EQ(to_yaml(d), to_yaml(c));
  ASSERT_TRUE(d.data.generate.kind);
  EXPECT_EQ(*d.data.generate.kind, ImageSetKind::cluttered);
  // Without it, the training files are read (and saved configs say so with an empty kind).
  const TrainConfig files = parse_train_config(kRam, "cfg.yaml");
  EXPECT_FALSE(files.data.generate.kind);
  EXPECT_FALSE(parse_train_config(to_yaml(files), "saved.yaml").data.generate.kind);
}

TEST(TrainConfigErrors, GenerateNamesTheKey) {
  EXPECT_EQ(error_of(kGenerated, {"data.train_images=d/x.gz"}),
            "--set: data.train_images: data.generate draws the training set and its targets: "
            "give it or train_images and train_target, not both");
  EXPECT_NE(error_of(kGenerated, {"data.train_target=d/x.tgt"}).find("data.train_target: data.generate"),
            std::string::npos);
  EXPECT_EQ(error_of(kGenerated, {"data.generate.kind=canvas"}),
            "--set: data.generate.kind: expected translated or cluttered: a canvas set's items do "
            "not move (use heed data images --kind canvas and data.train_images)");
  EXPECT_NE(error_of(kGenerated, {"model.kind=image2seq"})
                .find("data.generate draws training images for model.kind ram, fc and cnn, not "
                      "image2seq"),
            std::string::npos);
  EXPECT_NE(error_of(kMinimal, {"data.generate.kind=translated"})
                .find("for model.kind ram, fc and cnn, not bahdanau"),
            std::string::npos);
  EXPECT_NE(error_of(kGenerated, {"data.generate.kind=mosaic"})
                .find("data.generate.kind: expected one of"),
            std::string::npos);
  EXPECT_NE(error_of(kGenerated, {"data.generate.count=0"}).find("data.generate.count: must be at least 1"),
            std::string::npos);
  EXPECT_NE(error_of(kGenerated, {"data.generate.pieces=65"}).find("data.generate.pieces: must be"),
            std::string::npos);
  EXPECT_NE(error_of(kGenerated, {"data.generate.colour=red"}).find("data.generate.colour"),
            std::string::npos);
  EXPECT_NE(error_of(kGenerated, {"data.train_source=a.src"}).find("train_source is not read"),
            std::string::npos);
}

// The keys of the fully connected and convolutional image classifiers (model.kind fc, cnn) and
// of the recurrent attention model's random-location ablation.
std::string config_of(const char* kind) {
  return std::string("data:\n"
                     "  train_images: d/train-images-idx3-ubyte.gz\n"
                     "  train_target: d/train.tgt\n"
                     "model:\n"
                     "  kind: ") + kind + "\noutput: out\n";
}

TEST(ImageClassifierConfig, KeysRoundTrip) {
  const TrainConfig c = parse_train_config(
      config_of("fc"), "cfg.yaml",
      {"model.fc_layers=2", "model.fc_hidden=64", "training.metric=error",
       "data.dev_images=d/test.gz", "data.dev_target=d/test.tgt"});
  EXPECT_EQ(c.model.kind, ModelKind::fc);
  EXPECT_EQ(c.model.classifier.fc_layers, 2);
  EXPECT_EQ(c.model.classifier.fc_hidden, 64);
  EXPECT_EQ(c.model.classifier.image_height, 0);  // from the training images
  EXPECT_EQ(c.training.metric, DevMetric::error);
  const TrainConfig d = parse_train_config(to_yaml(c), "saved.yaml");
  EXPECT_EQ(to_yaml(d), to_yaml(c));
  EXPECT_EQ(d.model.classifier.fc_hidden, 64);

  const TrainConfig cnn = parse_train_config(config_of("cnn"), "cfg.yaml",
                                             {"model.conv_layers=2", "model.conv_channels=8"});
  EXPECT_EQ(cnn.model.kind, ModelKind::cnn);
  EXPECT_EQ(cnn.model.image.conv_layers, 2);
  EXPECT_EQ(cnn.model.image.conv_channels, 8);

  const TrainConfig ram = parse_train_config(config_of("ram"), "cfg.yaml",
                                             {"model.random_locations=true"});
  EXPECT_TRUE(ram.model.ram.random_locations);
  EXPECT_TRUE(parse_train_config(to_yaml(ram), "saved.yaml").model.ram.random_locations);
  EXPECT_FALSE(parse_train_config(config_of("ram"), "cfg.yaml").model.ram.random_locations);
}

TEST(ImageClassifierConfig, ErrorsNameTheKey) {
  EXPECT_EQ(error_of("data:\n  train_target: t\nmodel:\n  kind: fc\noutput: o\n"),
            "cfg.yaml: data.train_images: required for model.kind fc: the training images (an "
            "IDX file of heed data images)");
  EXPECT_NE(error_of(config_of("cnn"), {"data.dev_source=x"}).find("model.kind cnn reads images"),
            std::string::npos);
  EXPECT_NE(error_of(config_of("fc"), {"model.fc_hidden=0"}).find("model.fc_hidden: must be at least 1"),
            std::string::npos);
  EXPECT_NE(error_of(config_of("fc"), {"model.fc_layers=-1"}).find("model.fc_layers: must be 0 or more"),
            std::string::npos);
  EXPECT_NE(error_of(config_of("fc"), {"model.fc_layers=17"}).find("model.fc_layers: must be at most 16"),
            std::string::npos);
  EXPECT_NE(error_of(config_of("fc"), {"model.image_height=-2"}).find("model.image_height: must be 0 or more"),
            std::string::npos);
  EXPECT_NE(error_of(config_of("ram"), {"model.random_locations=maybe"}).find("model.random_locations: expected true or false"),
            std::string::npos);
  EXPECT_NE(error_of(config_of("cnn"), {"training.metric=bleu"}).find("model.kind cnn classifies images: use loss or error"),
            std::string::npos);
}

const std::string kImage2Seq =
    "data:\n"
    "  train_images: d/train-images-idx3-ubyte.gz\n"
    "  train_target: d/train.tgt\n"
    "model:\n"
    "  kind: image2seq\n"
    "output: out\n";

// model.kind image2seq: its encoder keys, its data keys, its metric, the doubly stochastic
// penalty and the round trip.
TEST(TrainConfig, Image2SeqKeysRoundTrip) {
  const TrainConfig c = parse_train_config(
      kImage2Seq, "cfg.yaml",
      {"model.conv_layers=4", "model.conv_channels=8", "model.attention.mode=none",
       "training.metric=error", "data.dev_images=d/test.gz", "data.dev_target=d/test.tgt"});
  EXPECT_EQ(c.model.kind, ModelKind::image2seq);
  EXPECT_EQ(c.model.image.conv_layers, 4);
  EXPECT_EQ(c.model.image.conv_channels, 8);
  EXPECT_EQ(c.model.attention_mode, AttentionMode::none);
  EXPECT_EQ(c.training.metric, DevMetric::error);
  const TrainConfig d = parse_train_config(to_yaml(c), "saved.yaml");
  EXPECT_EQ(to_yaml(d), to_yaml(c));
  EXPECT_EQ(d.model.image.conv_layers, 4);
  // The doubly stochastic penalty, on soft attention's weights (the default mode).
  const TrainConfig p =
      parse_train_config(kImage2Seq, "cfg.yaml", {"training.doubly_stochastic=0.5"});
  EXPECT_DOUBLE_EQ(p.training.doubly_stochastic, 0.5);
  EXPECT_DOUBLE_EQ(parse_train_config(to_yaml(p), "saved.yaml").training.doubly_stochastic, 0.5);
}

// The location features, coverage and the coverage loss (docs/MODELS.md#location-aware-attention,
// #coverage): read, written back, and refused where the score or the mode cannot take them.
TEST(TrainConfig, LocationFeaturesRoundTrip) {
  const TrainConfig c = parse_train_config(
      kMinimal, "cfg.yaml",
      {"model.location_filters=10", "model.location_width=31", "model.coverage=true",
       "training.coverage_loss=1"});
  EXPECT_EQ(c.model.location_filters, 10);
  EXPECT_EQ(c.model.location_width, 31);
  EXPECT_TRUE(c.model.coverage);
  EXPECT_DOUBLE_EQ(c.training.coverage_loss, 1.0);
  const TrainConfig d = parse_train_config(to_yaml(c), "saved.yaml");
  EXPECT_EQ(to_yaml(d), to_yaml(c));
  // Luong with an additive score takes them; image2seq too.
  EXPECT_NO_THROW(parse_train_config(kMinimal, "cfg.yaml",
                                     {"model.kind=luong", "model.score=concat",
                                      "model.coverage=true"}));
  EXPECT_TRUE(parse_train_config(kImage2Seq, "cfg.yaml", {"model.coverage=true"}).model.coverage);
}

TEST(TrainConfigErrors, LocationFeaturesNameTheKey) {
  EXPECT_EQ(error_of(kMinimal, {"model.location_filters=3", "model.location_width=4"}),
            "--set: model.location_width: the location filters' width must be odd (the features "
            "keep the source's length), got 4");
  EXPECT_NE(error_of(kMinimal, {"model.location_filters=-1"}).find("model.location_filters"),
            std::string::npos);
  EXPECT_EQ(error_of(kMinimal, {"model.kind=luong", "model.score=general", "model.coverage=true"}),
            "--set: model.coverage: the location features enter the additive score's tanh "
            "(model.score mlp or concat), not 'general'");
  EXPECT_NE(error_of(kMinimal, {"model.kind=noattn", "model.coverage=true"})
                .find("not used by model.kind noattn"),
            std::string::npos);
  EXPECT_NE(error_of(kImage2Seq, {"model.attention.mode=none", "model.location_filters=2"})
                .find("model.attention.mode none does not attend"),
            std::string::npos);
  EXPECT_NE(error_of(kMinimal, {"model.attention.mode=hard", "training.coverage_loss=1"})
                .find("training.coverage_loss: the coverage loss is on soft attention weights"),
            std::string::npos);
  // The width is not checked while the filters are off.
  EXPECT_NO_THROW(parse_train_config(kMinimal, "cfg.yaml", {"model.location_width=4"}));
}

// model.share_embeddings (the Transformer's one embedding table): stored in the saved
// config, refused for the other kinds and for sides that are not tokenised alike.
TEST(TrainConfig, ShareEmbeddingsRoundTrips) {
  const std::vector<std::string> transformer = {"model.kind=transformer",
                                                "model.share_embeddings=true"};
  const TrainConfig c = parse_train_config(kMinimal, "cfg.yaml", transformer);
  EXPECT_TRUE(c.model.transformer.share_embeddings);
  EXPECT_NE(to_yaml(c).find("  share_embeddings: true\n"), std::string::npos) << to_yaml(c);
  const TrainConfig d = parse_train_config(to_yaml(c), "saved.yaml");
  EXPECT_TRUE(d.model.transformer.share_embeddings);
  EXPECT_EQ(to_yaml(d), to_yaml(c));
  EXPECT_FALSE(parse_train_config(kMinimal, "cfg.yaml", {"model.kind=transformer"})
                   .model.transformer.share_embeddings);
  EXPECT_NE(error_of(kMinimal, {"model.share_embeddings=true"})
                .find("model.share_embeddings: not used by model.kind bahdanau"),
            std::string::npos);
}

TEST(TrainConfigErrors, ShareEmbeddingsNeedsSidesTokenisedAlike) {
  std::vector<std::string> sets = {"model.kind=transformer", "model.share_embeddings=true",
                                   "data.target.tokenizer=whitespace"};
  EXPECT_EQ(error_of(kMinimal, sets),
            "--set: model.share_embeddings: one embedding table for both sides needs one "
            "vocabulary, so both sides tokenised alike: set data.source.tokenizer and "
            "data.target.tokenizer the same (got char and whitespace)");
  sets = {"model.kind=transformer", "model.share_embeddings=true",
          "data.source.tokenizer=sentencepiece", "data.target.tokenizer=sentencepiece"};
  EXPECT_NE(error_of(kMinimal, sets).find("model.share_embeddings: one embedding table for "
                                          "both sides needs one vocabulary, so one "
                                          "SentencePiece model for both sides: set "
                                          "data.spm_joint: true"),
            std::string::npos)
      << error_of(kMinimal, sets);
  sets.push_back("data.spm_joint=true");
  EXPECT_EQ(error_of(kMinimal, sets), "");
  EXPECT_EQ(error_of(kMinimal, {"model.kind=transformer", "data.target.tokenizer=whitespace"}),
            "");  // separate tables: each side its own tokeniser
}

TEST(TrainConfigErrors, Image2SeqNamesTheKey) {
  EXPECT_NE(error_of(kImage2Seq, {"training.metric=bleu"}).find("model.kind image2seq: use loss or error"),
            std::string::npos);
  EXPECT_NE(error_of(kImage2Seq, {"training.doubly_stochastic=-1"}).find("training.doubly_stochastic"),
            std::string::npos);
  EXPECT_EQ(error_of(kImage2Seq, {"training.doubly_stochastic=0.1", "model.attention.mode=hard"}),
            "--set: training.doubly_stochastic: the penalty is on the soft attention weights of "
            "model.kind image2seq (model.attention.mode soft), not image2seq with mode hard; set "
            "it to 0");
  EXPECT_NE(error_of(kMinimal, {"training.doubly_stochastic=0.1"}).find("not bahdanau with mode soft"),
            std::string::npos);
  EXPECT_NE(error_of(kImage2Seq, {"model.conv_layers=9"}).find("model.conv_layers"), std::string::npos);
  EXPECT_NE(error_of(kImage2Seq, {"model.conv_channels=0"}).find("model.conv_channels"),
            std::string::npos);
  EXPECT_NE(error_of(kImage2Seq, {"model.attention.mode=sometimes"}).find("soft | hard | none"),
            std::string::npos);
  EXPECT_NE(error_of(kImage2Seq, {"data.train_source=a.src"}).find("train_source"),
            std::string::npos);
}

// model.kind las: its data, audio, listener and SpecAugment keys, the round trip, its metrics
// and every refusal at the key it names.
const std::string kSpeech =
    "data:\n  train_manifest: d/train.tsv\n  dev_manifest: d/dev.tsv\n"
    "  audio: {rate: 8000, mels: 40}\n  target: {tokenizer: whitespace}\n"
    "model:\n  kind: las\n  enc_layers: 4\n  pyramid: 8\noutput: m\n";

TEST(TrainConfig, SpeechKeysRoundTrip) {
  const TrainConfig c = parse_train_config(
      kSpeech, "cfg.yaml",
      {"training.spec_augment.freq_masks=2", "training.spec_augment.max_time_fraction=0.1",
       "training.metric=wer", "data.audio.normalize=false"});
  EXPECT_EQ(c.model.kind, ModelKind::las);
  EXPECT_EQ(c.data.train_manifest, "d/train.tsv");
  EXPECT_EQ(c.data.dev_manifest, "d/dev.tsv");
  EXPECT_EQ(c.data.audio.rate, 8000);
  EXPECT_EQ(c.data.audio.mels, 40);
  EXPECT_FALSE(c.data.audio.normalize);
  EXPECT_EQ(c.model.listener.pyramid, 8);
  EXPECT_EQ(c.model.listener.feature_dim, 0);  // set from data.audio.mels by heed train
  EXPECT_EQ(c.training.spec_augment.freq_masks, 2);
  EXPECT_EQ(c.training.spec_augment.time_masks, 0);
  EXPECT_DOUBLE_EQ(c.training.spec_augment.max_time_fraction, 0.1);
  EXPECT_EQ(c.training.metric, DevMetric::wer);
  const TrainConfig d = parse_train_config(to_yaml(c), "saved.yaml");
  EXPECT_EQ(to_yaml(d), to_yaml(c));
  EXPECT_EQ(d.training.spec_augment.freq_masks, 2);
  EXPECT_EQ(parse_train_config(kSpeech, "cfg.yaml", {"training.metric=error"}).training.metric,
            DevMetric::error);
}

TEST(TrainConfigErrors, SpeechNamesTheKey) {
  EXPECT_EQ(error_of("data:\n  dev_manifest: d.tsv\nmodel:\n  kind: las\noutput: m\n"),
            "cfg.yaml: data.train_manifest: required for model.kind las: the training manifest "
            "(a .tsv of WAV paths and transcripts, as heed data digits writes)");
  EXPECT_EQ(error_of(kSpeech, {"data.train_target=t.tgt"}),
            "--set: data.train_target: model.kind las reads WAV files and their transcripts from "
            "data.train_manifest and data.dev_manifest; remove it");
  EXPECT_NE(error_of(kSpeech, {"data.train_images=i.gz"}).find("data.train_images"),
            std::string::npos);
  EXPECT_EQ(error_of(kSpeech, {"data.target.tokenizer=sentencepiece"}),
            "--set: data.target.tokenizer: model.kind las spells characters (char) or words "
            "(whitespace), not sentencepiece");
  EXPECT_EQ(error_of(kSpeech, {"training.metric=bleu"}),
            "--set: training.metric: model.kind las transcribes speech: use loss, wer or error "
            "(the dev utterances whose transcript differs from the reference, in %), got bleu");
  EXPECT_NE(error_of(kSpeech, {"data.audio.rate=100"}).find("data.audio.rate"), std::string::npos);
  EXPECT_NE(error_of(kSpeech, {"data.audio.mels=0"}).find("data.audio.mels"), std::string::npos);
  EXPECT_NE(error_of(kSpeech, {"model.pyramid=0"}).find("model.pyramid"), std::string::npos);
  EXPECT_NE(error_of(kSpeech, {"training.spec_augment.time_masks=-1"})
                .find("training.spec_augment.time_masks"),
            std::string::npos);
  EXPECT_EQ(error_of(kMinimal, {"training.spec_augment.freq_masks=2"}),
            "--set: training.spec_augment.freq_masks: not used by model.kind bahdanau (used by: "
            "las); remove it");
  EXPECT_EQ(error_of(kMinimal, {"model.pyramid=4"}),
            "--set: model.pyramid: not used by model.kind bahdanau (used by: las); remove it");
}

}  // namespace
}  // namespace heed
