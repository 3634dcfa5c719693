#pragma once
// Adam and AdamW, as torch.optim.Adam / AdamW (1.13, amsgrad off). At step t:
//   Adam:  g += wd * p            AdamW: p *= 1 - lr * wd
//   m = b1 m + (1 - b1) g ;  v = b2 v + (1 - b2) g²
//   p -= (lr / (1 - b1^t)) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
#include "heed/train/optimizer.h"

namespace heed {

struct AdamOptions {
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0.0;  // torch's AdamW defaults to 1e-2: set it explicitly
  bool decoupled = false;     // true: AdamW's decoupled weight decay
};

class Adam : public Optimizer {
 public:
  Adam(std::vector<Var> params, AdamOptions options);
  const AdamOptions& options() const { return options_; }

 protected:
  std::vector<std::string> buffer_names() const override;
  void update(const Var& p, const Tensor& g, ParamState& s, bool first) override;

 private:
  AdamOptions options_;
};

// Adam with decoupled weight decay (options.decoupled is forced on).
class AdamW : public Adam {
 public:
  AdamW(std::vector<Var> params, AdamOptions options);
};

}  // namespace heed
