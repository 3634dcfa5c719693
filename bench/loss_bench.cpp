// Fused softmax cross-entropy over the vocabulary logits of a whole mt batch (64 x 30 rows,
// V = 8000) and the row softmax kernels. Nominal FLOPs per element (exp counted as one):
// cross-entropy forward 4 (max, subtract, exp, sum), backward 4 (subtract, exp, scale,
// accumulate); softmax forward 5 (max, subtract, exp, sum, scale), backward 4. These
// kernels are bound by memory and exp, so bytes/s is reported too.
#include <benchmark/benchmark.h>

#include <vector>

#include "micro.h"
#include "heed/kernels/cross_entropy.h"
#include "heed/kernels/softmax.h"

namespace {

using heed::bench::random_floats;

std::vector<std::int32_t> targets(std::int64_t rows, std::int64_t cols) {
  std::vector<std::int32_t> t(static_cast<std::size_t>(rows));
  for (std::int64_t r = 0; r < rows; ++r)
    t[r] = r % 10 == 9 ? 0 : static_cast<std::int32_t>((r * 7919) % cols);  // 10% padding
  return t;
}

void set_bytes(benchmark::State& state, double bytes) {
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes) * state.iterations());
}

void BM_CrossEntropyForward(benchmark::State& state) {
  const std::int64_t rows = state.range(0), cols = state.range(1);
  auto logits = random_floats(static_cast<std::size_t>(rows * cols), -4, 4, 1);
  auto t = targets(rows, cols);
  std::vector<float> lse(static_cast<std::size_t>(rows));
  std::vector<double> loss(static_cast<std::size_t>(rows));
  for (auto _ : state) {
    heed::kernels::cross_entropy_forward<float>(logits.data(), rows, cols, t.data(), 0, 0.0,
                                                lse.data(), loss.data());
    benchmark::DoNotOptimize(loss.data());
    benchmark::ClobberMemory();
  }
  heed::bench::set_flops(state, 4.0 * rows * cols);
  set_bytes(state, 4.0 * rows * cols);
}

void BM_CrossEntropyBackward(benchmark::State& state) {
  const std::int64_t rows = state.range(0), cols = state.range(1);
  auto logits = random_floats(static_cast<std::size_t>(rows * cols), -4, 4, 1);
  auto t = targets(rows, cols);
  std::vector<float> lse(static_cast<std::size_t>(rows));
  std::vector<double> loss(static_cast<std::size_t>(rows));
  heed::kernels::cross_entropy_forward<float>(logits.data(), rows, cols, t.data(), 0, 0.0,
                                              lse.data(), loss.data());
  std::vector<float> dlogits(static_cast<std::size_t>(rows * cols));
  const float scale = 1.0f / static_cast<float>(rows);
  for (auto _ : state) {
    heed::kernels::cross_entropy_backward<float>(logits.data(), lse.data(), rows, cols, t.data(), 0,
                                                 0.0, scale, dlogits.data());
    benchmark::DoNotOptimize(dlogits.data());
    benchmark::ClobberMemory();
  }
  heed::bench::set_flops(state, 4.0 * rows * cols);
  set_bytes(state, 12.0 * rows * cols);  // read logits, read + write dlogits
}

void BM_SoftmaxForward(benchmark::State& state) {
  const std::int64_t rows = state.range(0), cols = state.range(1);
  const bool log = state.range(2) != 0;
  auto x = random_floats(static_cast<std::size_t>(rows * cols), -4, 4, 1);
  std::vector<float> y(x.size());
  for (auto _ : state) {
    if (log)
      heed::kernels::log_softmax_rows<float>(x.data(), y.data(), rows, cols);
    else
      heed::kernels::softmax_rows<float>(x.data(), y.data(), rows, cols);
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  heed::bench::set_flops(state, 5.0 * rows * cols);
  set_bytes(state, 8.0 * rows * cols);
}

void BM_SoftmaxBackward(benchmark::State& state) {
  const std::int64_t rows = state.range(0), cols = state.range(1);
  auto x = random_floats(static_cast<std::size_t>(rows * cols), -4, 4, 1);
  std::vector<float> y(x.size());
  heed::kernels::softmax_rows<float>(x.data(), y.data(), rows, cols);
  auto dy = random_floats(x.size(), -1, 1, 2);
  std::vector<float> dx(x.size());
  for (auto _ : state) {
    heed::kernels::softmax_rows_backward<float>(y.data(), dy.data(), dx.data(), rows, cols);
    benchmark::DoNotOptimize(dx.data());
    benchmark::ClobberMemory();
  }
  heed::bench::set_flops(state, 4.0 * rows * cols);
  set_bytes(state, 16.0 * rows * cols);
}

// Greedy decoding's pick over one step's logits: each row's argmax and its log-probability
// (maximum, first index of it, sum of exponentials). Nominal FLOPs per element 3.
void BM_ArgmaxLogProb(benchmark::State& state) {
  const std::int64_t rows = state.range(0), cols = state.range(1);
  auto x = random_floats(static_cast<std::size_t>(rows * cols), -4, 4, 1);
  std::vector<std::int32_t> index(static_cast<std::size_t>(rows));
  std::vector<float> logp(static_cast<std::size_t>(rows));
  for (auto _ : state) {
    heed::kernels::argmax_log_prob_rows<float>(x.data(), rows, cols, index.data(), logp.data());
    benchmark::DoNotOptimize(logp.data());
    benchmark::ClobberMemory();
  }
  heed::bench::set_flops(state, 3.0 * rows * cols);
  set_bytes(state, 4.0 * rows * cols);
}

// (64 * 30, 8000): a whole mt batch; (320, 8000): one beam step's log-softmax.
BENCHMARK(BM_CrossEntropyForward)
    ->ArgNames({"rows", "V"})
    ->Args({1920, 8000})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CrossEntropyBackward)
    ->ArgNames({"rows", "V"})
    ->Args({1920, 8000})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SoftmaxForward)
    ->ArgNames({"rows", "V", "log"})
    ->Args({1920, 8000, 0})
    ->Args({320, 8000, 1})
    ->Args({64 * 30, 30, 0})  // attention-sized rows
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ArgmaxLogProb)
    ->ArgNames({"rows", "V"})
    ->Args({32, 8000})  // one greedy step of an mt row block
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SoftmaxBackward)
    ->ArgNames({"rows", "V"})
    ->Args({1920, 8000})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
