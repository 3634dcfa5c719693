// The Bahdanau decoder's teacher-forced recurrence, forward + backward, at the benchmark
// protocol's sizes (B = 64, H = 256, annotations 512, A = 256): the fused whole-sequence op
// (autograd/bahdanau_decoder) against the same recurrence built from the per-step ops
// (attention_step, linear_columns, gru_step), as the model ran it before. FLOPs counted: the
// step's GEMMs (W_q and W_hh on s, W_ih's context block) and the attention's scores and
// context over the real positions, forward, times 3 for forward + backward.
#include <benchmark/benchmark.h>

#include <vector>

#include "heed/autograd/attention.h"
#include "heed/autograd/bahdanau_decoder.h"
#include "heed/autograd/concat.h"
#include "heed/autograd/elementwise.h"
#include "heed/autograd/gru.h"
#include "heed/autograd/index.h"
#include "heed/autograd/tape.h"
#include "heed/bench/micro.h"
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
  void clear() const {
    for (const Var* p : {&X, &s0, &H, &K, &w_ih, &w_hh, &b_hh, &W_q, &v}) p->clear_grad();
  }
};

Var fused(const Problem& p) {
  heed::BahdanauDecoderWeights w;
  w.w_ih = p.w_ih;
  w.ctx_col = EMB;
  w.w_hh = p.w_hh;
  w.b_hh = p.b_hh;
  w.W_q = p.W_q;
  w.v = p.v;
  return heed::bahdanau_decoder(p.X, p.s0, p.H, p.K, p.lengths, w);
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

template <Var (*Run)(const Problem&)>
void BM_Decoder(benchmark::State& state) {
  const Problem p(state.range(0), state.range(1));
  Tensor seed = Tensor::full({B, p.n, HD + DK}, 1e-3);
  heed::Arena arena;  // as in training: activations and gradients from a per-batch arena
  for (auto _ : state) {
    p.clear();
    arena.reset();
    heed::ArenaScope scope(&arena);
    Var y = Run(p);
    heed::Tape::current().backward(y, seed);
    benchmark::DoNotOptimize(p.w_hh.grad().data<float>());
  }
  heed::bench::set_flops(state, p.flops());
}
BENCHMARK(BM_Decoder<fused>)
    ->Name("BM_BahdanauDecoderFused")
    ->ArgNames({"n", "m"})
    ->Args({9, 9})
    ->Args({22, 22})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Decoder<steps>)
    ->Name("BM_BahdanauDecoderSteps")
    ->ArgNames({"n", "m"})
    ->Args({9, 9})
    ->Args({22, 22})
    ->Unit(benchmark::kMillisecond);

}  // namespace
