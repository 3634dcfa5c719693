#pragma once
// softmax and log_softmax over the last dimension, optionally masked.
//
// mask[i] != 0 keeps a position, 0 masks it (it gets -inf before the softmax: probability
// exactly 0, log-probability -inf, no gradient). The mask covers the trailing dimensions
// of x, last one included: the same shape as x, or e.g. (B, m) for x of shape (T, B, m),
// reused for every leading index. A fully masked row gives zeros (log_softmax: -inf),
// never NaN. An empty mask vector means no mask.
#include <cstdint>
#include <vector>

#include "heed/autograd/var.h"

namespace heed {

Var softmax(const Var& x);
Var softmax(const Var& x, const std::vector<std::uint8_t>& mask);
Var softmax(const Var& x, const Tensor& mask);  // float mask: nonzero keeps

Var log_softmax(const Var& x);
Var log_softmax(const Var& x, const std::vector<std::uint8_t>& mask);
Var log_softmax(const Var& x, const Tensor& mask);

}  // namespace heed
