// heed::Trainer (include/heed/trainer.h): the config checked when the Trainer is made, the
// progress callback called once per step with the run's numbers, the stop token saving a
// state that a second train() resumes, and errors as heed::Error naming what is wrong.
#include <heed/trainer.h>

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <sstream>
#include <stop_token>
#include <string>
#include <vector>

#include "api/trained_model.h"
#include "heed/kernels/gemm.h"

namespace heed {
namespace {

using testing::ScratchDir;

TEST(Trainer, ReportsEveryStepAndWritesTheModelDirectory) {
  ScratchDir dir("heed_api");
  Trainer trainer = Trainer::from_yaml(testing::reversal_config(dir, 20));
  EXPECT_EQ(trainer.model_dir(), dir.path("model"));
  EXPECT_NE(trainer.config_yaml().find("max_steps: 20"), std::string::npos);
  std::vector<Trainer::Progress> seen;
  std::ostringstream log;
  trainer.set_log(&log);
  const Trainer::Result r = trainer.train([&](const Trainer::Progress& p) { seen.push_back(p); });
  EXPECT_EQ(r.outcome, Trainer::Outcome::finished);
  EXPECT_EQ(r.step, 20);
  EXPECT_TRUE(r.has_best);
  EXPECT_EQ(r.model_dir, dir.path("model"));
  ASSERT_EQ(seen.size(), 20u);
  int validations = 0;
  for (std::size_t i = 0; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i].step, static_cast<std::int64_t>(i + 1));
    EXPECT_EQ(seen[i].total_steps, 20);
    EXPECT_TRUE(std::isfinite(seen[i].loss) && seen[i].loss > 0) << seen[i].loss;
    EXPECT_GT(seen[i].learning_rate, 0);
    if (i > 0) {
      EXPECT_GE(seen[i].seconds, seen[i - 1].seconds);
    }
    EXPECT_EQ(seen[i].validated, seen[i].step % 10 == 0) << "step " << seen[i].step;
    validations += seen[i].validated;
  }
  EXPECT_EQ(validations, 2);
  EXPECT_TRUE(seen[9].new_best);  // the first validation is the best so far
  EXPECT_EQ(seen.back().dev_score == r.best_score, r.best_step == 20);
  EXPECT_TRUE(std::filesystem::exists(dir.path("model/best.safetensors")));
  EXPECT_NE(log.str().find("stopped at step 20"), std::string::npos) << log.str();
}

// training.threads holds for the run only: the calling thread gets its kernels' thread count
// back, so that translating afterwards in the same program runs as before it trained.
TEST(Trainer, GivesTheCallersThreadCountBack) {
  ScratchDir dir("heed_api");
  std::string yaml = testing::reversal_config(dir, 2);
  yaml.replace(yaml.find("training:\n"), 10, "training:\n  threads: 1\n");
  const kernels::ScopedNumThreads two(2);
  ASSERT_EQ(kernels::num_threads(), 2);
  EXPECT_EQ(Trainer::from_yaml(yaml).train().outcome, Trainer::Outcome::finished);
  EXPECT_EQ(kernels::num_threads(), 2);
}

TEST(Trainer, StopTokenSavesTheStateAndTrainResumesIt) {
  ScratchDir dir("heed_api");
  const std::string yaml = testing::reversal_config(dir, 12);
  std::stop_source stop;
  Trainer first = Trainer::from_yaml(yaml);
  const Trainer::Result r1 = first.train(
      [&](const Trainer::Progress& p) {
        if (p.step == 5) stop.request_stop();
      },
      stop.get_token());
  EXPECT_EQ(r1.outcome, Trainer::Outcome::stopped);
  EXPECT_EQ(r1.step, 5);
  std::vector<std::int64_t> steps;
  const Trainer::Result r2 =
      Trainer::from_yaml(yaml).train([&](const Trainer::Progress& p) { steps.push_back(p.step); });
  EXPECT_EQ(r2.outcome, Trainer::Outcome::finished);
  EXPECT_EQ(r2.step, 12);
  ASSERT_FALSE(steps.empty());
  EXPECT_EQ(steps.front(), 6);  // resumed, not restarted
  EXPECT_EQ(steps.back(), 12);
}

TEST(Trainer, BadConfigsAreErrorsNamingTheKey) {
  ScratchDir dir("heed_api");
  const std::string yaml = testing::reversal_config(dir);
  try {
    Trainer::from_yaml(yaml, {"training.lr=-1"});
    FAIL() << "a negative learning rate was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("lr"), std::string::npos) << e.what();
  }
  try {
    Trainer::from_yaml(yaml + "modle: {}\n", {}, "mine.yaml");
    FAIL() << "an unknown key was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("modle"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("mine.yaml"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Trainer::from_file(dir.path("missing.yaml")), Error);
  // Data that is not there is found by train(), before any step, as heed::Error.
  Trainer t = Trainer::from_yaml(yaml, {"data.train_source=" + dir.path("nothing.src")});
  EXPECT_THROW(t.train(), Error);
}

}  // namespace
}  // namespace heed
