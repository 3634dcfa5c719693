#pragma once
// Fused softmax cross-entropy, PyTorch's F.cross_entropy(logits, targets,
// ignore_index=..., label_smoothing=eps) with reduction "mean":
//   loss = sum over kept rows r of [(1 - eps) nll_r + eps * mean_c(-log p_rc)] / count,
// count = the number of targets not equal to ignore_index. One pass per row computes the
// log-sum-exp; the backward writes softmax - target distribution straight into the logits'
// gradient. Unlike PyTorch (NaN), a batch with every target ignored gives loss 0.
#include <cstdint>
#include <vector>

#include "heed/autograd/var.h"

namespace heed {

struct CrossEntropyResult {
  Var loss;            // 0-d scalar, the mean over counted targets
  std::int64_t count;  // targets not equal to ignore_index (what the mean divides by)
};

// logits (..., V): all leading dimensions are rows, one target per row (row-major order).
// Targets must lie in [0, V) unless equal to ignore_index; label_smoothing in [0, 1].
CrossEntropyResult cross_entropy_with_count(const Var& logits,
                                            const std::vector<std::int32_t>& targets,
                                            std::int32_t ignore_index = -100,
                                            double label_smoothing = 0.0);

Var cross_entropy(const Var& logits, const std::vector<std::int32_t>& targets,
                  std::int32_t ignore_index = -100, double label_smoothing = 0.0);

}  // namespace heed
