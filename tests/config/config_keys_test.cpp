// The key table (config/config_keys.h): every key declared once, and what the reader does with
// the kinds that accept each key.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "config/config_error.h"
#include "heed/base/error.h"
#include "heed/config/config_keys.h"
#include "heed/config/train_config.h"

namespace heed {
namespace {

const std::string kText =
    "data:\n"
    "  train_source: a.src\n"
    "  train_target: a.tgt\n"
    "model:\n"
    "  kind: luong\n";

std::string images_of(const std::string& kind) {
  return "data:\n  train_images: i.gz\n  train_target: t.tgt\nmodel:\n  kind: " + kind + "\n";
}

const std::string kMemory = "data:\n  babi: {dir: babi/en}\nmodel:\n  kind: memn2n\n";
const std::string kSpeech = "data:\n  train_manifest: train.tsv\nmodel:\n  kind: las\n";

TEST(ConfigKeys, EachKeyOnceWithHelpAndADefaultInRange) {
  const TrainConfig defaults;
  std::set<std::string> names;
  for (const ConfigKey& k : config_keys()) {
    EXPECT_TRUE(names.insert(k.name).second) << k.name << " declared twice";
    EXPECT_FALSE(k.help.empty()) << k.name << " has no help text";
    EXPECT_NE(k.kinds, KindSet{0}) << k.name << " is read by no kind";
    const KeyValue v = k.get(defaults);
    for (const KeyRange& r : k.ranges) {
      const double x = std::holds_alternative<double>(v)
                           ? std::get<double>(v)
                           : static_cast<double>(std::get<std::int64_t>(v));
      EXPECT_TRUE(r.contains(x)) << k.name << ": the default is outside " << r.text();
    }
  }
  EXPECT_GE(names.size(), 100u);
}

TEST(ConfigKeys, RangesRenderAsIntervals) {
  EXPECT_EQ((KeyRange{0, 1, false, true, false, ""}).text(), "[0, 1)");
  EXPECT_EQ((KeyRange{28, 4096, false, false, true, ""}).text(), "0 or [28, 4096]");
  EXPECT_TRUE((KeyRange{28, 4096, false, false, true, ""}).contains(0));
  EXPECT_FALSE((KeyRange{28, 4096, false, false, true, ""}).contains(27));
  EXPECT_EQ(kind_list(kinds({ModelKind::fc, ModelKind::ram})), "ram, fc");
}

// Every kind's complete config, as a model directory records it (every key written, unused
// ones at their defaults), reads back unchanged.
TEST(ConfigKeys, EveryKindsSavedConfigReadsBack) {
  for (const auto& n : enum_names(ModelKind{})) {
    const std::string kind(n.name);
    const bool text = is_sequence_to_sequence(n.value);
    const TrainConfig c =
        parse_train_config((text ? kText.substr(0, kText.rfind("  kind")) + "  kind: " + kind + "\n"
                            : answers_questions(n.value)  ? kMemory
                            : transcribes_speech(n.value) ? kSpeech
                                                          : images_of(kind)) +
                               "output: o\n",
                           "cfg.yaml");
    EXPECT_EQ(to_yaml(parse_train_config(to_yaml(c), "saved.yaml")), to_yaml(c)) << kind;
  }
}

TEST(ConfigKeys, AKeyTheKindDoesNotReadIsRefused) {
  EXPECT_EQ(error_of(kText + "  glimpses: 7\noutput: o\n"),
            "cfg.yaml:6: model.glimpses: not used by model.kind luong (used by: ram); remove it");
  EXPECT_EQ(error_of(kText + "output: o\n", {"model.image_height=28"}),
            "--set: model.image_height: not used by model.kind luong (used by: ram, fc, cnn); "
            "remove it");
  EXPECT_EQ(error_of(images_of("image2seq") + "  enc_hidden: 64\noutput: o\n"),
            "cfg.yaml:6: model.enc_hidden: not used by model.kind image2seq (used by: bahdanau, "
            "luong, noattn, las); remove it");
  EXPECT_EQ(error_of(images_of("fc") + "output: o\n", {"model.conv_layers=2"}),
            "--set: model.conv_layers: not used by model.kind fc (used by: cnn, image2seq); "
            "remove it");
  EXPECT_EQ(error_of(images_of("image2seq") + "output: o\n", {"data.source.tokenizer=whitespace"}),
            "--set: data.source.tokenizer: not used by model.kind image2seq (used by: bahdanau, "
            "luong, noattn, transformer); remove it");
  EXPECT_EQ(error_of(kText + "output: o\n", {"data.generate.count=10"}),
            "--set: data.generate.count: not used by model.kind luong (used by: ram, fc, cnn); "
            "remove it");
  EXPECT_EQ(error_of(images_of("ram") + "output: o\n", {"training.entropy_weight=0.1"}),
            "--set: training.entropy_weight: not used by model.kind ram (used by: bahdanau, "
            "luong, image2seq, las); remove it");
  EXPECT_EQ(error_of(kText + "  input_feed: false\noutput: o\n"), "");  // luong reads it
  EXPECT_NE(error_of(kText + "output: o\n", {"model.kind=bahdanau", "model.input_feed=false"})
                .find("model.input_feed: not used by model.kind bahdanau (used by: luong)"),
            std::string::npos);
}

// The default of a key the kind ignores says nothing, so it is accepted: saved configs hold
// every key. Any other value is refused, the encoder–decoder's keys for the image
// classifiers included.
TEST(ConfigKeys, AnUnusedKeyAtItsDefaultIsAccepted) {
  EXPECT_EQ(error_of(images_of("ram") + "  emb_dim: 64\n  dropout: 0.3\noutput: o\n"),
            "cfg.yaml:6: model.emb_dim: not used by model.kind ram (used by: bahdanau, luong, "
            "noattn, image2seq, memn2n, las); remove it");
  EXPECT_EQ(error_of(images_of("fc") + "output: o\n", {"data.source.tokenizer=whitespace"}),
            "--set: data.source.tokenizer: not used by model.kind fc (used by: bahdanau, luong, "
            "noattn, transformer); remove it");
  EXPECT_EQ(error_of(kText + "  glimpses: 6\n  core: rnn\n  fc_layers: 1\noutput: o\n"), "");
  EXPECT_EQ(error_of(images_of("ram") + "  emb_dim: 128\n  encoder_cell: \"\"\noutput: o\n"), "");
}

// Range and type errors come before the kind's: the message says what is wrong with the value.
TEST(ConfigKeys, TheValueIsCheckedBeforeTheKind) {
  EXPECT_EQ(error_of(kText + "  location_std: 0\noutput: o\n"),
            "cfg.yaml:6: model.location_std: must be in (0, 1] (locations span [-1, 1])");
  EXPECT_EQ(error_of(kText + "  core: gru\noutput: o\n"),
            "cfg.yaml:6: model.core: expected one of rnn | lstm, got 'gru'");
}

}  // namespace
}  // namespace heed

