#pragma once
// SGD with momentum, dampening, Nesterov and weight decay, as torch.optim.SGD (1.13):
//   d = g + wd * p
//   buf = d (first step) | momentum * buf + (1 - dampening) * d
//   d = d + momentum * buf (nesterov) | buf
//   p -= lr * d
#include "heed/train/optimizer.h"

namespace heed {

struct SgdOptions {
  double lr = 0.01;
  double momentum = 0.0;
  double dampening = 0.0;
  double weight_decay = 0.0;
  bool nesterov = false;
};

class Sgd : public Optimizer {
 public:
  Sgd(std::vector<Var> params, SgdOptions options);
  const SgdOptions& options() const { return options_; }

 protected:
  std::vector<std::string> buffer_names() const override;
  void update(const Var& p, const Tensor& g, ParamState& s, bool first) override;

 private:
  SgdOptions options_;
};

}  // namespace heed
