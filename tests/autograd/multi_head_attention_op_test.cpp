#include "heed/autograd/multi_head_attention_op.h"

#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "heed/autograd/elementwise_op.h"
#include "heed/autograd/index.h"
#include "heed/autograd/reduce_op.h"
#include "heed/autograd/tape.h"
#include "heed/base/error.h"
#include "support/gradcheck.h"

namespace heed {
namespace {
using testing::all_close;
using testing::gradcheck;
using testing::random_var;

// The definition, one head and one query at a time, in double: the weights (B, h, n, m) and
// the output (B, n, dim).
struct Naive {
  std::vector<double> weights, out;
};
Naive naive(const Tensor& q, std::int64_t qc, const Tensor& k, std::int64_t kc, const Tensor& v,
            std::int64_t vc, std::int64_t dim, std::int64_t heads, const AttentionMask& mask) {
  const std::int64_t B = q.dim(0), n = q.dim(1), m = k.dim(1), dh = dim / heads;
  Naive r;
  r.weights.assign(static_cast<std::size_t>(B * heads * n * m), 0.0);
  r.out.assign(static_cast<std::size_t>(B * n * dim), 0.0);
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t h = 0; h < heads; ++h)
      for (std::int64_t i = 0; i < n; ++i) {
        std::vector<double> s(static_cast<std::size_t>(m));
        double top = -std::numeric_limits<double>::infinity();
        for (std::int64_t j = 0; j < m; ++j) {
          double dot = 0;
          for (std::int64_t c = 0; c < dh; ++c)
            dot += q.at({b, i, qc + h * dh + c}) * k.at({b, j, kc + h * dh + c});
          dot /= std::sqrt(static_cast<double>(dh));
          if (mask.additive.defined()) dot += mask.additive.at({i, j});
          const bool padded = !mask.key_lengths.empty() &&
                              j >= mask.key_lengths[static_cast<std::size_t>(b)];
          const bool future = mask.causal && j > i + mask.causal_offset;
          s[static_cast<std::size_t>(j)] = padded || future ? -INFINITY : dot;
          top = std::max(top, s[static_cast<std::size_t>(j)]);
        }
        if (std::isinf(top)) continue;
        double z = 0;
        for (double& x : s) z += x = std::exp(x - top);
        for (std::int64_t j = 0; j < m; ++j) {
          const double w = s[static_cast<std::size_t>(j)] / z;
          r.weights[static_cast<std::size_t>(((b * heads + h) * n + i) * m + j)] = w;
          for (std::int64_t c = 0; c < dh; ++c)
            r.out[static_cast<std::size_t>((b * n + i) * dim + h * dh + c)] +=
                w * v.at({b, j, vc + h * dh + c});
        }
      }
  return r;
}

MultiHeadOptions heads(std::int64_t h, AttentionMask mask = {}) {
  MultiHeadOptions o;
  o.heads = h;
  o.mask = std::move(mask);
  return o;
}

TEST(MultiHeadAttention, MatchesTheDefinitionWithEveryMask) {
  Var q = random_var({2, 3, 6}, 1, -2, 2), k = random_var({2, 4, 6}, 2, -2, 2),
      v = random_var({2, 4, 6}, 3);
  AttentionMask padding;
  padding.key_lengths = {4, 2};
  AttentionMask causal;
  causal.causal = true;
  causal.causal_offset = 1;  // query i reads keys 0..i+1
  AttentionMask additive;
  additive.additive = testing::random_tensor({3, 4}, 4);
  additive.additive.set({0, 3}, -INFINITY);
  additive.key_lengths = {3, 4};
  for (const AttentionMask& mask : {AttentionMask{}, padding, causal, additive})
    for (std::int64_t h : {1, 2, 3}) {
      Tensor weights;
      Var out = multi_head_attention({q}, {k}, {v}, 6, heads(h, mask), &weights);
      const Naive want = naive(q.value(), 0, k.value(), 0, v.value(), 0, 6, h, mask);
      EXPECT_TRUE(all_close(out.value(), Tensor::from({2, 3, 6}, want.out, DType::f64), 1e-12));
      EXPECT_TRUE(all_close(weights, Tensor::from({2, h, 3, 4}, want.weights, DType::f64), 1e-12));
    }
}

TEST(MultiHeadAttention, ReadsColumnBlocksOfOneTensor) {
  // A self-attention's one projection (B, n, 3 d): Q, K, V are its three column blocks.
  Var qkv = random_var({2, 3, 12}, 5, -2, 2);
  Var out = multi_head_attention({qkv, 0}, {qkv, 4}, {qkv, 8}, 4, heads(2));
  const Naive want = naive(qkv.value(), 0, qkv.value(), 4, qkv.value(), 8, 4, 2, {});
  EXPECT_TRUE(all_close(out.value(), Tensor::from({2, 3, 4}, want.out, DType::f64), 1e-12));
}

TEST(MultiHeadAttention, EveryKeyMaskedGivesZerosNotNaN) {
  Var q = random_var({1, 2, 4}, 6), k = random_var({1, 3, 4}, 7), v = random_var({1, 3, 4}, 8);
  AttentionMask mask;
  mask.key_lengths = {0};
  Tensor weights;
  Var out = multi_head_attention({q}, {k}, {v}, 4, heads(2, mask), &weights);
  for (double x : out.value().to_vector()) EXPECT_EQ(x, 0.0);
  for (double x : weights.to_vector()) EXPECT_EQ(x, 0.0);
}

TEST(MultiHeadAttention, GradientCheck) {
  Var q = random_var({2, 3, 6}, 9), k = random_var({2, 4, 6}, 10), v = random_var({2, 4, 6}, 11);
  AttentionMask mask;
  mask.key_lengths = {3, 4};
  mask.causal = true;
  mask.causal_offset = 1;
  mask.additive = testing::random_tensor({3, 4}, 12);
  for (std::int64_t h : {1, 2, 3})
    EXPECT_TRUE(gradcheck([&] { return multi_head_attention({q}, {k}, {v}, 6, heads(h, mask)); },
                          {q, k, v}))
        << h << " heads";
}

TEST(MultiHeadAttention, GradientCheckOfColumnBlocks) {
  // Q, K, V three blocks of one tensor, plus an unused column: its gradient must stay 0.
  Var qkv = random_var({2, 3, 13}, 13);
  EXPECT_TRUE(gradcheck([&] { return multi_head_attention({qkv, 1}, {qkv, 5}, {qkv, 9}, 4, heads(2)); },
                        {qkv}));
  Var mem = random_var({2, 5, 8}, 14), query = random_var({2, 3, 4}, 15);
  AttentionMask padding;
  padding.key_lengths = {5, 2};
  EXPECT_TRUE(gradcheck(
      [&] { return multi_head_attention({query}, {mem, 0}, {mem, 4}, 4, heads(2, padding)); },
      {query, mem}));
}

// Q, K, V exactly the three column blocks of one projection: the backward writes every
// element of its gradient, so it overwrites a buffer nothing has written yet instead of
// adding to a zeroed one (HeadsShape::overwrite_*). Checked with padded and empty key rows,
// with another reader of the tensor whose gradient arrives after the attention's or before
// it, and with a stale buffer (zero_grad leaves the last gradient in it until it is next used).
TEST(MultiHeadAttention, GradientCheckOfTheThreeBlocksOfOneProjection) {
  Var qkv = random_var({3, 4, 12}, 16);
  AttentionMask mask;
  mask.key_lengths = {4, 2, 0};
  mask.causal = true;
  const auto attend = [&] {
    return multi_head_attention({qkv, 0}, {qkv, 4}, {qkv, 8}, 4, heads(2, mask));
  };
  EXPECT_TRUE(gradcheck(attend, {qkv}));
  EXPECT_TRUE(gradcheck([&] { return add(attend(), slice(qkv, 2, 2, 6)); }, {qkv}));
  EXPECT_TRUE(gradcheck(
      [&] {
        const Var other = slice(qkv, 2, 6, 10);
        return add(attend(), other);
      },
      {qkv}));
  const Tensor dO = testing::random_tensor({3, 4, 4}, 17);
  Tensor first;
  for (int pass = 0; pass < 2; ++pass) {
    Tape::current().clear();
    qkv.zero_grad();
    Var out = attend();
    Tape::current().backward(out, dO);
    if (pass == 0) first = qkv.grad().clone();
  }
  Tape::current().clear();
  EXPECT_TRUE(all_close(qkv.grad(), first, 1e-12, 1e-12));
}

TEST(MultiHeadAttention, GradientCheckWithDropoutOnTheWeights) {
  Var q = random_var({2, 3, 4}, 16), k = random_var({2, 5, 4}, 17), v = random_var({2, 5, 4}, 18);
  EXPECT_TRUE(gradcheck(
      [&] {
        Rng rng(99);  // the same mask on every call
        MultiHeadOptions o = heads(2);
        o.dropout = 0.3;
        o.training = true;
        o.rng = &rng;
        return multi_head_attention({q}, {k}, {v}, 4, o);
      },
      {q, k, v}));
}

// The weights as a second output on the tape (copy attention's loss reads them): a loss of
// the weights alone, and of both outputs, with masks and with dropout on the weights (whose
// gradient is that of the weights before dropout).
TEST(MultiHeadAttention, GradientCheckOfTheWeightsOnTheTape) {
  Var q = random_var({2, 3, 6}, 30), k = random_var({2, 4, 6}, 31), v = random_var({2, 4, 6}, 32);
  const Var r_out(testing::random_tensor({2, 3, 6}, 33)), r_w(testing::random_tensor({2, 2, 3, 4}, 34));
  AttentionMask mask;
  mask.key_lengths = {3, 4};
  mask.causal = true;
  mask.causal_offset = 1;
  for (const bool dropping : {false, true})
    for (const bool with_out : {false, true}) {
      const auto loss = [&] {
        Rng rng(7);  // the same dropout mask on every call
        MultiHeadOptions o = heads(2, mask);
        o.dropout = dropping ? 0.3 : 0.0;
        o.training = dropping;
        o.rng = &rng;
        const AttentionWithWeights a = multi_head_attention_with_weights({q}, {k}, {v}, 6, o);
        const Var w = sum(mul(a.weights, r_w));
        return with_out ? add(w, sum(mul(a.out, r_out))) : w;
      };
      EXPECT_TRUE(gradcheck(loss, {q, k, v})) << "dropout " << dropping << ", out " << with_out;
    }
  // The same values as the plain entry's.
  Tensor weights;
  const Tensor out = multi_head_attention({q}, {k}, {v}, 6, heads(2, mask), &weights).value();
  const AttentionWithWeights a = multi_head_attention_with_weights({q}, {k}, {v}, 6, heads(2, mask));
  EXPECT_TRUE(all_close(a.out.value(), out, 0, 0));
  EXPECT_TRUE(all_close(a.weights.value(), weights, 0, 0));
  // Under NoGradGuard neither output asks for a gradient.
  NoGradGuard no_grad;
  const AttentionWithWeights b = multi_head_attention_with_weights({q}, {k}, {v}, 6, heads(2));
  EXPECT_FALSE(b.out.requires_grad());
  EXPECT_FALSE(b.weights.requires_grad());
}

TEST(MultiHeadAttention, DropoutOnlyInTraining) {
  Var q = random_var({1, 2, 4}, 19), k = random_var({1, 6, 4}, 20), v = random_var({1, 6, 4}, 21);
  Rng rng(5);
  MultiHeadOptions o = heads(2);
  o.dropout = 0.5;
  o.rng = &rng;
  const Tensor eval = multi_head_attention({q}, {k}, {v}, 4, o).value();
  EXPECT_TRUE(all_close(eval, multi_head_attention({q}, {k}, {v}, 4, heads(2)).value(), 0, 0));
  o.training = true;
  Tensor weights;
  const Tensor train = multi_head_attention({q}, {k}, {v}, 4, o, &weights).value();
  EXPECT_FALSE(all_close(train, eval, 1e-6));
  // The weights returned are the softmax before dropout: rows sum to 1.
  for (std::int64_t h = 0; h < 2; ++h)
    for (std::int64_t i = 0; i < 2; ++i) {
      double sum = 0;
      for (std::int64_t j = 0; j < 6; ++j) sum += weights.at({0, h, i, j});
      EXPECT_NEAR(sum, 1.0, 1e-12);
    }
}

TEST(MultiHeadAttention, FloatAgreesWithDouble) {
  Var q = random_var({3, 4, 8}, 22), k = random_var({3, 5, 8}, 23), v = random_var({3, 5, 8}, 24);
  AttentionMask mask;
  mask.key_lengths = {5, 1, 3};
  Var qf(q.value().to(DType::f32)), kf(k.value().to(DType::f32)), vf(v.value().to(DType::f32));
  EXPECT_TRUE(all_close(multi_head_attention({qf}, {kf}, {vf}, 8, heads(4, mask)).value().to(DType::f64),
                        multi_head_attention({q}, {k}, {v}, 8, heads(4, mask)).value(), 1e-5));
}

// Keys and values listed by row (incremental decoding's cache): the same weights and output as
// the same keys and values laid out (B, m, .), here with the store's rows in another order.
struct Listed {
  Tensor store;                      // (N, 2 dim): [K; V] rows
  std::vector<std::int64_t> index;  // (B, m)
};
Listed listed_rows(const Tensor& k, const Tensor& v, const std::vector<std::int64_t>& order) {
  const std::int64_t B = k.dim(0), m = k.dim(1), dim = k.dim(2);
  Listed r;
  r.store = Tensor::zeros({B * m + 1, 2 * dim}, k.dtype());  // row 0 unused
  r.index.resize(static_cast<std::size_t>(B * m));
  for (std::int64_t e = 0; e < B * m; ++e) {
    const std::int64_t row = 1 + order[static_cast<std::size_t>(e)];
    r.index[static_cast<std::size_t>(e)] = row;
    for (std::int64_t c = 0; c < dim; ++c) {
      r.store.set({row, c}, k.at({e / m, e % m, c}));
      r.store.set({row, dim + c}, v.at({e / m, e % m, c}));
    }
  }
  return r;
}

TEST(MultiHeadAttention, ListedKeysMatchTheDefinition) {
  NoGradGuard no_grad;
  Var q = random_var({2, 2, 6}, 30, -2, 2);
  const Tensor k = testing::random_tensor({2, 4, 6}, 31), v = testing::random_tensor({2, 4, 6}, 32);
  const Listed l = listed_rows(k, v, {5, 2, 7, 0, 1, 6, 3, 4});
  AttentionMask mask;
  mask.causal = true;
  mask.causal_offset = 2;  // two new positions after two cached ones
  mask.key_lengths = {4, 3};
  for (std::int64_t h : {1, 2, 3}) {
    Tensor weights;
    Var out = multi_head_attention({q}, ListedKeys{l.store, l.index.data(), 4, 0, 6}, 6,
                                   heads(h, mask), &weights);
    const Naive want = naive(q.value(), 0, k, 0, v, 0, 6, h, mask);
    EXPECT_TRUE(all_close(out.value(), Tensor::from({2, 2, 6}, want.out, DType::f64), 1e-12));
    EXPECT_TRUE(all_close(weights, Tensor::from({2, h, 2, 4}, want.weights, DType::f64), 1e-12));
  }
}

TEST(MultiHeadAttention, RejectsListedKeysItCannotRead) {
  Var q = random_var({2, 1, 6}, 33);
  const Tensor k = testing::random_tensor({2, 3, 6}, 34), v = testing::random_tensor({2, 3, 6}, 35);
  Listed l = listed_rows(k, v, {0, 1, 2, 3, 4, 5});
  const ListedKeys kv{l.store, l.index.data(), 3, 0, 6};
  // A gradient would be needed: listed keys are for decoding.
  q.set_requires_grad(true);
  EXPECT_THROW(multi_head_attention({q}, kv, 6, heads(2)), Error);
  NoGradGuard no_grad;
  EXPECT_NO_THROW(multi_head_attention({q}, kv, 6, heads(2)));
  EXPECT_THROW(multi_head_attention({q}, ListedKeys{l.store, l.index.data(), 3, 0, 7}, 6,
                                    heads(2)),
               Error);  // values past the rows' width
  l.index[4] = 7;  // the store has 7 rows
  EXPECT_THROW(multi_head_attention({q}, kv, 6, heads(2)), Error);
  AttentionMask additive;
  additive.additive = testing::random_tensor({1, 3}, 36);
  l.index[4] = 5;
  EXPECT_THROW(multi_head_attention({q}, kv, 6, heads(2, additive)), Error);
}

TEST(MultiHeadAttention, RejectsShapesThatDisagree) {
  Var q = random_var({2, 3, 6}, 25), k = random_var({2, 4, 6}, 26), v = random_var({2, 4, 6}, 27);
  EXPECT_THROW(multi_head_attention({q}, {k}, {v}, 6, heads(4)), Error);  // 4 does not divide 6
  EXPECT_THROW(multi_head_attention({q}, {k, 1}, {v}, 6, heads(2)), Error);  // past the width
  EXPECT_THROW(multi_head_attention({q}, {k}, {random_var({2, 3, 6}, 28)}, 6, heads(2)), Error);
  AttentionMask mask;
  mask.key_lengths = {1};
  EXPECT_THROW(multi_head_attention({q}, {k}, {v}, 6, heads(2, mask)), Error);
  AttentionMask additive;
  additive.additive = testing::random_tensor({4, 3}, 29);
  EXPECT_THROW(multi_head_attention({q}, {k}, {v}, 6, heads(2, additive)), Error);
}

}  // namespace
}  // namespace heed
