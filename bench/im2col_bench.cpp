// im2col and its adjoint col2im_add (kernels/conv2d.h), the data movement around every
// convolution's product, at the shapes heed's convolutions see: the speech front end's two
// layers for one 4-second utterance (1 channel of 400 frames x 40 mel bins, then 8 channels of
// 200 x 20; docs/MODELS.md#a-convolutional-front-end) and the small CNN's on a 28 x 28 image
// (1 channel, then 16 of 14 x 14). 3 x 3 filters, padding 1, stride 1. One thread.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "heed/kernels/conv2d.h"

namespace {

heed::kernels::Conv2dShape shape(const benchmark::State& state) {
  heed::kernels::Conv2dShape s;
  s.N = 1;
  s.C = state.range(0);
  s.H = state.range(1);
  s.W = state.range(2);
  s.O = 1;
  s.KH = s.KW = 3;
  s.pad = 1;
  return s;
}

void BM_Im2col(benchmark::State& state) {
  const heed::kernels::Conv2dShape s = shape(state);
  std::vector<float> x(static_cast<std::size_t>(s.C * s.H * s.W), 1.f);
  std::vector<float> col(static_cast<std::size_t>(s.workspace()));
  for (auto _ : state) {
    heed::kernels::im2col<float>(x.data(), s, col.data());
    benchmark::DoNotOptimize(col.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(s.workspace() * static_cast<std::int64_t>(sizeof(float)) *
                          state.iterations());
}

void BM_Col2imAdd(benchmark::State& state) {
  const heed::kernels::Conv2dShape s = shape(state);
  std::vector<float> dx(static_cast<std::size_t>(s.C * s.H * s.W), 0.f);
  std::vector<float> col(static_cast<std::size_t>(s.workspace()), 1.f);
  for (auto _ : state) {
    heed::kernels::col2im_add<float>(col.data(), s, dx.data());
    benchmark::DoNotOptimize(dx.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(s.workspace() * static_cast<std::int64_t>(sizeof(float)) *
                          state.iterations());
}

// (channels, height, width)
void shapes(benchmark::internal::Benchmark* b) {
  b->Args({1, 400, 40})->Args({8, 200, 20})->Args({1, 28, 28})->Args({16, 14, 14});
}

BENCHMARK(BM_Im2col)->Apply(shapes);
BENCHMARK(BM_Col2imAdd)->Apply(shapes);

}  // namespace
