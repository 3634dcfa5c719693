// MultiHeadAttention and LayerNorm against PyTorch's nn.MultiheadAttention and nn.LayerNorm
// (tests/golden/multi_head_attention, layer_norm: tools/make_goldens.py), in float64 and
// float32: outputs, every head's weights and the gradients of every parameter and input; and
// the pieces (queries, keys_values, attend) against the whole.
#include "heed/nn/multi_head_attention_layer.h"

#include <gtest/gtest.h>

#include "heed/autograd/tape.h"
#include "heed/nn/layer_norm_layer.h"
#include "support/golden.h"
#include "support/gradcheck.h"

namespace heed {
namespace {
using testing::all_close;
using testing::GoldenCase;

class GoldenMultiHead : public ::testing::TestWithParam<DType> {};

TEST_P(GoldenMultiHead, MatchesNnMultiheadAttention) {
  const DType dtype = GetParam();
  GoldenCase c("multi_head_attention", dtype);
  Rng rng(3);
  MultiHeadAttention mha(6, 2, rng, dtype);
  c.load(mha);
  Var query = c.input("query"), memory = c.input("memory"), x = c.input("x");
  MultiHeadOptions cross_options;
  cross_options.heads = 2;
  cross_options.mask.key_lengths = c.lengths();
  MultiHeadOptions self_options;
  self_options.heads = 2;
  self_options.mask.causal = true;
  Tensor cross_weights, self_weights;
  Var cross = mha.forward(query, memory, memory, cross_options, &cross_weights);
  Var self = mha.self_attention(x, self_options, &self_weights);
  const SafeTensorsFile golden = testing::load_golden("multi_head_attention");
  const double tol = testing::golden_tolerance(dtype);
  testing::expect_close_to_golden(cross_weights, golden.get("aux.cross_weights"), "cross_weights", tol);
  testing::expect_close_to_golden(self_weights, golden.get("aux.self_weights"), "self_weights", tol);
  c.check({{"cross", cross}, {"self", self}});
}

TEST_P(GoldenMultiHead, LayerNormMatchesNnLayerNorm) {
  const DType dtype = GetParam();
  GoldenCase c("layer_norm", dtype);
  LayerNorm norm(5, dtype);
  c.load(norm);
  c.check({{"y", norm.forward(c.input("x"))}});
}

INSTANTIATE_TEST_SUITE_P(DTypes, GoldenMultiHead, ::testing::Values(DType::f64, DType::f32),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

TEST(MultiHeadAttentionLayer, PiecesEqualTheWhole) {
  Rng rng(4);
  MultiHeadAttention mha(8, 4, rng, DType::f64);
  Var q = testing::random_var({2, 3, 8}, 1), mem = testing::random_var({2, 5, 8}, 2);
  MultiHeadOptions o;
  o.heads = 4;
  o.mask.key_lengths = {5, 3};
  const Var kv = mha.keys_values(mem, kernels::MatmulPrecision::f32);
  const Var pieces = mha.attend(mha.queries(q, kernels::MatmulPrecision::f32), {kv, 0}, {kv, 8}, o);
  EXPECT_TRUE(all_close(pieces.value(), mha.forward(q, mem, mem, o).value(), 1e-13));
  MultiHeadOptions self;
  self.heads = 4;
  EXPECT_TRUE(all_close(mha.self_attention(q, self).value(), mha.forward(q, q, q, self).value(), 1e-13));
}

TEST(MultiHeadAttentionLayer, GradientCheck) {
  Rng rng(5);
  MultiHeadAttention mha(4, 2, rng, DType::f64);
  Var x = testing::random_var({2, 3, 4}, 3);
  MultiHeadOptions o;
  o.heads = 2;
  o.mask.causal = true;
  std::vector<Var> inputs = mha.parameters();
  inputs.push_back(x);
  EXPECT_TRUE(testing::gradcheck([&] { return mha.self_attention(x, o); }, inputs));
}

TEST(MultiHeadAttentionLayer, RefusesHeadsThatDoNotDivideTheSize) {
  Rng rng(6);
  EXPECT_THROW(MultiHeadAttention(6, 4, rng), Error);
  EXPECT_THROW(LayerNorm(0), Error);
}

}  // namespace
}  // namespace heed
