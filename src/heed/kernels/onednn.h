#pragma once
// What heed's oneDNN users share: the CPU engine and storing a dense result into a strided one.
#include <cstddef>
#include <cstdint>

#include <dnnl.hpp>

namespace heed::kernels {

// The process's oneDNN CPU engine.
dnnl::engine& onednn_engine();

// C (rows x cols, row stride ldc) = D (dense rows x cols) when beta is 0, C += D otherwise:
// how a product computed into a dense buffer reaches a strided C.
void store_rows(const float* D, std::int64_t rows, std::int64_t cols, float beta, float* C,
                std::int64_t ldc);

}  // namespace heed::kernels
