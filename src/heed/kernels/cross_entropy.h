#pragma once
// Fused softmax cross-entropy over the rows of (rows x cols) logits, PyTorch semantics
// with ignore_index and label smoothing eps:
//   loss_r = (1 - eps) (lse_r - x[r, t_r]) + eps / cols * sum_c (lse_r - x[r, c]).
// The forward keeps only each row's log-sum-exp; the backward recomputes
// softmax - target distribution in one pass, so no (rows x cols) softmax is ever stored.
// Targets must be in [0, cols) or equal ignore_index (the caller checks).
#include <cstdint>

namespace heed::kernels {

// Writes lse[r] and row_loss[r] (0 for ignored rows).
template <typename T>
void cross_entropy_forward(const T* logits, std::int64_t rows, std::int64_t cols,
                           const std::int32_t* targets, std::int32_t ignore_index,
                           double label_smoothing, T* lse, double* row_loss);

// dlogits[r, c] += scale (softmax[r, c] - (1 - eps) [c == t_r] - eps / cols) for every
// row that is not ignored; scale is d(loss)/d(sum of row losses), e.g. 1 / count.
template <typename T>
void cross_entropy_backward(const T* logits, const T* lse, std::int64_t rows, std::int64_t cols,
                            const std::int32_t* targets, std::int32_t ignore_index,
                            double label_smoothing, T scale, T* dlogits);

}  // namespace heed::kernels
