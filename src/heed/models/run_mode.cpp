#include "heed/models/run_mode.h"

#include "heed/autograd/dropout_op.h"
#include "heed/base/error.h"

namespace heed {

double dropout_rate(const RunMode& mode) {
  if (!mode.training || mode.dropout <= 0) return 0.0;
  HEED_CHECK(mode.rng != nullptr, "model: dropout in training needs an Rng (call set_rng first)");
  return mode.dropout;
}

Var maybe_dropout(const Var& x, const RunMode& mode) {
  const double p = dropout_rate(mode);
  return p > 0 ? dropout(x, p, *mode.rng, true) : x;
}

}  // namespace heed
