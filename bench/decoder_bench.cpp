// The decoders' teacher-forced recurrences, forward + backward, at the benchmark protocol's
// sizes (B = 64, H = 256): the fused whole-sequence ops against the same recurrence built
// from the per-step ops, as the models ran it before.
//   Bahdanau (annotations 512, A = 256): fused/gru_additive_decoder against attention_step,
//     linear_columns, gru_step. FLOPs: W_q and W_hh on s, W_ih's context block, the scores and
//     contexts over the real positions.
//   Luong (2 LSTM layers, general score, input feeding, annotations 256): fused/lstm_dot_decoder
//     against lstm_step, linear, attention_step. FLOPs: the layers' W_ih (input feeding block)
//     and W_hh, W_c, the scores and contexts.
// Forward FLOPs times 3 for forward + backward.
#include <benchmark/benchmark.h>

#include <vector>

#include "heed/autograd/attention_op.h"
#include "heed/fused/gru_additive_decoder.h"
#include "heed/autograd/concat_op.h"
#include "heed/autograd/elementwise_op.h"
#include "heed/autograd/gru.h"
#include "heed/autograd/index.h"
#include "heed/autograd/lstm.h"
#include "heed/fused/lstm_dot_decoder.h"
#include "heed/autograd/matmul.h"
#include "heed/autograd/tape.h"
#include "micro.h"
#include "heed/tensor/arena.h"

