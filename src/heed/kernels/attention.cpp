// Exception flags are never read, so comparisons may be treated as non-trapping and GCC
// may if-convert this file's compare-and-select loops (fast_math.h vectorises without it).
#pragma GCC optimize("no-trapping-math")

#include "heed/kernels/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "heed/kernels/fast_math.h"
#include "heed/kernels/kernel_table.h"

// Compiled once per kernel set, into that set's namespace (kernel_table.h).
namespace heed::kernels::HEED_KERNEL_ISA {
namespace {

// Below this much per-step work (multiply-adds) threads cost more than they give.
constexpr std::int64_t kParallelWork = 1 << 15;

template <typename T>
std::int64_t step_work(const AttentionStep<T>& s) {
  const std::int64_t per_pos = (s.kind == ScoreKind::logits ? 0 : s.key_dim) + s.value_dim;
  return s.batch * s.m * per_pos;
}

// The real positions of row b that get weight: [lo, hi) in code indices (position j + 1).
// Local-p keeps those with |j + 1 - p| <= D, tested exactly as written (no rounding).
template <typename T>
void row_range(const AttentionStep<T>& s, std::int64_t b, std::int64_t& lo, std::int64_t& hi) {
  const std::int64_t len = s.lengths[b];
  lo = 0;
  hi = len;
  if (s.p) {
    const T p = s.p[b];
    lo = len;
    hi = 0;
    for (std::int64_t j = 0; j < len; ++j)
      if (std::abs(T(j + 1) - p) <= s.window) {
        lo = std::min(lo, j);
        hi = j + 1;
      }
    if (hi <= lo) lo = hi = 0;  // cannot happen for p in [0, S] and D >= 1; stay safe
  }
  if (s.from) {
    const std::int64_t wlo = std::max(lo, s.from[b]), whi = std::min(hi, s.to[b]);
    if (wlo < whi) {  // an empty window would leave no weights: keep the row whole
      lo = wlo;
      hi = whi;
    }
  }
}

template <typename T>
inline T gaussian(const AttentionStep<T>& s, std::int64_t b, std::int64_t j) {
  const T d = T(j + 1) - s.p[b];
  const T sigma = s.window / T(2);
  return std::exp(-d * d / (T(2) * sigma * sigma));
}

template <typename T>
inline T dot(const T* a, const T* b, std::int64_t n) {
  T acc = T(0);
#pragma omp simd reduction(+ : acc)
  for (std::int64_t i = 0; i < n; ++i) acc += a[i] * b[i];
  return acc;
}

// v . tanh(k + wq): the additive score's inner loop, contiguous over the attention size.
template <typename T>
inline T tanh_score(const T* k, const T* wq, const T* v, std::int64_t n) {
  T acc = T(0);
#pragma omp simd reduction(+ : acc)
  for (std::int64_t i = 0; i < n; ++i) acc += v[i] * fast_tanh(k[i] + wq[i]);
  return acc;
}

// v . tanh(k + f + wq): the same with the per-step key term f.
template <typename T>
inline T tanh_score(const T* k, const T* f, const T* wq, const T* v, std::int64_t n) {
  T acc = T(0);
#pragma omp simd reduction(+ : acc)
  for (std::int64_t i = 0; i < n; ++i) acc += v[i] * fast_tanh(k[i] + f[i] + wq[i]);
  return acc;
}

template <typename T>
void forward_row(const AttentionStep<T>& s, std::int64_t b, T* context, T* alpha) {
  const std::int64_t m = s.m, kd = s.key_dim, dv = s.value_dim;
  T* a = alpha + b * m;
  T* c = context + b * dv;
  std::int64_t lo, hi;
  row_range(s, b, lo, hi);
  std::fill(a, a + m, T(0));
  std::fill(c, c + dv, T(0));
  if (hi <= lo) return;

  const T* Kb = s.K ? s.K + b * m * kd : nullptr;
  switch (s.kind) {
    case ScoreKind::dot: {
      const T* qb = s.q + b * kd;
      for (std::int64_t j = lo; j < hi; ++j) a[j] = s.scale * dot(qb, Kb + j * kd, kd);
      break;
    }
    case ScoreKind::tanh: {
      const T* wqb = s.wq + b * (s.ld_wq ? s.ld_wq : kd);
      if (s.key_term) {
        const T* Fb = s.key_term + b * m * kd;
        for (std::int64_t j = lo; j < hi; ++j)
          a[j] = tanh_score(Kb + j * kd, Fb + j * kd, wqb, s.v, kd);
      } else {
        for (std::int64_t j = lo; j < hi; ++j) a[j] = tanh_score(Kb + j * kd, wqb, s.v, kd);
      }
      break;
    }
    case ScoreKind::logits: {
      const T* lb = s.logits + b * m;
      for (std::int64_t j = lo; j < hi; ++j) a[j] = lb[j];
      break;
    }
  }

  T mx = -std::numeric_limits<T>::infinity();
  for (std::int64_t j = lo; j < hi; ++j) mx = std::max(mx, a[j]);
  T sum = T(0);
  for (std::int64_t j = lo; j < hi; ++j) {
    a[j] = std::exp(a[j] - mx);
    sum += a[j];
  }
  const T inv = T(1) / sum;
  for (std::int64_t j = lo; j < hi; ++j) a[j] *= inv;
  if (s.p)
    for (std::int64_t j = lo; j < hi; ++j) a[j] *= gaussian(s, b, j);

  const T* Hb = s.H + b * m * dv;
  for (std::int64_t j = lo; j < hi; ++j) {
    const T w = a[j];
    const T* h = Hb + j * dv;
#pragma omp simd
    for (std::int64_t i = 0; i < dv; ++i) c[i] += w * h[i];
  }
}

template <typename T>
void backward_row(const AttentionStep<T>& s, const T* alpha, const AttentionStepGrad<T>& g,
                  std::int64_t b) {
  const std::int64_t m = s.m, kd = s.key_dim, dv = s.value_dim;
  const T* a = alpha + b * m;
  T* ds = g.dscore + b * m;
  std::fill(ds, ds + m, T(0));
  const std::int64_t ld_dwq = g.ld_dwq ? g.ld_dwq : kd;
  if (g.dwq) std::fill(g.dwq + b * ld_dwq, g.dwq + b * ld_dwq + kd, T(0));
  if (g.dv_rows) std::fill(g.dv_rows + b * kd, g.dv_rows + (b + 1) * kd, T(0));
  if (g.dp) g.dp[b] = T(0);
  std::int64_t lo, hi;
  row_range(s, b, lo, hi);
  if (hi <= lo) return;

  // dA_j = d loss / d alpha_j, through the context and the alpha output.
  const T* Hb = s.H + b * m * dv;
  const T* dc = g.dcontext ? g.dcontext + b * dv : nullptr;
  const T* da = g.dalpha ? g.dalpha + b * m : nullptr;
  T* dHb = g.dH ? g.dH + b * m * dv : nullptr;
  for (std::int64_t j = lo; j < hi; ++j) {
    T d = da ? da[j] : T(0);
    if (dc) {
      d += dot(dc, Hb + j * dv, dv);
      if (dHb) {
        const T w = a[j];
        T* dh = dHb + j * dv;
#pragma omp simd
        for (std::int64_t i = 0; i < dv; ++i) dh[i] += w * dc[i];
      }
    }
    ds[j] = d;
  }

  // alpha_j = align_j g_j with align the softmax over the window (g = 1 for global), so
  // d s_j = align_j (dA_j g_j - sum_k align_k dA_k g_k) = alpha_j dA_j - align_j sum_k alpha_k dA_k;
  // p_t reaches alpha through the Gaussian only: d g_j / d p = g_j (j - p) / sigma^2.
  T total = T(0);
  for (std::int64_t j = lo; j < hi; ++j) total += a[j] * ds[j];
  if (s.p) {
    const T sigma = s.window / T(2);
    T dp = T(0);
    for (std::int64_t j = lo; j < hi; ++j) {
      dp += ds[j] * a[j] * (T(j + 1) - s.p[b]) / (sigma * sigma);
      ds[j] = a[j] * ds[j] - a[j] / gaussian(s, b, j) * total;
    }
    if (g.dp) g.dp[b] = dp;
  } else {
    for (std::int64_t j = lo; j < hi; ++j) ds[j] = a[j] * (ds[j] - total);
  }

  const T* Kb = s.K ? s.K + b * m * kd : nullptr;
  T* dKb = g.dK ? g.dK + b * m * kd : nullptr;
  switch (s.kind) {
    case ScoreKind::dot: {
      const T* qb = s.q + b * kd;
      T* dqb = g.dq ? g.dq + b * kd : nullptr;
      for (std::int64_t j = lo; j < hi; ++j) {
        const T w = s.scale * ds[j];
        if (dqb) {
          const T* k = Kb + j * kd;
#pragma omp simd
          for (std::int64_t i = 0; i < kd; ++i) dqb[i] += w * k[i];
        }
        if (dKb) {
          T* dk = dKb + j * kd;
#pragma omp simd
          for (std::int64_t i = 0; i < kd; ++i) dk[i] += w * qb[i];
        }
      }
      break;
    }
    case ScoreKind::tanh: {
      // Recomputes tanh(K_j + wq) rather than keeping B*m*A values per step alive.
      const T* wqb = s.wq + b * (s.ld_wq ? s.ld_wq : kd);
      T* dwq = g.dwq ? g.dwq + b * ld_dwq : nullptr;
      T* dvr = g.dv_rows ? g.dv_rows + b * kd : nullptr;
      const T* v = s.v;
      if (s.key_term) {  // with the key term: tanh(K_j + F_j + wq), F_j's gradient that of K_j
        const T* Fb = s.key_term + b * m * kd;
        T* dFb = g.dkey_term ? g.dkey_term + b * m * kd : nullptr;
        for (std::int64_t j = lo; j < hi; ++j) {
          const T w = ds[j];
          const T* k = Kb + j * kd;
          const T* f = Fb + j * kd;
          T* dk = dKb ? dKb + j * kd : nullptr;
          T* df = dFb ? dFb + j * kd : nullptr;
          if (dk && df && dwq && dvr) {  // the training case: one fused loop
#pragma omp simd
            for (std::int64_t i = 0; i < kd; ++i) {
              const T t = fast_tanh(k[i] + f[i] + wqb[i]);
              const T d = w * v[i] * (T(1) - t * t);
              dvr[i] += w * t;
              dk[i] += d;
              df[i] += d;
              dwq[i] += d;
            }
            continue;
          }
          for (std::int64_t i = 0; i < kd; ++i) {
            const T t = fast_tanh(k[i] + f[i] + wqb[i]);
            const T d = w * v[i] * (T(1) - t * t);
            if (dvr) dvr[i] += w * t;
            if (dk) dk[i] += d;
            if (df) df[i] += d;
            if (dwq) dwq[i] += d;
          }
        }
        break;
      }
      for (std::int64_t j = lo; j < hi; ++j) {
        const T w = ds[j];
        const T* k = Kb + j * kd;
        T* dk = dKb ? dKb + j * kd : nullptr;
        if (dk && dwq && dvr) {  // the training case: one fused loop
#pragma omp simd
          for (std::int64_t i = 0; i < kd; ++i) {
            const T t = fast_tanh(k[i] + wqb[i]);
            const T d = w * v[i] * (T(1) - t * t);
            dvr[i] += w * t;
            dk[i] += d;
            dwq[i] += d;
          }
        } else {
          for (std::int64_t i = 0; i < kd; ++i) {
            const T t = fast_tanh(k[i] + wqb[i]);
            const T d = w * v[i] * (T(1) - t * t);
            if (dvr) dvr[i] += w * t;
            if (dk) dk[i] += d;
            if (dwq) dwq[i] += d;
          }
        }
      }
      break;
    }
    case ScoreKind::logits:
      break;  // d logits = d score
  }
}

}  // namespace

template <typename T>
void attention_forward(const AttentionStep<T>& s, T* context, T* alpha) {
  const bool par = step_work(s) >= kParallelWork && s.batch > 1;
#pragma omp parallel for schedule(static) if (par)
  for (std::int64_t b = 0; b < s.batch; ++b) forward_row(s, b, context, alpha);
}

template <typename T>
void attention_backward(const AttentionStep<T>& s, const T* alpha, const AttentionStepGrad<T>& g) {
  const bool par = step_work(s) >= kParallelWork && s.batch > 1;
#pragma omp parallel for schedule(static) if (par)
  for (std::int64_t b = 0; b < s.batch; ++b) backward_row(s, alpha, g, b);
}

template void attention_forward<float>(const AttentionStep<float>&, float*, float*);
template void attention_forward<double>(const AttentionStep<double>&, double*, double*);
template void attention_backward<float>(const AttentionStep<float>&, const float*,
                                        const AttentionStepGrad<float>&);
template void attention_backward<double>(const AttentionStep<double>&, const double*,
                                         const AttentionStepGrad<double>&);

}  // namespace heed::kernels::HEED_KERNEL_ISA
