#pragma once
// Inverted dropout on the tape.
#include "heed/autograd/var.h"
#include "heed/base/random.h"

namespace heed {

// Training: each element is zeroed with probability p and the rest scaled by 1 / (1 - p),
// the mask drawn from rng (so a run repeats); p == 1 zeroes everything. Not training, or
// p == 0: x itself (no copy, no tape entry, no random draws).
Var dropout(const Var& x, double p, Rng& rng, bool training);

}  // namespace heed
