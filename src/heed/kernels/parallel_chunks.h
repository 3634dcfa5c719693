#pragma once
// Splitting element-wise work (a copy, the bias broadcast, ReLU, a gradient sum) into one
// contiguous chunk per thread, for the loops between the products of a training step that
// would otherwise leave the second core idle. Every element is computed exactly as on one
// thread, so results do not depend on the thread count. Small work stays on the calling
// thread (waking the team costs more than it saves), and so does work already inside a
// parallel region.
#include <omp.h>

#include <algorithm>
#include <cstdint>

namespace heed::kernels {

// Below this many elements of work a chunk is not worth a thread.
inline constexpr std::int64_t kChunkMinWork = std::int64_t{1} << 15;

// body(begin, end) over [0, n) in contiguous pieces, in parallel when n items of
// work_per_item elements each are enough work. Piece boundaries are multiples of `align`
// items (16 floats = one cache line for element-wise loops over n elements), so a
// vectorised loop splits its work the same way whatever the thread count.
template <typename Body>
void parallel_chunks(std::int64_t n, std::int64_t work_per_item, Body body,
                     std::int64_t align = 1) {
  const std::int64_t work = n * std::max<std::int64_t>(work_per_item, 1);
  std::int64_t nt = omp_in_parallel() ? 1 : omp_get_max_threads();
  nt = std::min({nt, n / std::max<std::int64_t>(align, 1), work / kChunkMinWork});
  if (nt <= 1) {
    if (n > 0) body(std::int64_t{0}, n);
    return;
  }
  const std::int64_t blocks = (n + align - 1) / align;
#pragma omp parallel num_threads(static_cast<int>(nt))
  {
    // The team may be smaller than asked: each thread takes its share of the pieces.
    const std::int64_t t = omp_get_thread_num(), k = omp_get_num_threads();
    const std::int64_t b0 = std::min(n, blocks * t / k * align);
    const std::int64_t b1 = std::min(n, blocks * (t + 1) / k * align);
    if (b1 > b0) body(b0, b1);
  }
}

}  // namespace heed::kernels
