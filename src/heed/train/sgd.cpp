#include "heed/train/sgd.h"

namespace heed {

namespace {

template <typename T>
void sgd_update(T* __restrict p, const T* __restrict g, T* __restrict buf, std::int64_t n,
                const SgdOptions& o, bool first) {
  const T lr = static_cast<T>(o.lr), wd = static_cast<T>(o.weight_decay);
  const T mom = static_cast<T>(o.momentum), keep = static_cast<T>(1.0 - o.dampening);
  const bool parallel = worth_parallel(n);
  if (buf == nullptr) {
#pragma omp parallel for simd if (parallel)
    for (std::int64_t i = 0; i < n; ++i) p[i] -= lr * (g[i] + wd * p[i]);
    return;
  }
  const bool nesterov = o.nesterov;
#pragma omp parallel for simd if (parallel)
  for (std::int64_t i = 0; i < n; ++i) {
    const T d = g[i] + wd * p[i];
    const T b = first ? d : mom * buf[i] + keep * d;
    buf[i] = b;
    p[i] -= lr * (nesterov ? d + mom * b : b);
  }
}

}  // namespace

Sgd::Sgd(std::vector<Var> params, SgdOptions options)
    : Optimizer(std::move(params), options.lr), options_(options) {
  HEED_CHECK(options.momentum >= 0.0, "SGD: invalid momentum ", options.momentum);
  HEED_CHECK(options.weight_decay >= 0.0, "SGD: invalid weight_decay ", options.weight_decay);
  HEED_CHECK(!options.nesterov || (options.momentum > 0.0 && options.dampening == 0.0),
             "SGD: Nesterov momentum requires a momentum and zero dampening");
}

std::vector<std::string> Sgd::buffer_names() const {
  if (options_.momentum == 0.0) return {};
  return {"momentum_buffer"};
}

void Sgd::update(const Var& p, const Tensor& g, ParamState& s, bool first) {
  SgdOptions o = options_;
  o.lr = lr();
  dispatch(p.dtype(), [&]<typename T>() {
    T* buf = s.buffers.empty() ? nullptr : s.buffers[0].data<T>();
    sgd_update<T>(p.value().data<T>(), g.data<T>(), buf, p.value().numel(), o, first);
  });
}

}  // namespace heed
