#include "heed/kernels/multi_head_attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif

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

// The loops' tasks: a batch row with all its heads when there are rows enough (16) to share
// among the threads, else a (row, head) pair. Task t is row t / per_row, heads [h0, h0 + width).
struct LoopTasks {
  std::int64_t width, per_row, count;
  explicit LoopTasks(const HeadsShape& s)
      : width(s.batch >= 16 ? s.heads : 1), per_row(s.heads / width), count(s.batch * per_row) {}
  std::int64_t row(std::int64_t t) const { return t / per_row; }
  std::int64_t h0(std::int64_t t) const { return t % per_row * width; }
};

// Row i of the scores in place -> its softmax over the first `limit` keys, 0 after them.
// Each pass runs whole vectors: over the row's first multiple of 8 keys, then over the rest
// padded to 8 with -inf (weight 0) in a buffer: short rows (a decoding step's few keys) would
// otherwise spend most of their time in each loop's scalar remainder.
template <typename T>
void softmax_row(T* row, const T* additive, std::int64_t limit, std::int64_t m) {
  constexpr std::int64_t W = 8;
  const std::int64_t body = limit / W * W;
  T tail[W];
  for (std::int64_t e = 0; e < W; ++e)
    tail[e] = body + e < limit ? row[body + e] + (additive ? additive[body + e] : T(0))
                               : -std::numeric_limits<T>::infinity();
  if (additive) {
#pragma omp simd
    for (std::int64_t j = 0; j < body; ++j) row[j] += additive[j];
  }
  T top = -std::numeric_limits<T>::infinity();
#pragma omp simd reduction(max : top)
  for (std::int64_t j = 0; j < body; ++j) top = row[j] > top ? row[j] : top;
#pragma omp simd reduction(max : top)
  for (std::int64_t e = 0; e < W; ++e) top = tail[e] > top ? tail[e] : top;
  if (limit == 0 || std::isinf(top)) {  // every key masked: no attention, never NaN
    std::fill(row, row + m, T(0));
    return;
  }
  T sum = 0;
#pragma omp simd reduction(+ : sum)
  for (std::int64_t j = 0; j < body; ++j) {
    const T e = fast_exp(row[j] - top);
    row[j] = e;
    sum += e;
  }
#pragma omp simd reduction(+ : sum)
  for (std::int64_t e = 0; e < W; ++e) {
    const T x = fast_exp(tail[e] - top);
    tail[e] = x;
    sum += x;
  }
  const T inv = T(1) / sum;
#pragma omp simd
  for (std::int64_t j = 0; j < body; ++j) row[j] *= inv;
  for (std::int64_t j = body; j < limit; ++j) row[j] = tail[j - body] * inv;
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

#if defined(__AVX2__) && defined(__FMA__)
// In float on AVX2 (every build's minimum: docs/ENGINE.md) for len a multiple of 8: eight
// vector sums, then one transposing reduction for the eight (seven horizontal adds in all,
// against about four for each sum reduced on its own).
inline void dot8_scaled_avx2(const float* a, const float* const* b, std::int64_t len,
                             float scale, float* out) {
  __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0, s4 = s0, s5 = s0, s6 = s0, s7 = s0;
  for (std::int64_t c = 0; c < len; c += 8) {
    const __m256 x = _mm256_loadu_ps(a + c);
    s0 = _mm256_fmadd_ps(x, _mm256_loadu_ps(b[0] + c), s0);
    s1 = _mm256_fmadd_ps(x, _mm256_loadu_ps(b[1] + c), s1);
    s2 = _mm256_fmadd_ps(x, _mm256_loadu_ps(b[2] + c), s2);
    s3 = _mm256_fmadd_ps(x, _mm256_loadu_ps(b[3] + c), s3);
    s4 = _mm256_fmadd_ps(x, _mm256_loadu_ps(b[4] + c), s4);
    s5 = _mm256_fmadd_ps(x, _mm256_loadu_ps(b[5] + c), s5);
    s6 = _mm256_fmadd_ps(x, _mm256_loadu_ps(b[6] + c), s6);
    s7 = _mm256_fmadd_ps(x, _mm256_loadu_ps(b[7] + c), s7);
  }
  // hadd(a, b) = [a0+a1, a2+a3, b0+b1, b2+b3 | the same of the upper halves]: two rounds leave
  // each sum's lower-half total and upper-half total in the matching lane of each half.
  const __m256 u0 = _mm256_hadd_ps(_mm256_hadd_ps(s0, s1), _mm256_hadd_ps(s2, s3));
  const __m256 u1 = _mm256_hadd_ps(_mm256_hadd_ps(s4, s5), _mm256_hadd_ps(s6, s7));
  const __m256 sums = _mm256_add_ps(_mm256_permute2f128_ps(u0, u1, 0x20),
                                    _mm256_permute2f128_ps(u0, u1, 0x31));
  _mm256_storeu_ps(out, _mm256_mul_ps(sums, _mm256_set1_ps(scale)));
}
#endif

// scale times the dot products of a with b[0..8), into out[0..8).
template <typename T>
void dot8_scaled(const T* a, const T* const* b, std::int64_t len, T scale, T* out) {
#if defined(__AVX2__) && defined(__FMA__)
  if constexpr (std::is_same_v<T, float>)
    if (len % 8 == 0) return dot8_scaled_avx2(a, b, len, scale, out);
#endif
  dot4(a, b[0], b[1], b[2], b[3], len, out);
  dot4(a, b[4], b[5], b[6], b[7], len, out + 4);
  for (std::int64_t e = 0; e < 8; ++e) out[e] *= scale;
}

// y += sum_e weight(e) rows[e][offset + c] over c < len, e < 8, weight 0 from `count` on (a
// padded block): y read and written once for eight rows.
template <typename T, typename Weight>
void axpy8(const T* const* rows, std::int64_t offset, std::int64_t count, const Weight& weight,
           T* y, std::int64_t len) {
  T w[8];
  for (std::int64_t e = 0; e < 8; ++e) w[e] = e < count ? weight(e) : T(0);
  const T w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3], w4 = w[4], w5 = w[5], w6 = w[6], w7 = w[7];
  const T *x0 = rows[0] + offset, *x1 = rows[1] + offset, *x2 = rows[2] + offset,
          *x3 = rows[3] + offset, *x4 = rows[4] + offset, *x5 = rows[5] + offset,
          *x6 = rows[6] + offset, *x7 = rows[7] + offset;
#pragma omp simd
  for (std::int64_t c = 0; c < len; ++c)
    y[c] += ((w0 * x0[c] + w1 * x1[c]) + (w2 * x2[c] + w3 * x3[c])) +
            ((w4 * x4[c] + w5 * x5[c]) + (w6 * x6[c] + w7 * x7[c]));
}

