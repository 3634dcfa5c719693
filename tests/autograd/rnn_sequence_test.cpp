#include "heed/autograd/rnn_sequence.h"

#include <gtest/gtest.h>

#include "autograd/rnn_reference.h"
#include "heed/autograd/tape.h"
#include "heed/kernels/gemm.h"
#include "support/gradcheck.h"

namespace heed {
namespace {
using testing::gradcheck;
using testing::join;
using testing::random_var;

struct Net {
  RnnSequenceOptions opt;
  std::int64_t in, H;
  std::vector<RnnWeights> w;
  std::vector<Var> params() const {
    std::vector<Var> v;
    for (const RnnWeights& k : w)
      for (const Var* p : {&k.w_ih, &k.w_hh, &k.b_ih, &k.b_hh})
        if (p->defined()) v.push_back(*p);
    return v;
  }
};

Net make_net(RnnCell cell, std::int64_t in, std::int64_t H, int layers, bool bi,
             bool bias = true, std::uint64_t seed = 100) {
  Net n{{cell, layers, bi, 0.0, false}, in, H, {}};
  const std::int64_t G = (cell == RnnCell::lstm ? 4 : 3) * H, dirs = bi ? 2 : 1;
  for (int l = 0; l < layers; ++l)
    for (int d = 0; d < dirs; ++d) {
      const std::int64_t lin = l == 0 ? in : dirs * H;
      RnnWeights w{random_var({G, lin}, seed++), random_var({G, H}, seed++), Var(), Var()};
      if (bias) {
        w.b_ih = random_var({G}, seed++);
        w.b_hh = random_var({G}, seed++);
      }
      n.w.push_back(w);
    }
  return n;
}

// Forward values against the naive per-sequence loop (PyTorch packed semantics).
void check_against_reference(const Net& n, const Var& x, const std::vector<std::int32_t>& lengths,
                             const Var& h0 = Var(), const Var& c0 = Var()) {
  const bool lstm = n.opt.cell == RnnCell::lstm;
  RnnSequenceOutput r = rnn_sequence(n.opt, x, lengths, n.w, nullptr, h0, c0);
  const std::int64_t B = x.dim(0), T = x.dim(1), dirs = n.opt.bidirectional ? 2 : 1,
                     D = dirs * n.H, K = n.opt.num_layers * dirs;
  ASSERT_EQ(r.output.shape(), Shape({B, T, D}));
  ASSERT_EQ(r.h_n.shape(), Shape({K, B, n.H}));
  ASSERT_EQ(r.c_n.defined(), lstm);
  std::vector<testing::RefWeights> rw;
  for (const RnnWeights& w : n.w) rw.push_back(testing::ref_weights(w.w_ih, w.w_hh, w.b_ih, w.b_hh));
  std::vector<double> xs = x.value().to_vector();
  for (std::int64_t b = 0; b < B; ++b) {
    std::vector<double> xb(xs.begin() + b * T * n.in, xs.begin() + (b + 1) * T * n.in);
    std::vector<double> hb, cb;
    for (std::int64_t k = 0; k < K; ++k)
      for (std::int64_t j = 0; j < n.H; ++j) {
        if (h0.defined()) hb.push_back(h0.value().at({k, b, j}));
        if (c0.defined()) cb.push_back(c0.value().at({k, b, j}));
      }
    testing::RefSequence ref = testing::ref_sequence(lstm, rw, n.opt.num_layers,
                                                     n.opt.bidirectional, n.in, n.H, xb,
                                                     lengths[b], hb, cb);
    for (std::int64_t t = 0; t < T; ++t)
      for (std::int64_t j = 0; j < D; ++j) {
        const double want = t < lengths[b] ? ref.output[t * D + j] : 0.0;
        EXPECT_NEAR(r.output.value().at({b, t, j}), want, 1e-12) << "b" << b << " t" << t << " j" << j;
      }
    for (std::int64_t k = 0; k < K; ++k)
      for (std::int64_t j = 0; j < n.H; ++j) {
        EXPECT_NEAR(r.h_n.value().at({k, b, j}), ref.h_n[k * n.H + j], 1e-12) << "h_n " << k;
        if (lstm) {
          EXPECT_NEAR(r.c_n.value().at({k, b, j}), ref.c_n[k * n.H + j], 1e-12) << "c_n " << k;
        }
      }
  }
}

const std::vector<std::int32_t> kLengths{3, 5, 1, 4};  // unsorted, one full, one of 1

TEST(RnnSequence, GruUnidirectionalMatchesNaiveLoop) {
  Net n = make_net(RnnCell::gru, 3, 4, 1, false);
  check_against_reference(n, random_var({4, 5, 3}, 1, -2, 2), kLengths);
}

TEST(RnnSequence, GruBidirectionalMatchesNaiveLoop) {
  Net n = make_net(RnnCell::gru, 3, 4, 1, true);
  check_against_reference(n, random_var({4, 5, 3}, 2, -2, 2), kLengths);
}

TEST(RnnSequence, LstmUnidirectionalMatchesNaiveLoop) {
  Net n = make_net(RnnCell::lstm, 3, 4, 1, false);
  check_against_reference(n, random_var({4, 5, 3}, 3, -2, 2), kLengths);
}

TEST(RnnSequence, StackedBidirectionalMatchesNaiveLoop) {
  for (RnnCell cell : {RnnCell::gru, RnnCell::lstm}) {
    Net n = make_net(cell, 3, 4, 2, true);
    check_against_reference(n, random_var({4, 5, 3}, 4, -2, 2), kLengths);
  }
}

TEST(RnnSequence, InitialStatesAndNoBias) {
  for (RnnCell cell : {RnnCell::gru, RnnCell::lstm}) {
    Net n = make_net(cell, 2, 3, 2, true, /*bias=*/false);
    Var h0 = random_var({4, 4, 3}, 5), c0 = cell == RnnCell::lstm ? random_var({4, 4, 3}, 6) : Var();
    check_against_reference(n, random_var({4, 5, 2}, 7, -2, 2), kLengths, h0, c0);
  }
}

TEST(RnnSequence, ZeroLengthGivesInitialState) {
  Net n = make_net(RnnCell::lstm, 2, 3, 1, true);
  Var h0 = random_var({2, 2, 3}, 8), c0 = random_var({2, 2, 3}, 9);
  check_against_reference(n, random_var({2, 3, 2}, 10), {0, 3}, h0, c0);
}

TEST(RnnSequence, PaddingDoesNotChangeRealPositions) {
  // A sequence alone equals the same sequence inside a padded batch, whatever the padding
  // holds, in every layer and direction.
  for (RnnCell cell : {RnnCell::gru, RnnCell::lstm}) {
    Net n = make_net(cell, 3, 4, 2, true);
    Var batch = random_var({3, 6, 3}, 11, -5, 5);
    const std::vector<std::int32_t> lengths{6, 2, 4};
    RnnSequenceOutput all = rnn_sequence(n.opt, batch, lengths, n.w);
    for (std::int64_t b = 0; b < 3; ++b) {
      const std::int64_t len = lengths[b];
      Tensor one = batch.value().slice(0, b, b + 1).slice(1, 0, len).contiguous();
      RnnSequenceOutput alone = rnn_sequence(n.opt, Var(one), {static_cast<std::int32_t>(len)}, n.w);
      for (std::int64_t t = 0; t < len; ++t)
        for (std::int64_t j = 0; j < 8; ++j)
          EXPECT_EQ(all.output.value().at({b, t, j}), alone.output.value().at({0, t, j}));
      for (std::int64_t k = 0; k < 4; ++k)
        for (std::int64_t j = 0; j < 4; ++j) {
          EXPECT_EQ(all.h_n.value().at({k, b, j}), alone.h_n.value().at({k, 0, j}));
          if (cell == RnnCell::lstm) {
            EXPECT_EQ(all.c_n.value().at({k, b, j}), alone.c_n.value().at({k, 0, j}));
          }
        }
      for (std::int64_t t = len; t < 6; ++t)
        for (std::int64_t j = 0; j < 8; ++j) EXPECT_EQ(all.output.value().at({b, t, j}), 0.0);
    }
  }
}

void check_gradients(RnnCell cell, int layers, bool bi, bool with_initial) {
  Net n = make_net(cell, 3, 3, layers, bi);
  const std::int64_t K = layers * (bi ? 2 : 1);
  Var x = random_var({3, 4, 3}, 12);
  Var h0 = with_initial ? random_var({K, 3, 3}, 13) : Var();
  Var c0 = with_initial && cell == RnnCell::lstm ? random_var({K, 3, 3}, 14) : Var();
  std::vector<Var> inputs = n.params();
  inputs.push_back(x);
  if (h0.defined()) inputs.push_back(h0);
  if (c0.defined()) inputs.push_back(c0);
  const std::vector<std::int32_t> lengths{2, 4, 3};
  EXPECT_TRUE(gradcheck(
      [&] {
        RnnSequenceOutput r = rnn_sequence(n.opt, x, lengths, n.w, nullptr, h0, c0);
        return join({r.output, r.h_n, r.c_n});
      },
      inputs))
      << (cell == RnnCell::lstm ? "lstm" : "gru") << " layers " << layers << " bi " << bi;
}

TEST(RnnSequence, GruGradientCheckUnidirectional) { check_gradients(RnnCell::gru, 1, false, false); }
TEST(RnnSequence, GruGradientCheckBidirectional) { check_gradients(RnnCell::gru, 1, true, true); }
TEST(RnnSequence, LstmGradientCheckUnidirectional) { check_gradients(RnnCell::lstm, 1, false, true); }
TEST(RnnSequence, LstmGradientCheckBidirectional) { check_gradients(RnnCell::lstm, 1, true, false); }
TEST(RnnSequence, StackedBidirectionalGradientCheck) {
  check_gradients(RnnCell::gru, 2, true, true);
  check_gradients(RnnCell::lstm, 2, true, true);
}

TEST(RnnSequence, DirectionsOnTwoThreadsGiveTheSameGradients) {
  // With two threads the two directions of a layer run forward and BPTT on separate threads.
  const int before = kernels::num_threads();
  for (RnnCell cell : {RnnCell::gru, RnnCell::lstm}) {
    kernels::set_num_threads(2);
    check_gradients(cell, 2, true, true);
    kernels::set_num_threads(before);
  }
}

TEST(RnnSequence, GradientOfFinalStateOnly) {
  // Only h_n reaches the loss (an encoder whose outputs are unused).
  Net n = make_net(RnnCell::lstm, 2, 3, 2, true);
  Var x = random_var({2, 3, 2}, 15);
  std::vector<Var> inputs = n.params();
  inputs.push_back(x);
  EXPECT_TRUE(gradcheck([&] { return rnn_sequence(n.opt, x, {3, 2}, n.w).c_n; }, inputs));
}

TEST(RnnSequence, DropoutBetweenLayersGradientCheck) {
  Net n = make_net(RnnCell::gru, 2, 3, 2, true);
  n.opt.dropout = 0.4;
  n.opt.training = true;
  Var x = random_var({2, 3, 2}, 16);
  std::vector<Var> inputs = n.params();
  inputs.push_back(x);
  auto run = [&] {
    Rng rng(5);  // the same mask on every call
    RnnSequenceOutput r = rnn_sequence(n.opt, x, {3, 2}, n.w, &rng);
    return join({r.output, r.h_n});
  };
  EXPECT_TRUE(gradcheck(run, inputs));
  // The mask changes the result; evaluation mode ignores dropout.
  Rng rng(5);
  Tensor dropped = rnn_sequence(n.opt, x, {3, 2}, n.w, &rng).output.value();
  n.opt.training = false;
  Tensor plain = rnn_sequence(n.opt, x, {3, 2}, n.w).output.value();
  EXPECT_FALSE(testing::all_close(dropped, plain, 1e-9, 0));
}

TEST(RnnSequence, OneTapeEntryAndNoGradMode) {
  Net n = make_net(RnnCell::gru, 2, 3, 2, true);
  Var x = random_var({2, 3, 2}, 17);
  Tape::current().clear();
  RnnSequenceOutput r = rnn_sequence(n.opt, x, {3, 1}, n.w);
  EXPECT_EQ(Tape::current().size(), 1u);
  EXPECT_TRUE(r.output.requires_grad() && r.h_n.requires_grad());
  Tape::current().clear();
  NoGradGuard g;
  RnnSequenceOutput q = rnn_sequence(n.opt, x, {3, 1}, n.w);
  EXPECT_EQ(Tape::current().size(), 0u);
  EXPECT_FALSE(q.output.requires_grad());
  EXPECT_TRUE(testing::all_close(q.output.value(), r.output.value(), 0, 0));
  EXPECT_TRUE(testing::all_close(q.h_n.value(), r.h_n.value(), 0, 0));
}

TEST(RnnSequence, FloatMatchesDouble) {
  for (RnnCell cell : {RnnCell::gru, RnnCell::lstm}) {
    Net n = make_net(cell, 5, 8, 2, true);
    Var x = random_var({3, 7, 5}, 18, -2, 2);
    const std::vector<std::int32_t> lengths{7, 3, 5};
    RnnSequenceOutput d = rnn_sequence(n.opt, x, lengths, n.w);
    std::vector<RnnWeights> wf;
    for (const RnnWeights& w : n.w)
      wf.push_back({Var(w.w_ih.value().to(DType::f32)), Var(w.w_hh.value().to(DType::f32)),
                    Var(w.b_ih.value().to(DType::f32)), Var(w.b_hh.value().to(DType::f32))});
    RnnSequenceOutput f = rnn_sequence(n.opt, Var(x.value().to(DType::f32)), lengths, wf);
    EXPECT_TRUE(testing::all_close(f.output.value().to(DType::f64), d.output.value(), 2e-6, 0));
    EXPECT_TRUE(testing::all_close(f.h_n.value().to(DType::f64), d.h_n.value(), 2e-6, 0));
  }
}

TEST(RnnSequence, RejectsBadArguments) {
  Net n = make_net(RnnCell::gru, 2, 3, 1, false);
  Var x = random_var({2, 3, 2}, 19);
  EXPECT_THROW(rnn_sequence(n.opt, x, {3}, n.w), Error);          // lengths count
  EXPECT_THROW(rnn_sequence(n.opt, x, {4, 1}, n.w), Error);       // length > T
  EXPECT_THROW(rnn_sequence(n.opt, random_var({2, 3, 5}, 20), {3, 1}, n.w), Error);  // in size
  RnnSequenceOptions two = n.opt;
  two.num_layers = 2;
  EXPECT_THROW(rnn_sequence(two, x, {3, 1}, n.w), Error);         // missing weights
  EXPECT_THROW(rnn_sequence(n.opt, x, {3, 1}, n.w, nullptr, random_var({1, 2, 4}, 21)), Error);
}

}  // namespace
}  // namespace heed
