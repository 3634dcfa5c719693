// The fused attention step kernels (scores + mask + softmax + context, and the fused
// backward) at B = 64, m = 30: additive (Bahdanau: keys A = 256, values 2 x 256 from the
// bi-GRU) and general (Luong: keys = values = 256). FLOPs follow the benchmark protocol's
// analytic count, per (row, source position): 2 * key_dim (score) + 2 * value_dim
// (context) forward, twice that backward; tanh, exp and the softmax are not counted.
#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

#include "micro.h"
#include "heed/base/random.h"
#include "heed/kernels/attention.h"
#include "heed/kernels/multi_head_attention.h"

namespace {

using heed::bench::random_floats;
using heed::kernels::AttentionStep;
using heed::kernels::ScoreKind;

struct Inputs {
  std::vector<std::int64_t> lengths;
  std::vector<float> q, K, H, wq, v;
  AttentionStep<float> step;
};

// kind 0: additive (tanh), 1: general (dot over W_a H). Lengths cycle through 15..30 so
// that rows are ragged as in the mt/luong configs, with the longest at m.
Inputs make_inputs(int kind, std::int64_t B, std::int64_t m, std::int64_t kd, std::int64_t dv) {
  Inputs in;
  in.lengths.resize(static_cast<std::size_t>(B));
  for (std::int64_t b = 0; b < B; ++b) in.lengths[b] = m - (b * 7) % (m / 2 + 1);
  in.lengths[0] = m;
  in.K = random_floats(static_cast<std::size_t>(B * m * kd), -1, 1, 1);
  in.H = random_floats(static_cast<std::size_t>(B * m * dv), -1, 1, 2);
  in.q = random_floats(static_cast<std::size_t>(B * kd), -0.1f, 0.1f, 3);
  in.wq = random_floats(static_cast<std::size_t>(B * kd), -1, 1, 4);
  in.v = random_floats(static_cast<std::size_t>(kd), -0.1f, 0.1f, 5);
  AttentionStep<float>& s = in.step;
  s.kind = kind == 0 ? ScoreKind::tanh : ScoreKind::dot;
  s.batch = B;
  s.m = m;
  s.key_dim = kd;
  s.value_dim = dv;
  s.lengths = in.lengths.data();
  s.K = in.K.data();
  s.H = in.H.data();
  if (kind == 0) {
    s.wq = in.wq.data();
    s.v = in.v.data();
  } else {
    s.q = in.q.data();
  }
  return in;
}

double pair_flops(const Inputs& in) {
  double positions = 0;
  for (auto l : in.lengths) positions += static_cast<double>(l);
  return positions * (2.0 * in.step.key_dim + 2.0 * in.step.value_dim);
}

// args: kind, B, m, key_dim, value_dim
void BM_AttentionForward(benchmark::State& state) {
  Inputs in = make_inputs(static_cast<int>(state.range(0)), state.range(1), state.range(2),
                          state.range(3), state.range(4));
  const auto& s = in.step;
  std::vector<float> context(static_cast<std::size_t>(s.batch * s.value_dim));
  std::vector<float> alpha(static_cast<std::size_t>(s.batch * s.m));
  for (auto _ : state) {
    heed::kernels::attention_forward<float>(s, context.data(), alpha.data());
    benchmark::DoNotOptimize(context.data());
    benchmark::ClobberMemory();
  }
  heed::bench::set_flops(state, pair_flops(in));
}

void BM_AttentionBackward(benchmark::State& state) {
  Inputs in = make_inputs(static_cast<int>(state.range(0)), state.range(1), state.range(2),
                          state.range(3), state.range(4));
  const auto& s = in.step;
  const std::int64_t B = s.batch, m = s.m, kd = s.key_dim, dv = s.value_dim;
  std::vector<float> context(static_cast<std::size_t>(B * dv)),
      alpha(static_cast<std::size_t>(B * m));
  heed::kernels::attention_forward<float>(s, context.data(), alpha.data());
  auto dcontext = random_floats(static_cast<std::size_t>(B * dv), -1, 1, 6);
  std::vector<float> dscore(static_cast<std::size_t>(B * m)),
      dK(static_cast<std::size_t>(B * m * kd)), dH(static_cast<std::size_t>(B * m * dv)),
      dq(static_cast<std::size_t>(B * kd)), dwq(static_cast<std::size_t>(B * kd)),
      dv_rows(static_cast<std::size_t>(B * kd));
  heed::kernels::AttentionStepGrad<float> g;
  g.dcontext = dcontext.data();
  g.dscore = dscore.data();
  g.dK = dK.data();
  g.dH = dH.data();
  if (s.kind == ScoreKind::tanh) {
    g.dwq = dwq.data();
    g.dv_rows = dv_rows.data();
  } else {
    g.dq = dq.data();
  }
  // dK, dH and dq accumulate; their growth over iterations does not change the work.
  for (auto _ : state) {
    heed::kernels::attention_backward<float>(s, alpha.data(), g);
    benchmark::DoNotOptimize(dK.data());
    benchmark::ClobberMemory();
  }
  heed::bench::set_flops(state, 2.0 * pair_flops(in));
}

BENCHMARK(BM_AttentionForward)
    ->ArgNames({"kind", "B", "m", "kd", "dv"})
    ->Args({0, 64, 30, 256, 512})   // additive (Bahdanau mt)
    ->Args({0, 320, 30, 256, 512})  // additive, beam 5 x 64 rows
    ->Args({1, 64, 30, 256, 256})   // general (Luong)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_AttentionBackward)
    ->ArgNames({"kind", "B", "m", "kd", "dv"})
    ->Args({0, 64, 30, 256, 512})
    ->Args({1, 64, 30, 256, 256})
    ->Unit(benchmark::kMicrosecond);

// One step of beam search's self-attention over the Transformer decoder's cache
// (models/position_cache.h): 64 sentences x beam 5 hypotheses, d_model 256 in 4 heads, each
// hypothesis reading its m earlier positions' keys and values by row from a store of
// [K V] rows, one appended per hypothesis a step, the hypotheses' positions shared as beam
// search's back-pointers share them (each step's hypotheses descend from random ones of
// the same sentence). Two such stores, one for each of the bench config's two decoder layers,
// read in turn: together larger than the last-level cache, as in decoding. FLOPs: 4 d a key.
void BM_MultiHeadAttentionCachedStep(benchmark::State& state) {
  const std::int64_t sentences = 64, beam = 5, B = sentences * beam, H = 4, d = 256;
  const std::int64_t m = state.range(0), layers = 2;
  heed::Rng rng(7);
  std::vector<std::int64_t> index(static_cast<std::size_t>(B * m));  // (B, m) store rows
  for (std::int64_t t = 0; t < m; ++t) {
    std::vector<std::int64_t> next(index.size());
    for (std::int64_t b = 0; b < B; ++b) {
      const std::int64_t parent = b / beam * beam + static_cast<std::int64_t>(rng.uniform(0, beam));
      for (std::int64_t j = 0; j < t; ++j)
        next[static_cast<std::size_t>(b * m + j)] = index[static_cast<std::size_t>(parent * m + j)];
      next[static_cast<std::size_t>(b * m + t)] = t * B + b;
    }
    index = next;
  }
  std::vector<std::vector<float>> stores;
  for (std::int64_t l = 0; l < layers; ++l)
    stores.push_back(random_floats(static_cast<std::size_t>(m * B * 2 * d), -1, 1, 10 + l));
  const auto q = random_floats(static_cast<std::size_t>(B * d), -1, 1, 3);
  std::vector<float> P(static_cast<std::size_t>(B * H * m)), O(static_cast<std::size_t>(B * d));
  heed::kernels::HeadsShape s;
  s.batch = B;
  s.heads = H;
  s.queries = 1;
  s.keys = m;
  s.dim = d;
  s.q_ld = d;
  s.k_ld = s.v_ld = 2 * d;
  s.key_rows = index.data();
  s.scale = 1.0 / std::sqrt(static_cast<double>(d / H));
  for (auto _ : state) {
    for (const auto& store : stores) {
      heed::kernels::multi_head_attention<float>({}, s, q.data(), store.data(),
                                                 store.data() + d, nullptr, nullptr, P.data(),
                                                 O.data());
      benchmark::DoNotOptimize(O.data());
      benchmark::ClobberMemory();
    }
  }
  heed::bench::set_flops(state, static_cast<double>(layers * B * m) * 4.0 * static_cast<double>(d));
}

BENCHMARK(BM_MultiHeadAttentionCachedStep)
    ->ArgNames({"m"})
    ->Arg(15)  // the middle of a 30-step beam search
    ->Arg(30)  // its last step
    ->Unit(benchmark::kMicrosecond);

// A training step's attention in a small Transformer (examples/g2p-cmudict/transformer.yaml:
// d_model 128 in 4 heads, words of about 10 letters, 4,000 target tokens a batch): the
// forward and backward pass of B = 400 rows' self-attention, n = m = 10, a causal mask (as
// in the decoder), dropout on the weights. FLOPs: 4 d a (query, key) pair forward, twice
// that backward.
void BM_MultiHeadAttentionTrainStep(benchmark::State& state) {
  const std::int64_t B = 400, H = 4, d = 128, n = state.range(0);
  heed::kernels::HeadsShape s;
  s.batch = B;
  s.heads = H;
  s.queries = s.keys = n;
  s.dim = d;
  s.q_ld = s.k_ld = s.v_ld = 3 * d;  // Q, K, V: column blocks of one projection
  s.causal = true;
  s.scale = 1.0 / std::sqrt(static_cast<double>(d / H));
  const auto qkv = random_floats(static_cast<std::size_t>(B * n * 3 * d), -1, 1, 1);
  const auto dO = random_floats(static_cast<std::size_t>(B * n * d), -1, 1, 2);
  auto drop = random_floats(static_cast<std::size_t>(B * H * n * n), 0, 1, 3);
  for (float& x : drop) x = x < 0.1f ? 0.0f : 1.0f / 0.9f;
  std::vector<float> P(static_cast<std::size_t>(B * H * n * n)), O(static_cast<std::size_t>(B * n * d)),
      dqkv(qkv.size());
  for (auto _ : state) {
    heed::kernels::multi_head_attention<float>({}, s, qkv.data(), qkv.data() + d,
                                               qkv.data() + 2 * d, nullptr, drop.data(), P.data(),
                                               O.data());
    heed::kernels::multi_head_attention_backward<float>(
        {}, s, qkv.data(), qkv.data() + d, qkv.data() + 2 * d, P.data(), drop.data(), dO.data(),
        nullptr, dqkv.data(), dqkv.data() + d, dqkv.data() + 2 * d);
    benchmark::DoNotOptimize(dqkv.data());
    benchmark::ClobberMemory();
  }
  // Causal: query i reads i + 1 keys.
  heed::bench::set_flops(state, static_cast<double>(B * n * (n + 1) / 2) * 12.0 * static_cast<double>(d));
}

BENCHMARK(BM_MultiHeadAttentionTrainStep)->ArgNames({"n"})->Arg(6)->Arg(10)->Arg(14)->Unit(benchmark::kMicrosecond);

}  // namespace
