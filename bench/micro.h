#pragma once
// Helpers shared by the Google Benchmark micro-benchmarks (bench/*_bench.cpp): random
// buffers and the FLOP counter. Counters use kIsIterationInvariantRate (a kIsRate counter
// multiplied by the iteration count), so the value printed is FLOP per second.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "heed/base/random.h"

namespace heed::bench {

// n values uniform in [lo, hi), from a fixed seed (the numbers only need to be ordinary).
inline std::vector<float> random_floats(std::size_t n, float lo = -1.0f, float hi = 1.0f,
                                        std::uint64_t seed = 1) {
  Rng rng(seed);
  std::vector<float> v(n);
  for (auto& x : v) x = static_cast<float>(rng.uniform(lo, hi));
  return v;
}

// Reports `flops` floating-point operations per iteration as a FLOP/s rate.
inline void set_flops(benchmark::State& state, double flops) {
  state.counters["FLOP/s"] = benchmark::Counter(
      flops, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
}

}  // namespace heed::bench
