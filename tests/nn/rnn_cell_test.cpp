#include "heed/nn/rnn_cell.h"

#include <gtest/gtest.h>

#include "autograd/rnn_reference.h"
#include "heed/autograd/gru.h"
#include "support/gradcheck.h"

namespace heed {
namespace {
using testing::gradcheck;
using testing::join;
using testing::random_var;

TEST(GRUCell, PyTorchNamesShapesAndInit) {
  Rng rng(1);
  GRUCell cell(5, 4, true, rng);
  auto params = cell.named_parameters();
  ASSERT_EQ(params.size(), 4u);
  EXPECT_EQ(params[0].first, "weight_ih");
  EXPECT_EQ(params[1].first, "weight_hh");
  EXPECT_EQ(params[2].first, "bias_ih");
  EXPECT_EQ(params[3].first, "bias_hh");
  EXPECT_EQ(cell.weight_ih.shape(), Shape({12, 5}));
  EXPECT_EQ(cell.weight_hh.shape(), Shape({12, 4}));
  EXPECT_EQ(cell.bias_hh.shape(), Shape({12}));
  for (auto& [name, v] : params)
    for (double x : v.value().to_vector()) EXPECT_LE(std::abs(x), 0.5) << name;  // 1/sqrt(4)
  GRUCell no_bias(5, 4, false, rng);
  EXPECT_EQ(no_bias.named_parameters().size(), 2u);
}

TEST(GRUCell, ForwardAndGradient) {
  Rng rng(2);
  GRUCell cell(3, 4, true, rng, DType::f64);
  Var x = random_var({2, 3}, 1), h = random_var({2, 4}, 2);
  Tensor y = cell.forward(x, h).value();
  Tensor want =
      gru_cell(x, h, cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh).value();
  EXPECT_TRUE(testing::all_close(y, want, 0, 0));
  // Undefined h means zeros, as PyTorch's hx=None.
  Var zeros(Tensor::zeros({2, 4}, DType::f64));
  EXPECT_TRUE(testing::all_close(cell.forward(x, Var()).value(), cell.forward(x, zeros).value(), 0, 0));
  std::vector<Var> inputs = cell.parameters();
  inputs.push_back(x);
  inputs.push_back(h);
  EXPECT_TRUE(gradcheck([&] { return cell.forward(x, h); }, inputs));
}

TEST(LSTMCell, ForwardMatchesNaiveLoopAndGradient) {
  Rng rng(3);
  LSTMCell cell(3, 4, true, rng, DType::f64);
  EXPECT_EQ(cell.weight_ih.shape(), Shape({16, 3}));
  EXPECT_EQ(cell.named_parameters()[3].first, "bias_hh");
  Var x = random_var({2, 3}, 1), h = random_var({2, 4}, 2), c = random_var({2, 4}, 3);
  LstmState s = cell.forward(x, {h, c});
  testing::RefWeights w =
      testing::ref_weights(cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh);
  std::vector<double> xs = x.value().to_vector(), hs = h.value().to_vector(),
                      cs = c.value().to_vector();
  for (std::int64_t b = 0; b < 2; ++b) {
    std::vector<double> hb(hs.begin() + b * 4, hs.begin() + b * 4 + 4),
        cb(cs.begin() + b * 4, cs.begin() + b * 4 + 4);
    testing::ref_step(true, w, 3, 4, xs.data() + b * 3, hb, cb);
    for (std::int64_t j = 0; j < 4; ++j) {
      EXPECT_NEAR(s.h.value().at({b, j}), hb[j], 1e-12);
      EXPECT_NEAR(s.c.value().at({b, j}), cb[j], 1e-12);
    }
  }
  std::vector<Var> inputs = cell.parameters();
  inputs.insert(inputs.end(), {x, h, c});
  EXPECT_TRUE(gradcheck(
      [&] {
        LstmState r = cell.forward(x, {h, c});
        return join({r.h, r.c});
      },
      inputs));
  LstmState z = cell.forward(x, {});
  EXPECT_EQ(z.h.shape(), Shape({2, 4}));
}

TEST(GRUCell, ProjectOnceStepMany) {
  // A decoder projects the inputs of all steps in one GEMM and steps on time slices.
  Rng rng(4);
  GRUCell cell(3, 2, true, rng, DType::f64);
  Var xs = random_var({2, 4, 3}, 5);
  Var proj = cell.project_input(xs);  // (2, 4, 6)
  Var h, h_ref;
  for (std::int64_t t = 0; t < 4; ++t) {
    h = cell.step(Var(proj.value().select(1, t)), h);
    h_ref = cell.forward(Var(xs.value().select(1, t).contiguous()), h_ref);
  }
  EXPECT_TRUE(testing::all_close(h.value(), h_ref.value(), 1e-14, 0));
}

}  // namespace
}  // namespace heed
