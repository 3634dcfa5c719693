#include "heed/store/checkpoint.h"

#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "support/golden.h"

namespace heed {
namespace {

namespace fs = std::filesystem;

// A module with PyTorch-style names: "weight", "bias", "inner.scale".
class Inner : public Module {
 public:
  explicit Inner(DType dtype) { scale = register_parameter("scale", Tensor::full({3}, 2.0, dtype)); }
  Var scale;
};

class Outer : public Module {
 public:
  explicit Outer(DType dtype = DType::f32) : inner(dtype) {
    weight = register_parameter("weight", Tensor::from({2, 3}, {1, 2, 3, 4, 5, 6}, dtype));
    bias = register_parameter("bias", Tensor::from({2}, {-1, -2}, dtype));
    register_module("inner", inner);
  }
  Var weight, bias;
  Inner inner;
};

class CheckpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("heed_checkpoint_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST_F(CheckpointTest, SaveModuleAndLoadIntoRoundTripByName) {
  Outer a;
  save_module(a, path("m.safetensors"), {{"model", "outer"}});
  const SafeTensorsFile f = load_safetensors(path("m.safetensors"));
  ASSERT_EQ(f.tensors.size(), 3u);
  EXPECT_EQ(f.tensors[2].first, "inner.scale");

  Outer b(DType::f64);  // the file's f32 values are converted
  b.weight.mutable_value().fill(0);
  b.inner.scale.mutable_value().fill(0);
  const Metadata meta = load_into(b, path("m.safetensors"));
  EXPECT_EQ(meta.at("model"), "outer");
  EXPECT_EQ(b.weight.value().to_vector(), a.weight.value().to_vector());
  EXPECT_EQ(b.inner.scale.value().to_vector(), (std::vector<double>{2, 2, 2}));
  EXPECT_EQ(b.weight.dtype(), DType::f64);
}

TEST_F(CheckpointTest, LoadIntoIsStrictAndListsEveryProblem) {
  Outer m;
  save_safetensors(path("bad.safetensors"),
                   {{"weight", Tensor::zeros({3, 2})},      // wrong shape
                    {"inner.scale", Tensor::zeros({3})},
                    {"extra.one", Tensor::zeros({1})},      // unexpected
                    {"extra.two", Tensor::zeros({1})}});    // and "bias" is missing
  const std::string what = error_of([&] { load_into(m, path("bad.safetensors")); });
  EXPECT_NE(what.find(path("bad.safetensors")), std::string::npos) << what;
  EXPECT_NE(what.find("missing: bias"), std::string::npos) << what;
  EXPECT_NE(what.find("unexpected: extra.one, extra.two"), std::string::npos) << what;
  EXPECT_NE(what.find("shape mismatch: weight (3, 2) (model (2, 3))"), std::string::npos) << what;
  // Nothing was changed, not even the tensor that matched.
  EXPECT_EQ(m.inner.scale.value().to_vector(), (std::vector<double>{2, 2, 2}));
}

TEST_F(CheckpointTest, LoadsGoldenWeightsUnderPyTorchNames) {
  // The golden files keep a module's parameters under "param." + its PyTorch name.
  const SafeTensorsFile g = testing::load_golden("attention_general");
  class General : public Module {
   public:
    General() { register_module("W_a", linear); }
    class Lin : public Module {
     public:
      Lin() { weight = register_parameter("weight", Tensor::zeros({4, 6}, DType::f64)); }
      Var weight;
    } linear;
  } att;
  load_into(att, testing::golden_group(g, "param."), "attention_general");
  testing::expect_close_to_golden(att.linear.weight.value(), g.get("param.W_a.weight"),
                                  "W_a.weight", 0.0);
}

}  // namespace
}  // namespace heed
