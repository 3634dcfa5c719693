// GRU and LSTM layers against the PyTorch reference (tests/golden/{gru,lstm2,bigru_packed}):
// the weights are loaded by their PyTorch names, the forward outputs and the gradients of
// L = sum_X sum(out.X * seed.X) with respect to every parameter and float input must match
// within |a - ref| <= tol * (1 + max |ref|) per tensor, in float64 and in float32.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "heed/nn/rnn.h"
#include "support/golden.h"

namespace heed {
namespace {
using testing::GoldenCase;

class GoldenRnn : public ::testing::TestWithParam<DType> {};

TEST_P(GoldenRnn, GruWithInitialState) {
  GoldenCase c("gru", GetParam());
  Rng rng(1);
  GRU gru(3, 4, {.dtype = c.dtype()}, rng);
  c.load(gru);
  Var x = c.input("x"), h0 = c.input("h0");
  RnnOutput r = gru.forward(x, std::vector<std::int32_t>(3, 5), rng, h0);
  c.check({{"output", r.output}, {"h_n", r.h_n}});
}

TEST_P(GoldenRnn, TwoLayerLstmWithInitialState) {
  GoldenCase c("lstm2", GetParam());
  Rng rng(2);
  LSTM lstm(3, 5, {.num_layers = 2, .dtype = c.dtype()}, rng);
  c.load(lstm);
  Var x = c.input("x"), h0 = c.input("h0"), c0 = c.input("c0");
  RnnOutput r = lstm.forward(x, std::vector<std::int32_t>(3, 4), rng, h0, c0);
  c.check({{"output", r.output}, {"h_n", r.h_n}, {"c_n", r.c_n}});
}

// Packed sequences with unsorted lengths [3, 5, 2]: zero outputs at padding, the reverse
// direction starting at each sequence's own last token.
TEST_P(GoldenRnn, BidirectionalGruWithPadding) {
  GoldenCase c("bigru_packed", GetParam());
  Rng rng(3);
  GRU gru(3, 4, {.bidirectional = true, .dtype = c.dtype()}, rng);
  c.load(gru);
  Var x = c.input("x");
  RnnOutput r = gru.forward(x, c.lengths<std::int32_t>(), rng);
  c.check({{"output", r.output}, {"h_n", r.h_n}});
}

INSTANTIATE_TEST_SUITE_P(Dtypes, GoldenRnn, ::testing::Values(DType::f64, DType::f32),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

}  // namespace
}  // namespace heed
