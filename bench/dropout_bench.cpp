// The dropout mask (kernels/dropout.h) at the sizes of a Multi30k Transformer's training
// step (2,500 target tokens: the residual dropout's 2,500 x 256, the feed-forward's
// 2,500 x 1,024, one layer's attention weights of 80 sentences x 4 heads x 31 x 31), against
// drawing the same number of 32-bit values from the run's generator one after another (the
// mask's way before Philox: std::mt19937_64, two values a draw, on the calling thread).
// Threads: OMP_NUM_THREADS (the mask splits its blocks across them; the draws cannot).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "heed/base/random.h"
#include "heed/kernels/dropout.h"

namespace {

void BM_DropoutMask(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  std::vector<float> mask(static_cast<std::size_t>(n));
  heed::Rng rng(1);
  for (auto _ : state) {
    heed::kernels::dropout_mask<float>(mask.data(), n, 0.3, rng);
    benchmark::DoNotOptimize(mask.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(n * state.iterations());
}

// ReLU and dropout in place on the feed-forward activations, the mask never written
// (linear_relu_dropout's pass), against ReLU, the mask and the multiply as three passes.
void BM_ReluDropout(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const bool fused = state.range(1) != 0;
  std::vector<float> x(static_cast<std::size_t>(n)), mask(x.size());
  heed::Rng rng(1);
  for (float& v : x) v = static_cast<float>(rng.uniform() * 2 - 1);
  for (auto _ : state) {
    if (fused) {
      heed::kernels::dropout_apply<float>(x.data(), n, 0.1, rng, /*relu=*/true);
    } else {
      for (float& v : x) v = v > 0.f ? v : 0.f;
      heed::kernels::dropout_mask<float>(mask.data(), n, 0.1, rng);
      for (std::size_t i = 0; i < x.size(); ++i) x[i] *= mask[i];
    }
    benchmark::DoNotOptimize(x.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(n * state.iterations());
}

void BM_SequentialDraws(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  std::vector<float> mask(static_cast<std::size_t>(n));
  heed::Rng rng(1);
  const std::uint64_t threshold = 1288490189;  // 0.3 2^32
  for (auto _ : state) {
    for (std::int64_t i = 0; i + 1 < n; i += 2) {
      const std::uint64_t bits = rng.next();
      mask[i] = (bits & 0xffffffffu) >= threshold ? 1.f / 0.7f : 0.f;
      mask[i + 1] = (bits >> 32) >= threshold ? 1.f / 0.7f : 0.f;
    }
    benchmark::DoNotOptimize(mask.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(n * state.iterations());
}

BENCHMARK(BM_DropoutMask)->Arg(2500 * 256)->Arg(2500 * 1024)->Arg(80 * 4 * 31 * 31)->UseRealTime();
BENCHMARK(BM_ReluDropout)->Args({2500 * 1024, 0})->Args({2500 * 1024, 1})->UseRealTime();
BENCHMARK(BM_SequentialDraws)
    ->Arg(2500 * 256)
    ->Arg(2500 * 1024)
    ->Arg(80 * 4 * 31 * 31)
    ->UseRealTime();

}  // namespace
