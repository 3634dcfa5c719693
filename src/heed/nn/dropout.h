#pragma once
// Dropout: inverted dropout while the module is training, the identity in eval mode.
#include "heed/nn/module.h"

namespace heed {

class Dropout : public Module {
 public:
  explicit Dropout(double p);
  // The mask comes from rng (the run's one generator), so training repeats bit for bit.
  Var forward(const Var& x, Rng& rng) const;
  double p() const { return p_; }

 private:
  double p_;
};

}  // namespace heed
