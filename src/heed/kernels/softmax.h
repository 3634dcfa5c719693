#pragma once
// Softmax and log-softmax over the rows of a row-major (rows x cols) block, with an
// optional mask. Stable: each row subtracts its maximum before exponentiating.
//
// Mask convention (as in the PyTorch reference's masked_fill(~mask, -inf)): mask[c] != 0
// keeps position c, 0 masks it. A mask of mask_rows rows (mask_rows divides rows) is reused
// cyclically, row r reading mask row r % mask_rows, so a (B, m) mask serves (T, B, m)
// scores. Masked positions get probability exactly 0 (log-probability -inf); a row with
// every position masked gives all zeros (log: all -inf), never NaN.
#include <cstdint>

namespace heed::kernels {

template <typename T>
void softmax_rows(const T* x, T* y, std::int64_t rows, std::int64_t cols,
                  const std::uint8_t* mask = nullptr, std::int64_t mask_rows = 0);

template <typename T>
void log_softmax_rows(const T* x, T* y, std::int64_t rows, std::int64_t cols,
                      const std::uint8_t* mask = nullptr, std::int64_t mask_rows = 0);

// Greedy decoding's pick per row: the first position of the row's maximum, and its
// log-probability under the row's softmax, -log sum_c exp(x_c - max), in two read-only
// passes (no log-softmax row is written). A row that is all -inf gets index 0 and -inf.
template <typename T>
void argmax_log_prob_rows(const T* x, std::int64_t rows, std::int64_t cols, std::int32_t* index,
                          T* log_prob);

// Each row's log-sum-exp, max + log sum_c exp(x_c - max), read-only: beam search scores
// x_c - lse[r] as it scans instead of writing a log-softmax block. An all -inf row gets -inf.
template <typename T>
void log_sum_exp_rows(const T* x, std::int64_t rows, std::int64_t cols, T* lse);

// dx += y (dy - <dy, y>), from the softmax output y (masked entries of y are 0, so their
// dx is 0 with no mask needed).
template <typename T>
void softmax_rows_backward(const T* y, const T* dy, T* dx, std::int64_t rows, std::int64_t cols);

// dx += dy - exp(y) sum(dy), from the log-softmax output y; entries where y = -inf (masked)
// get no gradient, as masked_fill's backward gives them none.
template <typename T>
void log_softmax_rows_backward(const T* y, const T* dy, T* dx, std::int64_t rows,
                               std::int64_t cols);

}  // namespace heed::kernels
