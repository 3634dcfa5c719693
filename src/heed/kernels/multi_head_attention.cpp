#include "heed/kernels/multi_head_attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "heed/base/error.h"
#include "heed/kernels/fast_math.h"

namespace heed::kernels {
namespace {

// How many keys query i of batch row b may read: a prefix [0, limit) of the m keys.
// Threads only for work worth waking them: a decoding step of one sentence, or a gradient
// check's tiny model, runs on the calling thread.
bool worth_threads(const HeadsShape& s) {
  return s.batch * s.heads > 1 && s.batch * s.queries * s.keys * s.dim >= 65536;
}

std::int64_t key_limit(const HeadsShape& s, std::int64_t b, std::int64_t i) {
  std::int64_t limit = s.keys;
  if (s.key_lengths) limit = std::min(limit, s.key_lengths[b]);
  if (s.causal) limit = std::min(limit, i + s.causal_offset + 1);
  return std::max<std::int64_t>(limit, 0);
}

// Row i of the scores in place -> its softmax over the first `limit` keys, 0 after them.
template <typename T>
void softmax_row(T* row, const T* additive, std::int64_t limit, std::int64_t m) {
  T top = -std::numeric_limits<T>::infinity();
  for (std::int64_t j = 0; j < limit; ++j) {
    if (additive) row[j] += additive[j];
    top = std::max(top, row[j]);
  }
  if (limit == 0 || std::isinf(top)) {  // every key masked: no attention, never NaN
    std::fill(row, row + m, T(0));
    return;
  }
  T sum = 0;
  for (std::int64_t j = 0; j < limit; ++j) sum += row[j] = fast_exp(row[j] - top);
  const T inv = T(1) / sum;
  for (std::int64_t j = 0; j < limit; ++j) row[j] *= inv;
  std::fill(row + limit, row + m, T(0));
}

template <typename T>
T dot(const T* a, const T* b, std::int64_t len) {
  T sum = 0;
#pragma omp simd reduction(+ : sum)
  for (std::int64_t c = 0; c < len; ++c) sum += a[c] * b[c];
  return sum;
}

// y += alpha x over len elements.
template <typename T>
void axpy(T alpha, const T* x, T* y, std::int64_t len) {
#pragma omp simd
  for (std::int64_t c = 0; c < len; ++c) y[c] += alpha * x[c];
}

// Four dot products of a with b0..b3 at once, into out[0..3]: four independent sums, so that
// one's multiply-adds need not wait for another's, and a read once for the four.
template <typename T>
void dot4(const T* a, const T* b0, const T* b1, const T* b2, const T* b3, std::int64_t len,
          T* out) {
  T s0 = 0, s1 = 0, s2 = 0, s3 = 0;
#pragma omp simd reduction(+ : s0, s1, s2, s3)
  for (std::int64_t c = 0; c < len; ++c) {
    const T x = a[c];
    s0 += x * b0[c];
    s1 += x * b1[c];
    s2 += x * b2[c];
    s3 += x * b3[c];
  }
  out[0] = s0;
  out[1] = s1;
  out[2] = s2;
  out[3] = s3;
}

// y += w[0] x0 + w[1] x1 + w[2] x2 + w[3] x3: y read and written once for four rows.
template <typename T>
void axpy4(const T* w, const T* x0, const T* x1, const T* x2, const T* x3, T* y,
           std::int64_t len) {
  const T w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3];
#pragma omp simd
  for (std::int64_t c = 0; c < len; ++c)
    y[c] += (w0 * x0[c] + w1 * x1[c]) + (w2 * x2[c] + w3 * x3[c]);
}

// The cache lines of len elements from p, ahead of their use: listed key rows lie anywhere
// in their store, where the hardware's prefetcher cannot guess the next one.
template <typename T>
void prefetch(const T* p, std::int64_t len) {
  const auto* bytes = reinterpret_cast<const char*>(p);
  const auto n = static_cast<std::int64_t>(sizeof(T)) * len;
  for (std::int64_t at = 0; at < n; at += 64) __builtin_prefetch(bytes + at);
}

}  // namespace

bool uses_product_loops(const HeadsShape& s) {
  if (s.key_rows) return true;
  if (s.products != HeadsShape::Products::automatic)
    return s.products == HeadsShape::Products::loops;
  return s.queries * s.keys * (s.dim / s.heads) <= kSmallProducts;
}

