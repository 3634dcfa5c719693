#include "heed/nn/dropout.h"

#include "heed/autograd/dropout.h"

namespace heed {

Dropout::Dropout(double p) : p_(p) {
  HEED_CHECK(p >= 0.0 && p <= 1.0, "Dropout: probability must be in [0, 1], got ", p);
}

Var Dropout::forward(const Var& x, Rng& rng) const { return dropout(x, p_, rng, training()); }

}  // namespace heed
