// model.kind las with model.attention.mode none (the no-attention baseline of the spoken-words
// recipe, docs/MODELS.md#listen-attend-and-spell) end to end: heed train writes a model without
// attention parameters, heed info says it has none, heed eval --speech and heed transcribe read
// it, and heed show --audio refuses it by name without writing anything. A few steps on the
// tone sequences of support/tone_speech.h: what it learns is the attention model's test.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "cli/cli_test_util.h"
#include "heed/base/random.h"
#include "support/tone_speech.h"

namespace heed {
namespace {

using testing::run_heed;
using testing::ScratchDir;

TEST(LasNoAttention, TrainsEvaluatesAndIsRefusedByShow) {
  if (!std::filesystem::exists(testing::heed_binary()))
    GTEST_SKIP() << testing::heed_binary() << " not built (ninja heed_cli)";
  ScratchDir dir("heed_las_noattn");
  Rng rng(5);
  testing::write_tone_split(dir, "train", 40, rng);
  testing::write_tone_split(dir, "dev", 4, rng);
  const std::string config = testing::tone_config(dir);
  const auto trained = run_heed("train " + config + " --set model.attention.mode=none "
                                "--set training.max_steps=10 --set training.warmup_steps=5 "
                                "--set training.validate_every=10");
  ASSERT_EQ(trained.exit_code, 0) << trained.output;
  const std::string model = dir.path("model");

  const auto info = run_heed("info -m '" + model + "'");
  ASSERT_EQ(info.exit_code, 0) << info.output;
  EXPECT_NE(info.output.find("no attention (the listener's final states)"), std::string::npos)
      << info.output;
  EXPECT_NE(info.output.find("\n  listener "), std::string::npos) << info.output;
  EXPECT_EQ(info.output.find("\n  attention "), std::string::npos) << info.output;  // no weights

  const auto eval = run_heed("eval -m '" + model + "' --speech '" + dir.path("dev.tsv") + "'");
  ASSERT_EQ(eval.exit_code, 0) << eval.output;
  EXPECT_NE(eval.output.find("of 4 utterances"), std::string::npos) << eval.output;
  const auto transcribed =
      run_heed("transcribe -m '" + model + "' '" + dir.path("dev/0.wav") + "'");
  EXPECT_EQ(transcribed.exit_code, 0) << transcribed.output;

  const auto shown = run_heed("show -m '" + model + "' --audio '" + dir.path("dev/0.wav") +
                              "' --out '" + dir.path("show") + "'");
  EXPECT_EQ(shown.exit_code, 1) << shown.output;
  EXPECT_NE(shown.output.find(model + ": a las model with model.attention.mode none has no "
                                      "attention to draw"),
            std::string::npos)
      << shown.output;
  EXPECT_FALSE(std::filesystem::exists(dir.path("show")));
}

}  // namespace
}  // namespace heed
