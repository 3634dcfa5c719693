// The fused GRU and LSTM step kernels at the decoder's shape (B = 64, H = 256): forward
// (recurrent GEMM + gates) and backward (gates + GEMM back to h). FLOPs counted are the
// GEMM's 2 * B * H * G (G = 3H or 4H); the gate work rides on top of it.
#include <benchmark/benchmark.h>

#include <algorithm>

#include "micro.h"
#include "heed/kernels/gru_cell.h"
#include "heed/kernels/lstm_cell.h"

namespace {

using heed::bench::random_floats;

void BM_GruStepForward(benchmark::State& state) {
  const std::int64_t B = state.range(0), H = state.range(1), G = 3 * H;
  auto gi = random_floats(static_cast<std::size_t>(B * G), -1, 1, 1);
  auto h = random_floats(static_cast<std::size_t>(B * H), -1, 1, 2);
  auto w = random_floats(static_cast<std::size_t>(G * H), -0.06f, 0.06f, 3);
  auto b = random_floats(static_cast<std::size_t>(G), -0.06f, 0.06f, 4);
  std::vector<float> out(static_cast<std::size_t>(B * H));
  std::vector<float> save(static_cast<std::size_t>(B * heed::kernels::gru_save_width(H)));
  for (auto _ : state) {
    heed::kernels::gru_step_forward<float>({}, B, H, gi.data(), G, h.data(), H, w.data(), b.data(),
                                           nullptr, out.data(), H, save.data());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  heed::bench::set_flops(state, 2.0 * B * H * G);
}
BENCHMARK(BM_GruStepForward)
    ->ArgNames({"B", "H"})
    ->Args({64, 256})
    ->Args({320, 256})
    ->Unit(benchmark::kMicrosecond);

void BM_GruStepBackward(benchmark::State& state) {
  const std::int64_t B = state.range(0), H = state.range(1), G = 3 * H;
  auto gi = random_floats(static_cast<std::size_t>(B * G), -1, 1, 1);
  auto h = random_floats(static_cast<std::size_t>(B * H), -1, 1, 2);
  auto w = random_floats(static_cast<std::size_t>(G * H), -0.06f, 0.06f, 3);
  auto b = random_floats(static_cast<std::size_t>(G), -0.06f, 0.06f, 4);
  const auto dh0 = random_floats(static_cast<std::size_t>(B * H), -1, 1, 5);
  std::vector<float> out(static_cast<std::size_t>(B * H));
  std::vector<float> save(static_cast<std::size_t>(B * heed::kernels::gru_save_width(H)));
  heed::kernels::gru_step_forward<float>({}, B, H, gi.data(), G, h.data(), H, w.data(), b.data(),
                                         nullptr, out.data(), H, save.data());
  std::vector<float> dh(dh0), dgi(static_cast<std::size_t>(B * G)),
      dgh(static_cast<std::size_t>(B * G));
  for (auto _ : state) {
    state.PauseTiming();
    std::copy(dh0.begin(), dh0.end(), dh.begin());  // dh is overwritten in place
    state.ResumeTiming();
    heed::kernels::gru_step_backward<float>({}, B, H, h.data(), H, w.data(), nullptr, save.data(),
                                            dh.data(), H, dgi.data(), G, dgh.data());
    benchmark::DoNotOptimize(dh.data());
    benchmark::ClobberMemory();
  }
  heed::bench::set_flops(state, 2.0 * B * H * G);
}
BENCHMARK(BM_GruStepBackward)->ArgNames({"B", "H"})->Args({64, 256})->Unit(benchmark::kMicrosecond);

void BM_LstmStepForward(benchmark::State& state) {
  const std::int64_t B = state.range(0), H = state.range(1), G = 4 * H;
  auto gi = random_floats(static_cast<std::size_t>(B * G), -1, 1, 1);
  auto h = random_floats(static_cast<std::size_t>(B * H), -1, 1, 2);
  auto c = random_floats(static_cast<std::size_t>(B * H), -1, 1, 3);
  auto w = random_floats(static_cast<std::size_t>(G * H), -0.06f, 0.06f, 4);
  auto b = random_floats(static_cast<std::size_t>(G), -0.06f, 0.06f, 5);
  std::vector<float> h_out(static_cast<std::size_t>(B * H)), c_out(static_cast<std::size_t>(B * H));
  std::vector<float> save(static_cast<std::size_t>(B * heed::kernels::lstm_save_width(H)));
  for (auto _ : state) {
    heed::kernels::lstm_step_forward<float>({}, B, H, gi.data(), G, h.data(), H, c.data(), H,
                                            w.data(), b.data(), nullptr, h_out.data(), H,
                                            c_out.data(), H, save.data());
    benchmark::DoNotOptimize(h_out.data());
    benchmark::ClobberMemory();
  }
  heed::bench::set_flops(state, 2.0 * B * H * G);
}
BENCHMARK(BM_LstmStepForward)
    ->ArgNames({"B", "H"})
    ->Args({64, 256})
    ->Args({320, 256})
    ->Unit(benchmark::kMicrosecond);

void BM_LstmStepBackward(benchmark::State& state) {
  const std::int64_t B = state.range(0), H = state.range(1), G = 4 * H;
  auto gi = random_floats(static_cast<std::size_t>(B * G), -1, 1, 1);
  auto h = random_floats(static_cast<std::size_t>(B * H), -1, 1, 2);
  auto c = random_floats(static_cast<std::size_t>(B * H), -1, 1, 3);
  auto w = random_floats(static_cast<std::size_t>(G * H), -0.06f, 0.06f, 4);
  auto b = random_floats(static_cast<std::size_t>(G), -0.06f, 0.06f, 5);
  std::vector<float> h_out(static_cast<std::size_t>(B * H)), c_out(static_cast<std::size_t>(B * H));
  std::vector<float> save(static_cast<std::size_t>(B * heed::kernels::lstm_save_width(H)));
  heed::kernels::lstm_step_forward<float>({}, B, H, gi.data(), G, h.data(), H, c.data(), H,
                                          w.data(), b.data(), nullptr, h_out.data(), H,
                                          c_out.data(), H, save.data());
  const auto dh0 = random_floats(static_cast<std::size_t>(B * H), -1, 1, 6);
  const auto dc0 = random_floats(static_cast<std::size_t>(B * H), -1, 1, 7);
  std::vector<float> dh(dh0), dc(dc0), dgates(static_cast<std::size_t>(B * G));
  for (auto _ : state) {
    state.PauseTiming();
    std::copy(dh0.begin(), dh0.end(), dh.begin());  // dh and dc are overwritten in place
    std::copy(dc0.begin(), dc0.end(), dc.begin());
    state.ResumeTiming();
    heed::kernels::lstm_step_backward<float>({}, B, H, c.data(), H, w.data(), nullptr, save.data(),
                                             dh.data(), H, dc.data(), H, dgates.data(), G);
    benchmark::DoNotOptimize(dh.data());
    benchmark::ClobberMemory();
  }
  heed::bench::set_flops(state, 2.0 * B * H * G);
}
BENCHMARK(BM_LstmStepBackward)
    ->ArgNames({"B", "H"})
    ->Args({64, 256})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
