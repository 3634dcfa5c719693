#include "heed/kernels/ctc.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace heed::kernels {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// log(e^a + e^b), exact at -inf.
double log_add(double a, double b) {
  if (a == kNegInf) return b;
  if (b == kNegInf) return a;
  const double hi = std::max(a, b), lo = std::min(a, b);
  return hi + std::log1p(std::exp(lo - hi));
}

// One row: its frames' log-softmax, alpha and beta over the extended target, the nll and
// (when grad) the gradient. Returns false when the target is infeasible.
template <typename T>
bool ctc_row(const CtcShape& s, const T* x, std::int64_t frames, const std::int32_t* y,
             std::int64_t L, double& nll, T scale, T* grad) {
  const std::int64_t V = s.symbols, S = 2 * L + 1;
  const auto sym = [&](std::int64_t k) { return k % 2 == 0 ? s.blank : y[k / 2]; };
  // l'_k may also come from l'_{k-2}: a symbol unlike the one two back (the blank between
  // two equal symbols cannot be skipped).
  const auto skips = [&](std::int64_t k) { return k >= 2 && k % 2 == 1 && y[k / 2] != y[k / 2 - 1]; };
  std::vector<double> lp(static_cast<std::size_t>(frames * V));
  for (std::int64_t t = 0; t < frames; ++t) {
    const T* row = x + t * V;
    double top = kNegInf;
    for (std::int64_t v = 0; v < V; ++v) top = std::max(top, static_cast<double>(row[v]));
    double sum = 0;
    for (std::int64_t v = 0; v < V; ++v) sum += std::exp(static_cast<double>(row[v]) - top);
    const double lse = top + std::log(sum);
    for (std::int64_t v = 0; v < V; ++v)
      lp[static_cast<std::size_t>(t * V + v)] = static_cast<double>(row[v]) - lse;
  }
  const auto at = [&](std::vector<double>& a, std::int64_t t, std::int64_t k) -> double& {
    return a[static_cast<std::size_t>(t * S + k)];
  };
  const auto emit = [&](std::int64_t t, std::int64_t k) {
    return lp[static_cast<std::size_t>(t * V + sym(k))];
  };
  std::vector<double> alpha(static_cast<std::size_t>(frames * S), kNegInf), beta(alpha);
  double logp = kNegInf;
  if (frames > 0) {
    at(alpha, 0, 0) = emit(0, 0);
    if (S > 1) at(alpha, 0, 1) = emit(0, 1);
    for (std::int64_t t = 1; t < frames; ++t)
      for (std::int64_t k = 0; k < S; ++k) {
        double a = at(alpha, t - 1, k);
        if (k >= 1) a = log_add(a, at(alpha, t - 1, k - 1));
        if (skips(k)) a = log_add(a, at(alpha, t - 1, k - 2));
        at(alpha, t, k) = a == kNegInf ? kNegInf : a + emit(t, k);
      }
    logp = at(alpha, frames - 1, S - 1);
    if (S > 1) logp = log_add(logp, at(alpha, frames - 1, S - 2));
  } else if (L == 0) {
    logp = 0;  // no frame and nothing to emit: the empty alignment, probability 1
  }
  if (logp == kNegInf || !std::isfinite(logp)) {
    nll = std::numeric_limits<double>::infinity();
    return false;
  }
  nll = -logp;
  if (!grad || frames == 0) return true;
  // beta(t, k): log P(the rest of the target after frame t | at l'_k at frame t), excluding
  // frame t's own emission.
  at(beta, frames - 1, S - 1) = 0;
  if (S > 1) at(beta, frames - 1, S - 2) = 0;
  for (std::int64_t t = frames - 2; t >= 0; --t)
    for (std::int64_t k = 0; k < S; ++k) {
      double b = at(beta, t + 1, k) + emit(t + 1, k);
      if (k + 1 < S) b = log_add(b, at(beta, t + 1, k + 1) + emit(t + 1, k + 1));
      if (k + 2 < S && skips(k + 2)) b = log_add(b, at(beta, t + 1, k + 2) + emit(t + 1, k + 2));
      at(beta, t, k) = b;
    }
  // d nll / d x_t,v = softmax_t,v - (sum over k with l'_k = v of alpha beta) / p.
  std::vector<double> occupancy(static_cast<std::size_t>(V));
  for (std::int64_t t = 0; t < frames; ++t) {
    std::fill(occupancy.begin(), occupancy.end(), 0.0);
    for (std::int64_t k = 0; k < S; ++k) {
      const double a = at(alpha, t, k), b = at(beta, t, k);
      if (a == kNegInf || b == kNegInf) continue;
      occupancy[static_cast<std::size_t>(sym(k))] += std::exp(a + b - logp);
    }
    T* g = grad + t * V;
    for (std::int64_t v = 0; v < V; ++v)
      g[v] += scale * static_cast<T>(std::exp(lp[static_cast<std::size_t>(t * V + v)]) -
                                     occupancy[static_cast<std::size_t>(v)]);
  }
  return true;
}

}  // namespace

template <typename T>
std::int64_t ctc_loss(const CtcShape& s, const T* logits, const std::int64_t* frame_lengths,
                      const std::int32_t* targets, const std::int64_t* target_lengths,
                      double* nll, T scale, T* grad) {
  std::vector<std::int64_t> offset(static_cast<std::size_t>(s.batch + 1), 0);
  for (std::int64_t b = 0; b < s.batch; ++b)
    offset[static_cast<std::size_t>(b + 1)] = offset[static_cast<std::size_t>(b)] + target_lengths[b];
  std::int64_t infeasible = 0;
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : infeasible) if (s.batch > 1)
  for (std::int64_t b = 0; b < s.batch; ++b) {
    const std::int64_t row = b * s.frames * s.symbols;
    if (!ctc_row(s, logits + row, frame_lengths[b], targets + offset[static_cast<std::size_t>(b)],
                 target_lengths[b], nll[b], scale, grad ? grad + row : nullptr))
      ++infeasible;
  }
  return infeasible;
}

template std::int64_t ctc_loss<float>(const CtcShape&, const float*, const std::int64_t*,
                                      const std::int32_t*, const std::int64_t*, double*, float,
                                      float*);
template std::int64_t ctc_loss<double>(const CtcShape&, const double*, const std::int64_t*,
                                       const std::int32_t*, const std::int64_t*, double*, double,
                                       double*);

}  // namespace heed::kernels
