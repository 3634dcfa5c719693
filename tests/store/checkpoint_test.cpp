#include "heed/store/checkpoint.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "heed/data/vocabulary.h"
#include "heed/store/vocabulary_checksums.h"
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

TEST_F(CheckpointTest, VocabularyChecksumFollowsTheTokensAndTheirOrder) {
  const Vocabulary v = Vocabulary::from_tokens({"ab", "c"});
  EXPECT_EQ(vocabulary_checksum(v), vocabulary_checksum(Vocabulary::from_tokens({"ab", "c"})));
  EXPECT_EQ(vocabulary_checksum(v).rfind("xxh3-64:", 0), 0u) << vocabulary_checksum(v);
  EXPECT_NE(vocabulary_checksum(v), vocabulary_checksum(Vocabulary::from_tokens({"c", "ab"})));  // swapped
  EXPECT_NE(vocabulary_checksum(v), vocabulary_checksum(Vocabulary::from_tokens({"a", "bc"})));  // re-split
  EXPECT_NE(vocabulary_checksum(v), vocabulary_checksum(Vocabulary()));
}

TEST_F(CheckpointTest, WeightsInAModelDirectoryRecordItsVocabularyChecksums) {
  // A model directory: config.yaml (its contents do not matter here) and the vocabularies.
  fs::create_directories(dir_ / "model" / "checkpoints");
  std::ofstream(path("model/config.yaml")) << "output: model\n";
  const Vocabulary src = Vocabulary::from_tokens({"a", "b"});
  const Vocabulary tgt = Vocabulary::from_tokens({"x", "y"});
  src.save(path("model/src.vocab"));
  tgt.save(path("model/tgt.vocab"));
  Outer m;
  const Metadata kind = {{"heed.model", "bahdanau"}};
  for (const char* file : {"model/best.safetensors", "model/checkpoints/step_5.safetensors"}) {
    save_module(m, path(file), kind);
    const Metadata meta = load_safetensors(path(file)).metadata;
    EXPECT_EQ(meta.at(vocabulary_checksum_keys::kSrc), vocabulary_checksum(src)) << file;
    EXPECT_EQ(meta.at(vocabulary_checksum_keys::kTgt), vocabulary_checksum(tgt)) << file;
  }
  // Outside a model directory, or without the kind, nothing is added.
  save_module(m, path("loose.safetensors"), kind);
  save_module(m, path("model/plain.safetensors"), {{"format", "pt"}});
  EXPECT_EQ(load_safetensors(path("loose.safetensors")).metadata.count(vocabulary_checksum_keys::kTgt), 0u);
  EXPECT_EQ(load_safetensors(path("model/plain.safetensors")).metadata.count(vocabulary_checksum_keys::kTgt), 0u);

  // Two tokens swapped: same size, another checksum, an error naming the vocabulary file.
  const Metadata best = load_safetensors(path("model/best.safetensors")).metadata;
  const Vocabulary swapped = Vocabulary::from_tokens({"y", "x"});
  const std::string what = error_of([&] {
    check_vocabulary_checksum(swapped, "model/tgt.vocab", best, vocabulary_checksum_keys::kTgt,
                              "best.safetensors");
  });
  EXPECT_NE(what.find("model/tgt.vocab is not the vocabulary the weights were trained with"),
            std::string::npos) << what;
  EXPECT_EQ(error_of([&] {
              check_vocabulary_checksum(tgt, "t", best, vocabulary_checksum_keys::kTgt, "w");
            }), "");
  // Weights from before checksums were recorded: nothing to compare, no error.
  EXPECT_EQ(error_of([&] {
              check_vocabulary_checksum(swapped, "t", {}, vocabulary_checksum_keys::kTgt, "w");
            }), "");
}

TEST_F(CheckpointTest, LoadIntoNamesADirectoryOrATorchSaveFile) {
  Outer m;
  fs::create_directories(path("best.safetensors"));
  std::string what = error_of([&] { load_into(m, path("best.safetensors")); });
  EXPECT_NE(what.find("is a directory, expected a weights file"), std::string::npos) << what;
  std::ofstream(path("model.pt"), std::ios::binary) << "PK\x03\x04" "archive/data.pkl";
  what = error_of([&] { load_into(m, path("model.pt")); });
  EXPECT_NE(what.find("torch.save"), std::string::npos) << what;
  EXPECT_NE(what.find("save the state dict as safetensors"), std::string::npos) << what;
  std::ofstream(path("legacy.pt"), std::ios::binary) << "\x80\x02\x8a\x0a" "legacy";
  what = error_of([&] { load_into(m, path("legacy.pt")); });
  EXPECT_NE(what.find("torch.save"), std::string::npos) << what;
  // A safetensors file whose header length starts with the same bytes (0x280 = 640) is one.
  const std::string json = "{\"__metadata__\":{\"x\":\"" + std::string(615, 'y') + "\"}}";
  ASSERT_EQ(json.size(), 640u);
  std::ofstream(path("real.safetensors"), std::ios::binary)
      << std::string("\x80\x02\0\0\0\0\0\0", 8) << json;
  what = error_of([&] { load_into(m, path("real.safetensors")); });
  EXPECT_EQ(what.find("torch.save"), std::string::npos) << what;
  EXPECT_NE(what.find("missing: weight"), std::string::npos) << what;
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
