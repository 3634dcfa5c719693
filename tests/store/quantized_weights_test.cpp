// Quantised weights files (store/quantized_weights.h): int8 values and scales written as
// safetensors I8 + F32 and read back exactly, the dequantised weights, the refusals (a reader
// not asking for I8, an unknown layout, damaged scales or values).
#include "heed/store/quantized_weights.h"

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "heed/base/error.h"
#include "heed/kernels/int8_quantize.h"
#include "support/gradcheck.h"

namespace heed {
namespace {

namespace fs = std::filesystem;

class QuantizedWeights : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("heed_quantized_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // A (37 x 29) weight, a bias and a 3-D tensor (left as it is).
  static NamedTensors weights() {
    const auto w = testing::random_floats(37 * 29, 5);
    const auto b = testing::random_floats(37, 6);
    const auto c = testing::random_floats(2 * 3 * 4, 7);
    return {{"layer.weight", Tensor::from({37, 29}, std::vector<double>(w.begin(), w.end()))},
            {"layer.bias", Tensor::from({37}, std::vector<double>(b.begin(), b.end()))},
            {"cube", Tensor::from({2, 3, 4}, std::vector<double>(c.begin(), c.end()))}};
  }
  // Quantised and written with the format's metadata; returns the file.
  std::string write_quantized(const NamedTensors& tensors, Metadata meta = {}) const {
    std::set<std::string> int8;
    const NamedTensors q = quantize_tensors(tensors, int8);
    if (!meta.count(quantized_keys::kFormat)) meta[quantized_keys::kFormat] = quantized_keys::kInt8Rows;
    const std::string p = path("q.safetensors");
    save_safetensors(p, q, meta, int8);
    return p;
  }
  static SafeTensorsFile read_int8(const std::string& p) {
    SafeTensorsLoadOptions o;
    o.read_int8 = true;
    return load_safetensors(p, o);
  }
  fs::path dir_;
};

TEST_F(QuantizedWeights, RoundTripKeepsTheInt8ValuesAndScalesExactly) {
  const NamedTensors w = weights();
  const std::string p = write_quantized(w);
  // What the kernels quantise: the same int8 values and scales.
  std::vector<std::int8_t> q(37 * 29);
  std::vector<float> s(37);
  kernels::quantize_weight_rows(w[0].second.data<float>(), 37, 29, 29, q.data(), s.data());

  const SafeTensorsFile raw = read_int8(p);  // as stored
  EXPECT_EQ(raw.metadata.at(quantized_keys::kFormat), quantized_keys::kInt8Rows);
  ASSERT_EQ(raw.tensors.size(), 4u);
  const Tensor& values = raw.get("layer.weight");
  const Tensor& scales = raw.get("layer.weight.int8_scale");
  for (std::size_t i = 0; i < q.size(); ++i) ASSERT_EQ(values.data<float>()[i], q[i]) << i;
  for (std::size_t r = 0; r < s.size(); ++r) ASSERT_EQ(scales.data<float>()[r], s[r]) << r;

  SafeTensorsFile file = read_int8(p);
  EXPECT_TRUE(is_quantized(file.metadata));
  EXPECT_TRUE(is_quantized_file(p));
  dequantize_file(file);
  ASSERT_EQ(file.tensors.size(), 3u);  // the scales are gone
  const Tensor& W = file.get("layer.weight");
  double worst = 0;
  for (std::int64_t r = 0; r < 37; ++r)
    for (std::int64_t c = 0; c < 29; ++c) {
      const float got = W.data<float>()[r * 29 + c];
      ASSERT_EQ(got, q[static_cast<std::size_t>(r * 29 + c)] * s[static_cast<std::size_t>(r)]);
      worst = std::max(worst, std::fabs(double(got) - w[0].second.data<float>()[r * 29 + c]) /
                                  s[static_cast<std::size_t>(r)]);
    }
  EXPECT_LE(worst, 0.5 + 1e-4);  // within half a step of the fp32 weight
  // The bias and the 3-D tensor, bit for bit.
  for (const char* name : {"layer.bias", "cube"}) {
    const Tensor& a = file.get(name);
    const Tensor* b = nullptr;
    for (const auto& [n, t] : w)
      if (n == name) b = &t;
    ASSERT_EQ(a.shape(), b->shape());
    for (std::int64_t i = 0; i < a.numel(); ++i)
      ASSERT_EQ(a.data<float>()[i], b->data<float>()[i]) << name;
  }
  // Stored as one byte a weight: the file is far smaller than fp32's.
  save_safetensors(path("f.safetensors"), w);
  const double ratio = double(fs::file_size(p)) / double(fs::file_size(path("f.safetensors")));
  EXPECT_LT(ratio, 0.45);  // tiny tensors: the header weighs; a real model is ~0.26
}

TEST_F(QuantizedWeights, AReaderNotAskingForInt8RefusesItNamingQuantize) {
  const std::string p = write_quantized(weights());
  try {
    load_safetensors(p);
    FAIL() << "an I8 tensor was read as if it were fp32";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("has dtype I8: int8 weights, as heed quantize writes"),
              std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(is_quantized_file(path("nothing.safetensors")));
}

TEST_F(QuantizedWeights, AnUnknownLayoutIsRefusedAsNewer) {
  const std::string p = write_quantized(weights(), {{quantized_keys::kFormat, "int4-rows/2"}});
  SafeTensorsFile file = read_int8(p);
  try {
    dequantize_file(file);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("weights stored as 'int4-rows/2'"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("a newer heed wrote it"), std::string::npos);
  }
}

TEST_F(QuantizedWeights, DamagedScalesAndValuesAreRefused) {
  const Metadata meta = {{quantized_keys::kFormat, quantized_keys::kInt8Rows}};
  const std::string p = path("bad.safetensors");
  auto refused = [&](const NamedTensors& t, const std::set<std::string>& int8,
                     const std::string& expected) {
    save_safetensors(p, t, meta, int8);
    SafeTensorsFile file = read_int8(p);
    try {
      dequantize_file(file);
      ADD_FAILURE() << "accepted; expected: " << expected;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  };
  const Tensor q = Tensor::from({2, 2}, {1, -2, 127, 0});
  refused({{"w.int8_scale", Tensor::from({2}, {0.5, 0.5})}}, {},
          "scale tensor 'w.int8_scale' without its weight 'w'");
  refused({{"w", q}, {"w.int8_scale", Tensor::from({3}, {0.5, 0.5, 0.5})}}, {"w"},
          "has shape (3), expected (2) F32");
  refused({{"w", q}, {"w.int8_scale", Tensor::from({2}, {0.5, -1})}}, {"w"},
          "row 1 is -1, expected a finite scale >= 0");
  refused({{"w", Tensor::from({2, 2}, {1, 2.5, 3, 4})}, {"w.int8_scale", Tensor::from({2}, {1, 1})}},
          {}, "holds 2.5 at row 0, column 1: expected int8 values");
  // The writer stores as I8 only integers in [-128, 127].
  EXPECT_THROW(save_safetensors(p, {{"w", Tensor::from({2}, {1, 300})}}, {}, {"w"}), Error);
  EXPECT_THROW(save_safetensors(p, {{"w", Tensor::from({2}, {1, 0.5})}}, {}, {"w"}), Error);
}

}  // namespace
}  // namespace heed