template <typename T>
void multi_head_attention(const GemmOptions& options, const HeadsShape& s, const T* Q, const T* K,
                          const T* V, const T* additive, const T* drop, T* P, T* O) {
  const std::int64_t B = s.batch, H = s.heads, n = s.queries, m = s.keys, d = s.dim;
  const std::int64_t dh = d / H, pairs = B * H;
  const T scale = static_cast<T>(s.scale);
  const bool loops = uses_product_loops(s);
#pragma omp parallel if (worth_threads(s))
  {
    std::vector<T> dropped(drop && !loops ? static_cast<std::size_t>(n * m) : 0);
#pragma omp for schedule(static)
    for (std::int64_t bh = 0; bh < pairs; ++bh) {
      const std::int64_t b = bh / H, h = bh % H;
      const T* q = Q + b * n * s.q_ld + h * dh;
      const T* k = K + b * m * s.k_ld + h * dh;
      const T* v = V + b * m * s.v_ld + h * dh;
      T* p = P + bh * n * m;
      T* o = O + b * n * d + h * dh;
      if (loops) {
        // Row by row, and only over the keys the row may read (the rest of P is 0). Key j's
        // row: b m + j, or the one key_rows names.
        const std::int64_t* rows = s.key_rows ? s.key_rows + b * m : nullptr;
        if (rows) {
          k = K + h * dh;
          v = V + h * dh;
        }
        const auto key = [=](std::int64_t j) { return k + (rows ? rows[j] : j) * s.k_ld; };
        const auto value = [=](std::int64_t j) { return v + (rows ? rows[j] : j) * s.v_ld; };
        // Listed rows: the next block's rows fetched while this block's are read.
        const auto prefetch_block = [=](const auto& at, std::int64_t j, std::int64_t limit) {
          if (rows)
            for (std::int64_t e = j + 4; e < std::min(j + 8, limit); ++e) prefetch(at(e), dh);
        };
        const T* mask = drop ? drop + bh * n * m : nullptr;
        for (std::int64_t i = 0; i < n; ++i) {
          const std::int64_t limit = key_limit(s, b, i);
          T* pi = p + i * m;
          const T* qi = q + i * s.q_ld;
          // The keys four at a time, then one at a time.
          std::int64_t j = 0;
          for (; j + 4 <= limit; j += 4) {
            prefetch_block(key, j, limit);
            dot4(qi, key(j), key(j + 1), key(j + 2), key(j + 3), dh, pi + j);
            for (std::int64_t e = j; e < j + 4; ++e) pi[e] *= scale;
          }
          for (; j < limit; ++j) pi[j] = scale * dot(qi, key(j), dh);
          softmax_row(pi, additive ? additive + i * m : nullptr, limit, m);
          T* oi = o + i * d;
          std::fill(oi, oi + dh, T(0));
          T w[4];
          for (j = 0; j + 4 <= limit; j += 4) {
            prefetch_block(value, j, limit);
            for (std::int64_t e = 0; e < 4; ++e)
              w[e] = mask ? pi[j + e] * mask[i * m + j + e] : pi[j + e];
            axpy4(w, value(j), value(j + 1), value(j + 2), value(j + 3), oi, dh);
          }
          for (; j < limit; ++j) {
            const T wj = mask ? pi[j] * mask[i * m + j] : pi[j];
            if (wj != T(0)) axpy(wj, value(j), oi, dh);
          }
        }
        continue;
      }
      gemm<T>(options, false, true, n, m, dh, scale, q, s.q_ld, k, s.k_ld, T(0), p, m);
      for (std::int64_t i = 0; i < n; ++i)
        softmax_row(p + i * m, additive ? additive + i * m : nullptr, key_limit(s, b, i), m);
      const T* weights = p;
      if (drop) {
        const T* mask = drop + bh * n * m;
        for (std::int64_t e = 0; e < n * m; ++e) dropped[static_cast<std::size_t>(e)] = p[e] * mask[e];
        weights = dropped.data();
      }
      gemm<T>(options, false, false, n, dh, m, T(1), weights, m, v, s.v_ld, T(0), o, d);
    }
  }
}

