#pragma once
// Splitting a batch's rows across threads for work whose rows are independent through many
// steps (a decoder's recurrence): each thread runs every step for its block of rows with
// single-threaded kernels and GEMMs (OpenBLAS runs one thread when called inside a parallel
// region), so the threads never wait for each other inside the loop.
#include <omp.h>

#include <algorithm>
#include <cstdint>

#include "heed/kernels/gemm.h"

namespace heed::kernels {

// Blocks of at least 8 rows, at most one per thread.
inline int row_block_count(std::int64_t rows) {
  return static_cast<int>(
      std::max<std::int64_t>(1, std::min<std::int64_t>(num_threads(), rows / 8)));
}

// body(block, r0, r1) for each of row_block_count(rows) blocks [r0, r1), in parallel.
template <typename Body>
void for_row_blocks(std::int64_t rows, Body body) {
  const int nt = row_block_count(rows);
  if (nt == 1) return body(0, std::int64_t{0}, rows);
#pragma omp parallel num_threads(nt)
  {
    // Inside another parallel region the team may be smaller than asked: loop.
    for (int i = omp_get_thread_num(); i < nt; i += omp_get_num_threads())
      body(i, rows * i / nt, rows * (i + 1) / nt);
  }
}

}  // namespace heed::kernels
