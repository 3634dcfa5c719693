// GEMM throughput at the shapes the models run (f32 through kernels::gemm = oneDNN's sgemm;
// decoding's products with frozen, packed weights, fp32 and bf16; training's bf16 products).
// Thread count: OMP_NUM_THREADS (oneDNN and OpenBLAS are OpenMP builds).
#include <benchmark/benchmark.h>

#include "micro.h"
#include "heed/kernels/bf16_products.h"
#include "heed/kernels/gemm.h"
#include "heed/kernels/packed_weight.h"

namespace {

using heed::bench::random_floats;

// C (M x N) = op(A) op(B) at precision; args: M, N, K, trans_a, trans_b.
void run_gemm(benchmark::State& state, heed::kernels::MatmulPrecision precision) {
  const std::int64_t M = state.range(0), N = state.range(1), K = state.range(2);
  const bool ta = state.range(3) != 0, tb = state.range(4) != 0;
  auto a = random_floats(static_cast<std::size_t>(M * K), -1, 1, 1);
  auto b = random_floats(static_cast<std::size_t>(K * N), -1, 1, 2);
  std::vector<float> c(static_cast<std::size_t>(M * N));
  const std::int64_t lda = ta ? M : K, ldb = tb ? K : N;
  for (auto _ : state) {
    heed::kernels::gemm<float>({precision}, ta, tb, M, N, K, 1.0f, a.data(), lda, b.data(), ldb,
                               0.0f, c.data(), N);
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  heed::bench::set_flops(state, 2.0 * M * N * K);
}

void BM_Gemm(benchmark::State& state) { run_gemm(state, heed::kernels::MatmulPrecision::f32); }

// Shapes (B = 64, H = A = 256, V = 8000, T*B = 30*64 = 1920 rows):
BENCHMARK(BM_Gemm)
    ->ArgNames({"M", "N", "K", "ta", "tb"})
    // GRU recurrent product h W_hh^T, (64 x 256)(256 x 768); LSTM (64 x 256)(256 x 1024)
    ->Args({64, 768, 256, 0, 1})
    ->Args({64, 1024, 256, 0, 1})
    // its backward to h: dgh W_hh, (64 x 768)(768 x 256)
    ->Args({64, 256, 768, 0, 0})
    // weight gradient summed over a whole sequence: dgh^T H, (768 x 1920)(1920 x 256)
    ->Args({768, 256, 1920, 1, 0})
    // encoder input projection of every time step: (1920 x 256)(256 x 768)
    ->Args({1920, 768, 256, 0, 1})
    // vocabulary projection, (1920 x 256)(256 x 8000), its input and weight gradients
    ->Args({1920, 8000, 256, 0, 1})
    ->Args({1920, 256, 8000, 0, 0})
    ->Args({8000, 256, 1920, 1, 0})
    // one decoder step of the vocabulary projection (greedy, beam 5 x 64 rows)
    ->Args({64, 8000, 256, 0, 1})
    ->Args({320, 8000, 256, 0, 1})
    // a square reference point for the BLAS peak
    ->Args({1024, 1024, 1024, 0, 0})
    ->Unit(benchmark::kMicrosecond);

// Batched: per sentence, keys W_a H_b (30 x 256)(256 x 256), and score rows q_b . K_b^T
// (1 x 256)(256 x 30); args: batch, M, N, K, trans_b.
void BM_GemmBatched(benchmark::State& state) {
  const std::int64_t batch = state.range(0), M = state.range(1), N = state.range(2),
                     K = state.range(3);
  const bool tb = state.range(4) != 0;
  auto a = random_floats(static_cast<std::size_t>(batch * M * K), -1, 1, 1);
  auto b = random_floats(static_cast<std::size_t>(batch * K * N), -1, 1, 2);
  std::vector<float> c(static_cast<std::size_t>(batch * M * N));
  for (auto _ : state) {
    heed::kernels::gemm_batched<float>({}, false, tb, batch, M, N, K, 1.0f, a.data(), K, M * K,
                                       b.data(), tb ? K : N, K * N, 0.0f, c.data(), N, M * N);
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  heed::bench::set_flops(state, 2.0 * batch * M * N * K);
}

BENCHMARK(BM_GemmBatched)
    ->ArgNames({"batch", "M", "N", "K", "tb"})
    ->Args({64, 30, 256, 256, 1})
    ->Args({64, 1, 30, 256, 1})
    ->Unit(benchmark::kMicrosecond);

// x W^T with W frozen (packed once for oneDNN, as decoding runs it); args: M, N, K, bf16.
void BM_GemmFrozen(benchmark::State& state) {
  const std::int64_t M = state.range(0), N = state.range(1), K = state.range(2);
  const auto precision = state.range(3) ? heed::kernels::MatmulPrecision::bf16
                                        : heed::kernels::MatmulPrecision::f32;
  auto x = random_floats(static_cast<std::size_t>(M * K), -1, 1, 1);
  auto w = random_floats(static_cast<std::size_t>(N * K), -1, 1, 2);
  std::vector<float> c(static_cast<std::size_t>(M * N));
  const heed::kernels::PackedWeight packed(w.data(), w.size(), precision);
  for (auto _ : state) {
    heed::kernels::gemm<float>({heed::kernels::MatmulPrecision::f32, &packed}, false, true, M, N, K,
                               1.0f, x.data(), K, w.data(), K, 0.0f, c.data(), N);
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  if (packed.products() == 0) state.SkipWithError("not run by oneDNN");
  heed::bench::set_flops(state, 2.0 * M * N * K);
}

BENCHMARK(BM_GemmFrozen)
    ->ArgNames({"M", "N", "K", "bf16"})
    // a decoder step's recurrent product and vocabulary projection (greedy 64, beam 320 rows;
    // 32: the row block of one of two threads)
    ->Args({64, 768, 256, 0})
    ->Args({64, 768, 256, 1})
    ->Args({64, 8000, 256, 0})
    ->Args({64, 8000, 256, 1})
    ->Args({32, 8000, 256, 0})
    ->Args({32, 8000, 256, 1})
    ->Args({320, 8000, 256, 0})
    ->Args({320, 8000, 256, 1})
    ->Unit(benchmark::kMicrosecond);

// Training's products in bf16 (both operands rounded per call); args as BM_Gemm.
void BM_GemmBf16(benchmark::State& state) {
  heed::kernels::require_bf16_products();
  run_gemm(state, heed::kernels::MatmulPrecision::bf16);
}

BENCHMARK(BM_GemmBf16)
    ->ArgNames({"M", "N", "K", "ta", "tb"})
    ->Args({1920, 768, 256, 0, 1})
    ->Args({768, 256, 1920, 1, 0})
    ->Args({1920, 8000, 256, 0, 1})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
