#include "heed/train/clip.h"

#include <algorithm>
#include <cmath>

#include "heed/train/optimizer.h"

namespace heed {

namespace {

template <typename T>
double sum_squares(const T* g, std::int64_t n) {
  double s = 0.0;
#pragma omp parallel for simd reduction(+ : s) if (worth_parallel(n))
  for (std::int64_t i = 0; i < n; ++i) s += static_cast<double>(g[i]) * g[i];
  return s;
}

template <typename T>
double max_abs(const T* g, std::int64_t n) {
  double m = 0.0;
  for (std::int64_t i = 0; i < n; ++i) {
    const double a = std::abs(static_cast<double>(g[i]));
    if (!(a <= m)) m = a;  // propagates NaN
  }
  return m;
}

// p's gradient *= coef.
void scale_grad(const Var& p, double coef, const char* who) {
  Tensor& g = p.grad_buffer();
  HEED_CHECK(g.is_contiguous(), who, ": gradient is not contiguous");
  dispatch(g.dtype(), [&]<typename T>() {
    T* d = g.data<T>();
    const T c = static_cast<T>(coef);
    const std::int64_t n = g.numel();
#pragma omp parallel for simd if (worth_parallel(n))
    for (std::int64_t i = 0; i < n; ++i) d[i] *= c;
  });
}

}  // namespace

double grad_norm(const std::vector<Var>& params, double norm_type) {
  HEED_CHECK(norm_type == 2.0 || norm_type == kInfNorm, "grad_norm: norm_type ", norm_type,
             " is not supported (2 or infinity)");
  double acc = 0.0;
  for (const auto& p : params) {
    if (!p.has_grad()) continue;
    const Tensor g = p.grad().contiguous();
    dispatch(g.dtype(), [&]<typename T>() {
      if (norm_type == 2.0) {
        acc += sum_squares(g.data<T>(), g.numel());
      } else {
        const double m = max_abs(g.data<T>(), g.numel());
        if (!(m <= acc)) acc = m;
      }
    });
  }
  return norm_type == 2.0 ? std::sqrt(acc) : acc;
}

double clip_grad_norm(const std::vector<Var>& params, double max_norm, double norm_type,
                      bool error_if_nonfinite) {
  const double norm = grad_norm(params, norm_type);
  HEED_CHECK(!error_if_nonfinite || std::isfinite(norm), "clip_grad_norm: the total norm of "
             "the gradients is ", norm, " (non-finite)");
  const double coef = max_norm / (norm + 1e-6);
  if (coef >= 1.0) return norm;  // torch multiplies by clamp(coef, max=1): a no-op here
  for (const auto& p : params)
    if (p.has_grad()) scale_grad(p, coef, "clip_grad_norm");
  return norm;
}

double clip_grad_norm_each(const std::vector<Var>& params, double max_norm) {
  double largest = 0.0;
  for (const auto& p : params) {
    if (!p.has_grad()) continue;
    const double norm = grad_norm({p});
    if (!(norm <= largest)) largest = norm;  // propagates NaN
    const double coef = max_norm / (norm + 1e-6);
    if (coef < 1.0) scale_grad(p, coef, "clip_grad_norm_each");
  }
  return largest;
}

}  // namespace heed