// out[e] = scale a . rows[e][offset, offset + len) for e < count (of a padded block of eight).
template <typename T>
void dot8(const T* a, const T* const* rows, std::int64_t offset, std::int64_t len, T scale,
          std::int64_t count, T* out) {
  const T* heads[8];
  for (std::int64_t e = 0; e < 8; ++e) heads[e] = rows[e] + offset;
  T dots[8];
  dot8_scaled(a, heads, len, scale, dots);
  std::copy_n(dots, count, out);
}

// The cache lines of len elements from p, ahead of their use: listed key rows lie anywhere
// in their store, where the hardware's prefetcher cannot guess the next one.
template <typename T>
void prefetch(const T* p, std::int64_t len) {
  const auto* bytes = reinterpret_cast<const char*>(p);
  const auto n = static_cast<std::int64_t>(sizeof(T)) * len;
  for (std::int64_t at = 0; at < n; at += 64) __builtin_prefetch(bytes + at);
}

// The loops' forward for batch row b and heads [h0, h1): the keys in blocks of eight (the
// last padded), every head of a block before the next block, so that a key's row is read
// across all its heads at once (one contiguous span of the row, which a listed row makes
// worth fetching ahead).
template <typename T>
void forward_loops(const HeadsShape& s, std::int64_t b, std::int64_t h0, std::int64_t h1,
                   const T* Q, const T* K, const T* V, const T* additive, const T* drop, T* P,
                   T* O) {
  const std::int64_t H = s.heads, n = s.queries, m = s.keys, d = s.dim, dh = d / H;
  const T scale = static_cast<T>(s.scale);
  // Key j's row: b m + j, or the one key_rows names; the heads' columns from h0.
  const std::int64_t* rows = s.key_rows ? s.key_rows + b * m : nullptr;
  const T* k = (rows ? K : K + b * m * s.k_ld) + h0 * dh;
  const T* v = (rows ? V : V + b * m * s.v_ld) + h0 * dh;
  const auto key = [=](std::int64_t j) { return k + (rows ? rows[j] : j) * s.k_ld; };
  const auto value = [=](std::int64_t j) { return v + (rows ? rows[j] : j) * s.v_ld; };
  const std::int64_t span = (h1 - h0) * dh;  // the elements of a row the heads read
  // Listed rows lie anywhere in their store, where the hardware's prefetcher cannot guess the
  // next one: the next block's rows are fetched while this block's are read.
  const auto prefetch_block = [=](const auto& at, std::int64_t j, std::int64_t limit) {
    if (rows)
      for (std::int64_t e = j; e < std::min(j + 8, limit); ++e) prefetch(at(e), span);
  };
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t limit = key_limit(s, b, i);
    const T* qi = Q + (b * n + i) * s.q_ld;
    T* pi = P + ((b * H + h0) * n + i) * m;  // head h's row: pi + (h - h0) n m
    const auto p_row = [=](std::int64_t h) { return pi + (h - h0) * n * m; };
    // Keys j..j+7; past the limit, the last key again (its products unused).
    const T* at[8];
    const auto block = [&](const auto& row_of, std::int64_t j) {
      for (std::int64_t e = 0; e < 8; ++e) at[e] = row_of(std::min(j + e, limit - 1));
    };
    prefetch_block(key, 0, limit);
    for (std::int64_t j = 0; j < limit; j += 8) {
      prefetch_block(key, j + 8, limit);
      block(key, j);
      const std::int64_t count = std::min<std::int64_t>(8, limit - j);
      for (std::int64_t h = h0; h < h1; ++h)
        dot8(qi + h * dh, at, (h - h0) * dh, dh, scale, count, p_row(h) + j);
    }
    for (std::int64_t h = h0; h < h1; ++h)
      softmax_row(p_row(h), additive ? additive + i * m : nullptr, limit, m);
    T* oi = O + (b * n + i) * d + h0 * dh;
    std::fill(oi, oi + span, T(0));
    // Head h's weight of key e: P's, times the dropout mask's (laid out like P).
    const auto weight = [=](std::int64_t h, std::int64_t e) {
      const T w = p_row(h)[e];
      return drop ? w * drop[((b * H + h) * n + i) * m + e] : w;
    };
    prefetch_block(value, 0, limit);
    for (std::int64_t j = 0; j < limit; j += 8) {
      prefetch_block(value, j + 8, limit);
      block(value, j);
      for (std::int64_t h = h0; h < h1; ++h)
        axpy8(at, (h - h0) * dh, limit - j, [&](std::int64_t e) { return weight(h, j + e); },
              oi + (h - h0) * dh, dh);
    }
  }
}

