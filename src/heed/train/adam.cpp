#include "heed/train/adam.h"

#include <cmath>

namespace heed {

namespace {

template <typename T>
void adam_update(T* __restrict p, const T* __restrict g, T* __restrict m, T* __restrict v,
                 std::int64_t n, const AdamOptions& o, double lr, std::int64_t step) {
  const double t = static_cast<double>(step);
  const double bias_correction1 = 1.0 - std::pow(o.beta1, t);
  const double bias_correction2 = 1.0 - std::pow(o.beta2, t);
  const T step_size = static_cast<T>(lr / bias_correction1);
  const T inv_bc2_sqrt = static_cast<T>(1.0 / std::sqrt(bias_correction2));
  const T b1 = static_cast<T>(o.beta1), b2 = static_cast<T>(o.beta2);
  const T one_b1 = static_cast<T>(1.0 - o.beta1), one_b2 = static_cast<T>(1.0 - o.beta2);
  const T eps = static_cast<T>(o.eps);
  const T wd = o.decoupled ? T(0) : static_cast<T>(o.weight_decay);
  const T shrink = o.decoupled ? static_cast<T>(1.0 - lr * o.weight_decay) : T(1);
#pragma omp parallel for simd if (worth_parallel(n))
  for (std::int64_t i = 0; i < n; ++i) {
    const T pi = p[i] * shrink;
    const T gi = g[i] + wd * pi;
    const T mi = b1 * m[i] + one_b1 * gi;
    const T vi = b2 * v[i] + one_b2 * gi * gi;
    m[i] = mi;
    v[i] = vi;
    p[i] = pi - step_size * (mi / (std::sqrt(vi) * inv_bc2_sqrt + eps));
  }
}

}  // namespace

Adam::Adam(std::vector<Var> params, AdamOptions options)
    : Optimizer(std::move(params), options.lr), options_(options) {
  HEED_CHECK(options.eps >= 0.0, "Adam: invalid eps ", options.eps);
  HEED_CHECK(options.beta1 >= 0.0 && options.beta1 < 1.0, "Adam: invalid beta1 ",
             options.beta1);
  HEED_CHECK(options.beta2 >= 0.0 && options.beta2 < 1.0, "Adam: invalid beta2 ",
             options.beta2);
  HEED_CHECK(options.weight_decay >= 0.0, "Adam: invalid weight_decay ", options.weight_decay);
}

std::vector<std::string> Adam::buffer_names() const { return {"exp_avg", "exp_avg_sq"}; }

void Adam::update(const Var& p, const Tensor& g, ParamState& s, bool) {
  dispatch(p.dtype(), [&]<typename T>() {
    adam_update<T>(p.value().data<T>(), g.data<T>(), s.buffers[0].data<T>(),
                   s.buffers[1].data<T>(), p.value().numel(), options_, lr(), s.step);
  });
}

namespace {
AdamOptions decoupled(AdamOptions o) {
  o.decoupled = true;
  return o;
}
}  // namespace

AdamW::AdamW(std::vector<Var> params, AdamOptions options)
    : Adam(std::move(params), decoupled(options)) {}

}  // namespace heed
