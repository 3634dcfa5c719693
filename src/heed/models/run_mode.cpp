#include "heed/models/run_mode.h"

#include "heed/autograd/dropout_op.h"
#include "heed/base/error.h"

namespace heed {

Var maybe_dropout(const Var& x, const RunMode& mode) {
  if (!mode.training || mode.dropout <= 0) return x;
  HEED_CHECK(mode.rng != nullptr, "model: dropout in training needs an Rng (call set_rng first)");
  return dropout(x, mode.dropout, *mode.rng, true);
}

}  // namespace heed
