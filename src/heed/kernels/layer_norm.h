#pragma once
// Layer normalisation over the rows of a row-major (rows x cols) block (Ba et al. 2016;
// docs/MODELS.md#transformer), PyTorch's nn.LayerNorm over the last dimension:
//   y = (x - mean) / sqrt(var + eps) * gamma + beta,   var the biased variance of the row.
// The forward keeps each row's mean and 1 / sqrt(var + eps) for the backward.
#include <cstdint>

namespace heed::kernels {

// gamma and beta (cols) may be null (no affine part). mean and rstd (rows) receive the
// statistics.
template <typename T>
void layer_norm_rows(const T* x, const T* gamma, const T* beta, T* y, T* mean, T* rstd,
                     std::int64_t rows, std::int64_t cols, double eps);

// Accumulates dx (rows x cols), dgamma and dbeta (cols) from dy and the forward's x, mean and
// rstd; any of dx, dgamma, dbeta may be null (not wanted).
template <typename T>
void layer_norm_rows_backward(const T* x, const T* gamma, const T* mean, const T* rstd,
                              const T* dy, T* dx, T* dgamma, T* dbeta, std::int64_t rows,
                              std::int64_t cols);

}  // namespace heed::kernels