namespace heed {
namespace {

// model.kind memn2n reads bAbI's directory and its own keys; the text kinds' files and keys
// are refused, and its keys are refused for the other kinds.
TEST(ConfigKeys, TheMemoryNetworksKeys) {
  EXPECT_EQ(error_of(kMemory + "output: o\n"), "");
  EXPECT_NE(error_of("data:\n  train_target: t\nmodel:\n  kind: memn2n\noutput: o\n")
                .find("data.babi.dir: required for model.kind memn2n"),
            std::string::npos);
  EXPECT_NE(error_of(kMemory + "output: o\n", {"data.train_source=a.src"})
                .find("data.train_source: model.kind memn2n reads stories and questions"),
            std::string::npos);
  EXPECT_NE(error_of(kMemory + "output: o\n", {"training.metric=bleu"})
                .find("model.kind memn2n answers questions: use loss or error"),
            std::string::npos);
  EXPECT_NE(error_of(kMemory + "output: o\n",
                     {"training.linear_start=true", "data.babi.dev_fraction=0"})
                .find("training.linear_start: linear start ends when the dev loss stops falling"),
            std::string::npos);
  EXPECT_NE(error_of(kMemory + "output: o\n", {"model.hops=0"}).find("model.hops"),
            std::string::npos);
  EXPECT_NE(error_of(kMemory + "output: o\n", {"model.enc_hidden=64"})
                .find("model.enc_hidden: not used by model.kind memn2n"),
            std::string::npos);
  EXPECT_EQ(error_of(kText + "output: o\n", {"model.hops=2"}),
            "--set: model.hops: not used by model.kind luong (used by: memn2n); remove it");
  EXPECT_EQ(error_of(kText + "output: o\n", {"data.babi.tasks=1"}),
            "--set: data.babi.tasks: not used by model.kind luong (used by: memn2n); remove it");
}

// The bAbI task list and the precision are the config's to refuse (at their keys, before
// training reads a file; heed train exits 2: tests/bad_inputs' babi-tasks-*).
TEST(ConfigKeys, TheMemoryNetworksTaskListAndPrecision) {
  const std::string expected =
      "; expected \"all\" or a comma list of task numbers and ranges in 1..20, such as "
      "\"1,2,5-7\"";
  EXPECT_EQ(error_of("data:\n  babi:\n    dir: b\n    tasks: \"0\"\nmodel:\n  kind: memn2n\n"
                     "output: o\n"),
            "cfg.yaml:4: data.babi.tasks: bAbI tasks \"0\": task 0 is outside 1..20" + expected);
  EXPECT_EQ(error_of(kMemory + "output: o\n", {"data.babi.tasks=1,1"}),
            "--set: data.babi.tasks: bAbI tasks \"1,1\": task 1 is given twice" + expected);
  EXPECT_EQ(error_of(kMemory + "output: o\n", {"data.babi.tasks=21"}),
            "--set: data.babi.tasks: bAbI tasks \"21\": task 21 is outside 1..20" + expected);
  EXPECT_EQ(error_of(kMemory + "output: o\n", {"data.babi.tasks=1-3,19"}), "");
  EXPECT_EQ(error_of(kMemory + "output: o\n", {"training.precision=bf16"}),
            "--set: training.precision: model.kind memn2n trains in fp32 (its products are "
            "small)");
}

}  // namespace
}  // namespace heed
