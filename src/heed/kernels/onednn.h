#pragma once
// What heed's oneDNN users share: the CPU engine and rounding to bfloat16.
#include <cstddef>
#include <cstdint>

#include <dnnl.hpp>

namespace heed::kernels {

// The process's oneDNN CPU engine.
dnnl::engine& onednn_engine();

// rows x cols floats (row stride ld) to dense bfloat16 (row stride cols), rounded to
// nearest even; NaN stays NaN.
void round_to_bf16(const float* src, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                   std::uint16_t* dst);

// C (rows x cols, row stride ldc) = D (dense rows x cols) when beta is 0, C += D otherwise:
// how a product computed into a dense buffer reaches a strided C.
void store_rows(const float* D, std::int64_t rows, std::int64_t cols, float beta, float* C,
                std::int64_t ldc);

}  // namespace heed::kernels
