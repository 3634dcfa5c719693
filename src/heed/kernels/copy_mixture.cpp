#include "heed/kernels/copy_mixture.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "heed/kernels/fast_math.h"
#include "heed/kernels/gemm.h"
#include "heed/kernels/softmax.h"

namespace heed::kernels {
namespace {

constexpr std::int64_t kParallelWork = std::int64_t{1} << 15;

// log sigmoid(x) = -softplus(-x), without overflow on either side.
double log_sigmoid(double x) { return -(std::max(-x, 0.0) + std::log1p(std::exp(-std::abs(x)))); }

double log_add_exp(double a, double b) {
  if (a == -std::numeric_limits<double>::infinity()) return b;
  if (b == -std::numeric_limits<double>::infinity()) return a;
  const double hi = std::max(a, b);
  return hi + std::log1p(std::exp(std::min(a, b) - hi));
}

template <typename T>
double copy_mass_of(const T* alpha, const std::int32_t* ids, std::int64_t m, std::int32_t t) {
  double a = 0;
  for (std::int64_t j = 0; j < m; ++j)
    if (ids[j] == t) a += static_cast<double>(alpha[j]);
  return a;
}

}  // namespace

template <typename T>
void copy_mixture_loss_forward(const T* logits, const T* lse, std::int64_t rows, std::int64_t V,
                               const T* gate, const T* alpha, std::int64_t m,
                               const std::int32_t* copy_ids, const std::int32_t* targets,
                               std::int32_t ignore_index, T* w_vocab, T* copy_mass,
                               double* row_loss) {
  constexpr double kNegInf = -std::numeric_limits<double>::infinity();
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int32_t t = targets[r];
    if (t == ignore_index) {
      w_vocab[r] = 0;
      copy_mass[r] = 0;
      row_loss[r] = 0;
      continue;
    }
    const double z = static_cast<double>(gate[r]);
    const double log_a = t < V ? log_sigmoid(z) + static_cast<double>(logits[r * V + t]) -
                                     static_cast<double>(lse[r])
                               : kNegInf;
    double A = copy_mass_of(alpha + r * m, copy_ids + r * m, m, t);
    // A word only the source holds must keep a finite probability (alpha may underflow).
    if (t >= V) A = std::max(A, kMinCopyMass);
    const double log_b = A > 0 ? log_sigmoid(-z) + std::log(A) : kNegInf;
    const double log_p = log_add_exp(log_a, log_b);
    w_vocab[r] = static_cast<T>(log_a == kNegInf ? 0.0 : std::exp(log_a - log_p));
    copy_mass[r] = static_cast<T>(A);
    row_loss[r] = -log_p;
  }
}

template <typename T>
void copy_mixture_loss_backward(const T* logits, const T* lse, std::int64_t rows, std::int64_t V,
                                const T* gate, std::int64_t m, const std::int32_t* copy_ids,
                                const std::int32_t* targets, std::int32_t ignore_index,
                                const T* w_vocab, const T* copy_mass, T scale, T* dlogits,
                                T* dgate, T* dalpha) {
  const bool parallel = rows > 1 && rows * V >= kParallelWork;
#pragma omp parallel for schedule(static) if (parallel) num_threads(num_threads())
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int32_t t = targets[r];
    if (t == ignore_index) continue;
    const T wa = w_vocab[r];
    if (dlogits && wa != T(0)) {
      const T* x = logits + r * V;
      T* d = dlogits + r * V;
      const T l = lse[r], s = scale * wa;
#pragma omp simd
      for (std::int64_t c = 0; c < V; ++c) d[c] += s * fast_exp(x[c] - l);
      d[t] -= s;
    }
    if (dgate) {
      const double p = 1.0 / (1.0 + std::exp(-static_cast<double>(gate[r])));
      dgate[r] += scale * static_cast<T>(p - static_cast<double>(wa));
    }
    if (dalpha && copy_mass[r] > T(0)) {
      const T g = -scale * (T(1) - wa) / copy_mass[r];
      const std::int32_t* ids = copy_ids + r * m;
      T* d = dalpha + r * m;
      for (std::int64_t j = 0; j < m; ++j)
        if (ids[j] == t) d[j] += g;
    }
  }
}

template <typename T>
void copy_mixture_log_probs(const T* logits, std::int64_t rows, std::int64_t V, const T* gate,
                            const T* alpha, std::int64_t m, const std::int32_t* copy_ids,
                            std::int64_t K, T* out) {
  const std::int64_t W = V + K;
  std::vector<T> lse(static_cast<std::size_t>(rows));
  log_sum_exp_rows<T>(logits, rows, V, lse.data());
  std::vector<std::pair<std::int32_t, double>> mass;
  for (std::int64_t r = 0; r < rows; ++r) {
    const double z = static_cast<double>(gate[r]);
    const T shift = static_cast<T>(log_sigmoid(z)) - lse[r];
    const T* x = logits + r * V;
    T* o = out + r * W;
    for (std::int64_t c = 0; c < V; ++c) o[c] = x[c] + shift;
    for (std::int64_t c = V; c < W; ++c) o[c] = -std::numeric_limits<T>::infinity();
    // The copy mass of each distinct id of the row: sorted, then summed run by run.
    mass.clear();
    for (std::int64_t j = 0; j < m; ++j)
      if (alpha[r * m + j] > T(0)) mass.emplace_back(copy_ids[r * m + j], alpha[r * m + j]);
    std::sort(mass.begin(), mass.end());
    const double log_copy = log_sigmoid(-z);
    for (std::size_t i = 0; i < mass.size();) {
      const std::int32_t id = mass[i].first;
      double A = 0;
      for (; i < mass.size() && mass[i].first == id; ++i) A += mass[i].second;
      if (id < 0 || id >= W) continue;  // not a word of this vocabulary (the caller checks)
      o[id] = static_cast<T>(log_add_exp(static_cast<double>(o[id]), log_copy + std::log(A)));
    }
  }
}

#define HEED_INSTANTIATE(T)                                                                     \
  template void copy_mixture_loss_forward<T>(const T*, const T*, std::int64_t, std::int64_t,    \
                                             const T*, const T*, std::int64_t,                  \
                                             const std::int32_t*, const std::int32_t*,          \
                                             std::int32_t, T*, T*, double*);                    \
  template void copy_mixture_loss_backward<T>(const T*, const T*, std::int64_t, std::int64_t,   \
                                              const T*, std::int64_t, const std::int32_t*,      \
                                              const std::int32_t*, std::int32_t, const T*,      \
                                              const T*, T, T*, T*, T*);                         \
  template void copy_mixture_log_probs<T>(const T*, std::int64_t, std::int64_t, const T*,       \
                                          const T*, std::int64_t, const std::int32_t*,          \
                                          std::int64_t, T*);
HEED_INSTANTIATE(float)
HEED_INSTANTIATE(double)
#undef HEED_INSTANTIATE

}  // namespace heed::kernels