template <typename T>
void multi_head_attention_backward(const GemmOptions& options, const HeadsShape& s, const T* Q,
                                   const T* K, const T* V, const T* P, const T* drop,
                                   const T* dO, const T* dP_in, T* dQ, T* dK, T* dV) {
  HEED_CHECK(!s.key_rows, "multi_head_attention_backward: listed key rows are forward only");
  const std::int64_t B = s.batch, H = s.heads, n = s.queries, m = s.keys, d = s.dim;
  const std::int64_t dh = d / H, pairs = B * H;
  const T scale = static_cast<T>(s.scale);
  const bool loops = uses_product_loops(s);
  // Every (b, h) pair writes its own rows (b) and columns (h) of dQ, dK, dV: no two threads
  // touch the same element, even when Q, K and V are blocks of one tensor.
#pragma omp parallel if (worth_threads(s))
  {
    std::vector<T> dP(static_cast<std::size_t>(loops ? m : n * m));
    std::vector<T> dropped(drop && dV && !loops ? static_cast<std::size_t>(n * m) : 0);
#pragma omp for schedule(static)
    for (std::int64_t bh = 0; bh < pairs; ++bh) {
      const std::int64_t b = bh / H, h = bh % H;
      const T* q = Q + b * n * s.q_ld + h * dh;
      const T* k = K + b * m * s.k_ld + h * dh;
      const T* v = V + b * m * s.v_ld + h * dh;
      const T* p = P + bh * n * m;
      const T* mask = drop ? drop + bh * n * m : nullptr;
      const T* dout = dO + b * n * d + h * dh;
      T* g = dP.data();
      if (loops) {
        // Query row i: the same steps as below, over the keys j < limit (P is 0 beyond).
        T* dq = dQ ? dQ + b * n * s.q_ld + h * dh : nullptr;
        T* dk = dK ? dK + b * m * s.k_ld + h * dh : nullptr;
        T* dv = dV ? dV + b * m * s.v_ld + h * dh : nullptr;
        for (std::int64_t i = 0; i < n; ++i) {
          const std::int64_t limit = key_limit(s, b, i);
          const T* pi = p + i * m;
          const T* mi = mask ? mask + i * m : nullptr;
          const T* douti = dout + i * d;
          const T* dpi = dP_in ? dP_in + (bh * n + i) * m : nullptr;
          // g = dO_i V^T over the keys, four at a time as in the forward.
          std::int64_t j = 0;
          for (; j + 4 <= limit; j += 4)
            dot4(douti, v + j * s.v_ld, v + (j + 1) * s.v_ld, v + (j + 2) * s.v_ld,
                 v + (j + 3) * s.v_ld, dh, g + j);
          for (; j < limit; ++j) g[j] = dot(douti, v + j * s.v_ld, dh);
          T sum = 0;
          for (j = 0; j < limit; ++j) {
            const T w = mi ? pi[j] * mi[j] : pi[j];
            if (dv && w != T(0)) axpy(w, douti, dv + j * s.v_ld, dh);
            if (mi) g[j] *= mi[j];
            if (dpi) g[j] += dpi[j];
            sum += pi[j] * g[j];
          }
          const T* qi = q + i * s.q_ld;
          T* dqi = dq ? dq + i * s.q_ld : nullptr;
          // dQ_i gathers four keys' terms a pass; each key's dK row is its own.
          T ds[4];
          for (j = 0; j + 4 <= limit; j += 4) {
            for (std::int64_t e = 0; e < 4; ++e) ds[e] = scale * pi[j + e] * (g[j + e] - sum);
            if (dqi)
              axpy4(ds, k + j * s.k_ld, k + (j + 1) * s.k_ld, k + (j + 2) * s.k_ld,
                    k + (j + 3) * s.k_ld, dqi, dh);
            if (dk)
              for (std::int64_t e = 0; e < 4; ++e)
                if (ds[e] != T(0)) axpy(ds[e], qi, dk + (j + e) * s.k_ld, dh);
          }
          for (; j < limit; ++j) {
            const T dsj = scale * pi[j] * (g[j] - sum);
            if (dsj == T(0)) continue;
            if (dqi) axpy(dsj, k + j * s.k_ld, dqi, dh);
            if (dk) axpy(dsj, qi, dk + j * s.k_ld, dh);
          }
        }
        continue;
      }
      // d(dropped P) = dO V^T;  dV += (dropped P)^T dO.
      gemm<T>(options, false, true, n, m, dh, T(1), dout, d, v, s.v_ld, T(0), g, m);
      if (dV) {
        const T* weights = p;
        if (mask) {
          for (std::int64_t e = 0; e < n * m; ++e) dropped[static_cast<std::size_t>(e)] = p[e] * mask[e];
          weights = dropped.data();
        }
        gemm<T>(options, true, false, m, dh, n, T(1), weights, m, dout, d, T(1),
                dV + b * m * s.v_ld + h * dh, s.v_ld);
      }
      if (mask)
        for (std::int64_t e = 0; e < n * m; ++e) g[e] *= mask[e];
      if (dP_in)
        for (std::int64_t e = 0; e < n * m; ++e) g[e] += dP_in[bh * n * m + e];
      // The softmax's Jacobian: dS_ij = P_ij (dP_ij - sum_l P_il dP_il); 0 where P is 0.
      for (std::int64_t i = 0; i < n; ++i) {
        const T* pi = p + i * m;
        T* gi = g + i * m;
        T dot = 0;
        for (std::int64_t j = 0; j < m; ++j) dot += pi[j] * gi[j];
        for (std::int64_t j = 0; j < m; ++j) gi[j] = pi[j] * (gi[j] - dot);
      }
      // S = scale Q K^T:  dQ += scale dS K,  dK += scale dS^T Q.
      if (dQ)
        gemm<T>(options, false, false, n, dh, m, scale, g, m, k, s.k_ld, T(1),
                dQ + b * n * s.q_ld + h * dh, s.q_ld);
      if (dK)
        gemm<T>(options, true, false, m, dh, n, scale, g, m, q, s.q_ld, T(1),
                dK + b * m * s.k_ld + h * dh, s.k_ld);
    }
  }
}

#define HEED_MULTI_HEAD_ATTENTION(T)                                                          \
  template void multi_head_attention<T>(const GemmOptions&, const HeadsShape&, const T*,      \
                                        const T*, const T*, const T*, const T*, T*, T*);      \
  template void multi_head_attention_backward<T>(const GemmOptions&, const HeadsShape&,       \
                                                 const T*, const T*, const T*, const T*,      \
                                                 const T*, const T*, const T*, T*, T*, T*);
HEED_MULTI_HEAD_ATTENTION(float)
HEED_MULTI_HEAD_ATTENTION(double)
#undef HEED_MULTI_HEAD_ATTENTION

}  // namespace heed::kernels