// Of the gradients the call overwrites (HeadsShape::overwrite_*), batch row b's columns
// [col, col + width) zeroed: a task's own block, just before it adds to it.
template <typename T>
void zero_overwritten(const HeadsShape& s, std::int64_t b, std::int64_t col, std::int64_t width,
                      T* dQ, T* dK, T* dV) {
  const auto zero = [&](T* grad, bool overwritten, std::int64_t len, std::int64_t ld) {
    if (!grad || !overwritten) return;
    for (std::int64_t r = 0; r < len; ++r)
      std::fill_n(grad + (b * len + r) * ld + col, width, T(0));
  };
  zero(dQ, s.overwrite_dq, s.queries, s.q_ld);
  zero(dK, s.overwrite_dk, s.keys, s.k_ld);
  zero(dV, s.overwrite_dv, s.keys, s.v_ld);
}

// The loops' backward for batch row b and heads [h0, h1), over the keys each query may read
// (P is 0 beyond), in blocks of eight across all the heads as in the forward: first query
// row by query row, dS and dQ; then key row by key row, dV and dK, each the sum of a column
// of weights times the query rows, eight queries a pass. g: (h1 - h0) n m elements of
// scratch (dS).
template <typename T>
void backward_loops(const HeadsShape& s, std::int64_t b, std::int64_t h0, std::int64_t h1,
                    const T* Q, const T* K, const T* V, const T* P, const T* drop, const T* dO,
                    const T* dP_in, T* dQ, T* dK, T* dV, T* g) {
  const std::int64_t H = s.heads, n = s.queries, m = s.keys, d = s.dim, dh = d / H;
  const T scale = static_cast<T>(s.scale);
  const T* k = K + b * m * s.k_ld;
  const T* v = V + b * m * s.v_ld;
  const T* q = Q + b * n * s.q_ld;
  const T* dout = dO + b * n * d;
  // Row i of head h: of P, the dropout mask and dP (B, H, n, m); of g ((h1 - h0), n, m).
  const auto at_row = [&](std::int64_t h, std::int64_t i) { return ((b * H + h) * n + i) * m; };
  const auto g_row = [&](std::int64_t h, std::int64_t i) { return g + ((h - h0) * n + i) * m; };
  // Rows j..j+7 of `base` (stride ld); from `end` on, row end - 1 again (its weight 0).
  const T* at[8];
  const auto block = [&](const T* base, std::int64_t ld, std::int64_t j, std::int64_t end) {
    for (std::int64_t e = 0; e < 8; ++e) at[e] = base + std::min(j + e, end - 1) * ld;
  };
  zero_overwritten(s, b, h0 * dh, (h1 - h0) * dh, dQ, dK, dV);
  std::int64_t widest = 0;  // the most keys any query reads
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t limit = key_limit(s, b, i);
    widest = std::max(widest, limit);
    const T* douti = dout + i * d;
    // g = dO_i V^T, each head over its columns.
    for (std::int64_t j = 0; j < limit; j += 8) {
      block(v, s.v_ld, j, limit);
      const std::int64_t count = std::min<std::int64_t>(8, limit - j);
      for (std::int64_t h = h0; h < h1; ++h)
        dot8(douti + h * dh, at, h * dh, dh, T(1), count, g_row(h, i) + j);
    }
    // Through the dropout to P, plus a gradient of P itself; then the softmax's Jacobian:
    // dS_ij = scale P_ij (dP_ij - sum_l P_il dP_il); 0 past the limit.
    for (std::int64_t h = h0; h < h1; ++h) {
      const T* pi = P + at_row(h, i);
      const T* mi = drop ? drop + at_row(h, i) : nullptr;
      const T* dpi = dP_in ? dP_in + at_row(h, i) : nullptr;
      T* gh = g_row(h, i);
      if (mi) {
#pragma omp simd
        for (std::int64_t j = 0; j < limit; ++j) gh[j] *= mi[j];
      }
      if (dpi) {
#pragma omp simd
        for (std::int64_t j = 0; j < limit; ++j) gh[j] += dpi[j];
      }
      T sum = 0;
#pragma omp simd reduction(+ : sum)
      for (std::int64_t j = 0; j < limit; ++j) sum += pi[j] * gh[j];
#pragma omp simd
      for (std::int64_t j = 0; j < limit; ++j) gh[j] = scale * pi[j] * (gh[j] - sum);
      std::fill(gh + limit, gh + m, T(0));
    }
    // dQ_i += dS_i K, eight keys a pass.
    if (dQ) {
      T* dqi = dQ + (b * n + i) * s.q_ld;
      for (std::int64_t j = 0; j < limit; j += 8) {
        block(k, s.k_ld, j, limit);
        for (std::int64_t h = h0; h < h1; ++h)
          axpy8(at, h * dh, limit - j, [&](std::int64_t e) { return g_row(h, i)[j + e]; },
                dqi + h * dh, dh);
      }
    }
  }
  if (n == 0) return;
  // dV_j += sum_i (dropped P)_ij dO_i and dK_j += sum_i dS_ij Q_i, eight queries a pass, from
  // the first query that reads key j (under a causal mask, the queries before it weigh it 0).
  for (std::int64_t j = 0; j < widest; ++j)
    for (std::int64_t i = s.causal ? std::clamp<std::int64_t>(j - s.causal_offset, 0, n) : 0;
         i < n; i += 8) {
      const auto column = [&](const T* rows, std::int64_t ld, T* out, const auto& weight) {
        block(rows, ld, i, n);
        for (std::int64_t h = h0; h < h1; ++h)
          axpy8(at, h * dh, n - i, [&](std::int64_t e) { return weight(h, i + e); },
                out + h * dh, dh);
      };
      if (dV)
        column(dout, d, dV + (b * m + j) * s.v_ld, [&](std::int64_t h, std::int64_t r) {
          const T w = P[at_row(h, r) + j];
          return drop ? w * drop[at_row(h, r) + j] : w;
        });
      if (dK)
        column(q, s.q_ld, dK + (b * m + j) * s.k_ld,
               [&](std::int64_t h, std::int64_t r) { return g_row(h, r)[j]; });
    }
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
  if (uses_product_loops(s)) {
    const LoopTasks tasks(s);
#pragma omp parallel for schedule(static) if (worth_threads(s))
    for (std::int64_t t = 0; t < tasks.count; ++t)
      forward_loops(s, tasks.row(t), tasks.h0(t), tasks.h0(t) + tasks.width, Q, K, V, additive,
                    drop, P, O);
    return;
  }