namespace {

using heed::Tensor;
using heed::Var;

constexpr std::int64_t B = 64, HD = 256, DK = 512, A = 256, EMB = 128;

Var param(const heed::Shape& shape, float bound, std::uint64_t seed) {
  auto v = heed::bench::random_floats(static_cast<std::size_t>(shape.numel()), -bound, bound, seed);
  Tensor t = Tensor::empty(shape);
  std::copy(v.begin(), v.end(), t.data<float>());
  return Var(t, true);
}

struct Problem {
  static constexpr std::int64_t kOutWidth = HD + DK;  // [s_t | c_t]
  std::int64_t n, m;
  std::vector<std::int64_t> lengths;
  Var X, s0, H, K, w_ih, w_hh, b_hh, W_q, v;
  Problem(std::int64_t n_, std::int64_t m_)
      : n(n_), m(m_), lengths(static_cast<std::size_t>(B), m_),
        X(param({B, n_, 3 * HD}, 1, 1)), s0(param({B, HD}, 1, 2)),
        H(param({B, m_, DK}, 1, 3)), K(param({B, m_, A}, 1, 4)),
        w_ih(param({3 * HD, EMB + DK}, 0.06f, 5)), w_hh(param({3 * HD, HD}, 0.06f, 6)),
        b_hh(param({3 * HD}, 0.06f, 7)), W_q(param({A, HD}, 0.06f, 8)),
        v(param({1, A}, 0.06f, 9)) {
    for (std::size_t b = 0; b < lengths.size(); b += 2) lengths[b] = m_ * 2 / 3;  // padding
  }
  double flops() const {
    double real = 0;
    for (std::int64_t len : lengths) real += static_cast<double>(len);
    const double gemm = 2.0 * B * HD * (3 * HD + A) + 2.0 * B * DK * 3 * HD;
    return 3.0 * n * (gemm + 2.0 * real * (A + DK));
  }
  const Var& probe() const { return w_hh; }  // a gradient the backward must produce
  void clear() const {
    for (const Var* p : {&X, &s0, &H, &K, &w_ih, &w_hh, &b_hh, &W_q, &v}) p->clear_grad();
  }
};

Var fused(const Problem& p) {
  heed::GruAdditiveWeights w;
  w.w_ih = p.w_ih;
  w.ctx_col = EMB;
  w.w_hh = p.w_hh;
  w.b_hh = p.b_hh;
  w.W_q = p.W_q;
  w.v = p.v;
  return heed::gru_additive_decoder(p.X, p.s0, p.H, p.K, p.lengths, w);
}

Var steps(const Problem& p) {
  heed::AttentionWeights aw;
  aw.W = p.W_q;
  aw.v = p.v;
  Var s = p.s0;
  std::vector<Var> rows;
  for (std::int64_t t = 0; t < p.n; ++t) {
    heed::AttentionResult att =
        heed::attention_step(heed::AttentionScore::mlp, s, p.K, p.H, p.lengths, aw);
    Var x = heed::add(heed::select(p.X, 1, t), heed::linear_columns(att.context, p.w_ih, EMB));
    s = heed::gru_step(x, s, p.w_hh, p.b_hh);
    rows.push_back(heed::concat({s, att.context}, 1));
  }
  return heed::stack(rows, 1);
}

// Forward + backward of Run(p) per iteration, p = P(n, m), in a warmed-up arena.
template <typename P, Var (*Run)(const P&)>
void BM_Recurrence(benchmark::State& state) {
  const P p(state.range(0), state.range(1));
  Tensor seed = Tensor::full({B, p.n, P::kOutWidth}, 1e-3);
  heed::Arena arena;  // as in training: activations and gradients from a per-batch arena
  auto once = [&] {
    p.clear();
    arena.reset();
    heed::ArenaScope scope(&arena);
    Var y = Run(p);
    heed::Tape::current().backward(y, seed);
  };
  for (int warm = 0; warm < 2; ++warm) once();  // untimed: the arena grows and is touched
  for (auto _ : state) {
    once();
    const Tensor& g = p.probe().grad();
    benchmark::DoNotOptimize(g.raw());
  }
  heed::bench::set_flops(state, p.flops());
}

// Luong: 2 layers, general score (keys K = W_a H given), input feeding.
struct LuongProblem {
  static constexpr std::int64_t kOutWidth = HD;  // h~_t
  std::int64_t n, m;
  std::vector<std::int64_t> lengths;
  Var X, H, K, W_c;
  std::vector<Var> h0, c0, w_ih, w_hh, b_ih, b_hh;
  LuongProblem(std::int64_t n_, std::int64_t m_)
      : n(n_), m(m_), lengths(static_cast<std::size_t>(B), m_), X(param({B, n_, 4 * HD}, 1, 1)),
        H(param({B, m_, HD}, 1, 2)), K(param({B, m_, HD}, 1, 3)),
        W_c(param({HD, 2 * HD}, 0.06f, 4)) {
    for (std::size_t b = 0; b < lengths.size(); b += 2) lengths[b] = m_ * 2 / 3;
    for (std::uint64_t l = 0; l < 2; ++l) {
      h0.push_back(param({B, HD}, 1, 10 + l));
      c0.push_back(param({B, HD}, 1, 20 + l));
      w_ih.push_back(param({4 * HD, l == 0 ? EMB + HD : HD}, 0.06f, 30 + l));
      w_hh.push_back(param({4 * HD, HD}, 0.06f, 40 + l));
      b_ih.push_back(param({4 * HD}, 0.06f, 50 + l));
      b_hh.push_back(param({4 * HD}, 0.06f, 60 + l));
    }
  }
  double flops() const {
    double real = 0;
    for (std::int64_t len : lengths) real += static_cast<double>(len);
    const double gemm = 2.0 * B * 4 * HD * (HD + HD) * 2 + 2.0 * B * HD * 2 * HD;
    return 3.0 * n * (gemm + 2.0 * real * 2 * HD);
  }
  const Var& probe() const { return W_c; }
  void clear() const {
    for (const Var* p : {&X, &H, &K, &W_c}) p->clear_grad();
    for (const auto* group : {&h0, &c0, &w_ih, &w_hh, &b_ih, &b_hh})
      for (const Var& v : *group) v.clear_grad();
  }
};

Var luong_fused(const LuongProblem& p) {
  heed::LstmDotWeights w;
  for (std::size_t l = 0; l < 2; ++l)
    w.layers.push_back({p.w_ih[l], p.w_hh[l], l == 0 ? Var() : p.b_ih[l], p.b_hh[l]});
  w.feed_col = EMB;
  w.W_c = p.W_c;
  return heed::lstm_dot_decoder(p.X, p.h0, p.c0, p.H, p.K, p.lengths, w);
}

Var luong_steps(const LuongProblem& p) {
  std::vector<Var> h = p.h0, c = p.c0, outs;
  Var h_tilde;
  for (std::int64_t t = 0; t < p.n; ++t) {
    Var x = heed::select(p.X, 1, t);
    if (t > 0) x = heed::add(x, heed::linear_columns(h_tilde, p.w_ih[0], EMB));
    heed::LstmState st = heed::lstm_step(x, {h[0], c[0]}, p.w_hh[0], p.b_hh[0]);
    h[0] = st.h;
    c[0] = st.c;
    st = heed::lstm_cell(h[0], {h[1], c[1]}, p.w_ih[1], p.w_hh[1], p.b_ih[1], p.b_hh[1]);
    h[1] = st.h;
    c[1] = st.c;
    heed::AttentionResult att =
        heed::attention_step(heed::AttentionScore::general, h[1], p.K, p.H, p.lengths, {});
    h_tilde = heed::tanh(heed::linear(heed::concat({att.context, h[1]}, 1), p.W_c));
    outs.push_back(h_tilde);
  }
  return heed::stack(outs, 1);
}

BENCHMARK(BM_Recurrence<LuongProblem, luong_fused>)
    ->Name("BM_LuongDecoderFused")
    ->ArgNames({"n", "m"})
    ->Args({22, 22})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Recurrence<LuongProblem, luong_steps>)
    ->Name("BM_LuongDecoderSteps")
    ->ArgNames({"n", "m"})
    ->Args({22, 22})
    ->Unit(benchmark::kMillisecond);

BENCHMARK(BM_Recurrence<Problem, fused>)
    ->Name("BM_BahdanauDecoderFused")
    ->ArgNames({"n", "m"})
    ->Args({9, 9})
    ->Args({22, 22})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Recurrence<Problem, steps>)
    ->Name("BM_BahdanauDecoderSteps")
    ->ArgNames({"n", "m"})
    ->Args({9, 9})
    ->Args({22, 22})
    ->Unit(benchmark::kMillisecond);

}  // namespace
