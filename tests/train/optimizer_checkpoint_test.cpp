#include "heed/train/optimizer_checkpoint.h"

#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "heed/base/random.h"
#include "heed/tensor/safetensors.h"
#include "heed/train/adam.h"
#include "heed/train/training_state.h"

namespace heed {
namespace {

namespace fs = std::filesystem;

class Outer : public Module {
 public:
  explicit Outer(DType dtype) {
    weight = register_parameter("weight", Tensor::from({2, 3}, {1, 2, 3, 4, 5, 6}, dtype));
    scale = register_parameter("scale", Tensor::full({3}, 2.0, dtype));
  }
  Var weight, scale;
};

class CheckpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("heed_optimizer_checkpoint_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

TEST_F(CheckpointTest, CheckpointResumesModelAndOptimizer) {
  Outer a(DType::f64);
  AdamW opt_a(a.parameters(), AdamOptions{});
  for (auto& p : a.parameters()) p.grad_buffer().fill(0.5);
  opt_a.step();
  save_checkpoint(path("c.safetensors"), a, opt_a, {{"step", "1"}});

  Outer b(DType::f64);
  AdamW opt_b(b.parameters(), AdamOptions{});
  const Metadata meta = load_checkpoint(path("c.safetensors"), b, opt_b);
  EXPECT_EQ(meta.at("step"), "1");
  EXPECT_EQ(opt_b.step_count(0), 1);
  for (auto* m : {&a, &b}) {
    for (auto& p : m->parameters()) p.grad_buffer().fill(-0.25);
  }
  opt_a.step();
  opt_b.step();
  EXPECT_EQ(a.weight.value().to_vector(), b.weight.value().to_vector());
  EXPECT_EQ(a.scale.value().to_vector(), b.scale.value().to_vector());

  // A checkpoint of another model is refused and leaves the optimizer as it was.
  Outer c(DType::f64);
  save_safetensors(path("other.safetensors"), {{"weight", Tensor::zeros({2, 3}, DType::f64)}});
  EXPECT_THROW(load_checkpoint(path("other.safetensors"), c, opt_b), Error);
  EXPECT_EQ(opt_b.step_count(0), 2);
}

TEST_F(CheckpointTest, OptimizerPrefixIsReserved) {
  class Clash : public Module {
   public:
    Clash() { w = register_parameter("optimizer.w", Tensor::zeros({2}, DType::f64)); }
    Var w;
  } m;
  AdamW opt(m.parameters(), AdamOptions{});
  EXPECT_THROW(save_checkpoint(path("c.safetensors"), m, opt), Error);
  EXPECT_FALSE(fs::exists(path("c.safetensors")));
}

// The training-loss window since the last validation is part of the training state, so a
// resumed run reports the same train_loss; states written before it was (no such keys)
// still load, with an empty window, and are recognised as such (their history's epochs
// count from 0).
TEST_F(CheckpointTest, TrainingStateKeepsTheLossWindowAndOldStatesLoad) {
  Outer a(DType::f64);
  AdamW opt(a.parameters(), AdamOptions{});
  TrainingState s;
  s.step = 7;
  s.rng_state = Rng(3).state();
  s.position.rng_state = Rng(4).state();
  s.window_loss = 12.375;
  s.window_tokens = 42;
  save_training_state(path("state.safetensors"), a, opt, s);
  const TrainingState back = read_training_state(path("state.safetensors"));
  EXPECT_EQ(back.step, 7);
  EXPECT_EQ(back.window_loss, 12.375);
  EXPECT_EQ(back.window_tokens, 42);
  EXPECT_TRUE(back.has_window);

  SafeTensorsFile file = load_safetensors(path("state.safetensors"));
  file.metadata.erase("heed.window_loss");
  file.metadata.erase("heed.window_tokens");
  save_safetensors(path("old.safetensors"), file.tensors, file.metadata);
  const TrainingState old = read_training_state(path("old.safetensors"));
  EXPECT_EQ(old.step, 7);
  EXPECT_EQ(old.window_loss, 0.0);
  EXPECT_EQ(old.window_tokens, 0);
  EXPECT_FALSE(old.has_window);
}

}  // namespace
}  // namespace heed