#pragma omp parallel if (worth_threads(s))
  {
    std::vector<T> dropped(drop ? static_cast<std::size_t>(n * m) : 0);
#pragma omp for schedule(static)
    for (std::int64_t bh = 0; bh < pairs; ++bh) {
      const std::int64_t b = bh / H, h = bh % H;
      const T* q = Q + b * n * s.q_ld + h * dh;
      const T* k = K + b * m * s.k_ld + h * dh;
      const T* v = V + b * m * s.v_ld + h * dh;
      T* p = P + bh * n * m;
      T* o = O + b * n * d + h * dh;
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
  if (uses_product_loops(s)) {
    // Each task writes its own rows (b) and columns (its heads) of dQ, dK, dV: no two threads
    // touch the same element, even when Q, K and V are blocks of one tensor.
    const LoopTasks tasks(s);
#pragma omp parallel if (worth_threads(s))
    {
      std::vector<T> g(static_cast<std::size_t>(tasks.width * n * m));
#pragma omp for schedule(static)
      for (std::int64_t t = 0; t < tasks.count; ++t)
        backward_loops(s, tasks.row(t), tasks.h0(t), tasks.h0(t) + tasks.width, Q, K, V, P, drop,
                       dO, dP_in, dQ, dK, dV, g.data());
    }
    return;
  }
  // Every (b, h) pair writes its own rows (b) and columns (h) of dQ, dK, dV: no two threads
  // touch the same element, even when Q, K and V are blocks of one tensor.
#pragma omp parallel if (worth_threads(s))
  {
    std::vector<T> dP(static_cast<std::size_t>(n * m));
    std::vector<T> dropped(drop && dV ? static_cast<std::size_t>(n * m) : 0);
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
      zero_overwritten(s, b, h * dh, dh, dQ, dK, dV);
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
