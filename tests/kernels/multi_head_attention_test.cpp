// The multi-head attention kernel's two ways of running a (batch, head) pair's products, loops
// and kernels::gemm, give the same weights, output and gradients, also with a gradient of the
// weights themselves (the autograd tests check the kernel against the definition and by
// finite differences, at sizes that take the loops); keys listed by row read what the same
// keys laid out batch row by batch row give.
#include "heed/kernels/multi_head_attention.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace heed::kernels {
namespace {

using Products = HeadsShape::Products;

template <typename T>
std::vector<T> random_values(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1.5, 1.5);
  std::vector<T> v(n);
  for (T& x : v) x = static_cast<T>(u(gen));
  return v;
}

struct Case {
  std::int64_t batch, heads, queries, keys, dim;
  bool key_lengths, causal, additive, dropout, blocks;  // blocks: Q, K, V columns of one tensor
};

struct Result {
  std::vector<double> P, O, dQ, dK, dV;
};

// The case's sizes, scale and causal mask (the queries the last n positions of m).
HeadsShape shape_of(const Case& c) {
  HeadsShape s;
  s.batch = c.batch;
  s.heads = c.heads;
  s.queries = c.queries;
  s.keys = c.keys;
  s.dim = c.dim;
  s.scale = 1.0 / std::sqrt(static_cast<double>(c.dim / c.heads));
  s.causal = c.causal;
  s.causal_offset = c.keys - c.queries;
  return s;
}

// overwrite: the gradients start as NaN and the call overwrites them (HeadsShape's
// overwrite_*), where else they start at 0.5 and the call adds to them.
template <typename T>
Result run(const Case& c, Products products, bool overwrite = false) {
  const std::int64_t B = c.batch, H = c.heads, n = c.queries, m = c.keys, d = c.dim;
  HeadsShape s = shape_of(c);
  s.products = products;
  std::vector<std::int64_t> lengths;
  for (std::int64_t b = 0; b < B; ++b) lengths.push_back(b % 3 == 2 ? 0 : m - b % m);
  if (c.key_lengths) s.key_lengths = lengths.data();
  // Q (B, n, q_ld), K and V (B, m, *): one (B, n, 3 d + 1) tensor when blocks (n = m then).
  const std::int64_t width = c.blocks ? 3 * d + 1 : d;
  s.q_ld = s.k_ld = s.v_ld = width;
  std::vector<T> q = random_values<T>(static_cast<std::size_t>(B * n * width), 1);
  std::vector<T> k = c.blocks ? q : random_values<T>(static_cast<std::size_t>(B * m * width), 2);
  std::vector<T> v = c.blocks ? q : random_values<T>(static_cast<std::size_t>(B * m * width), 3);
  const std::int64_t qc = c.blocks ? 1 : 0, kc = c.blocks ? d + 1 : 0, vc = c.blocks ? 2 * d + 1 : 0;
  std::vector<T> additive = random_values<T>(static_cast<std::size_t>(n * m), 4);
  additive[1] = -INFINITY;
  std::vector<T> drop(static_cast<std::size_t>(B * H * n * m));
  std::mt19937 gen(5);
  for (T& x : drop) x = gen() % 4 == 0 ? T(0) : T(4) / T(3);
  std::vector<T> P(static_cast<std::size_t>(B * H * n * m), T(7)), O(static_cast<std::size_t>(B * n * d), T(7));
  const GemmOptions options;
  multi_head_attention<T>(options, s, q.data() + qc, k.data() + kc, v.data() + vc,
                          c.additive ? additive.data() : nullptr, c.dropout ? drop.data() : nullptr,
                          P.data(), O.data());
  std::vector<T> dO = random_values<T>(O.size(), 6);
  // The gradients accumulate: start them from a non-zero value.
  const T start = overwrite ? std::numeric_limits<T>::quiet_NaN() : T(0.5);
  std::vector<T> dq(q.size(), start), dk(k.size(), start), dv(v.size(), start);
  s.overwrite_dq = s.overwrite_dk = s.overwrite_dv = overwrite;
  T* dk_at = c.blocks ? dq.data() + kc : dk.data();
  T* dv_at = c.blocks ? dq.data() + vc : dv.data();
  // A gradient of the weights themselves (copy attention's loss reads them) where dropout is
  // on, so that both paths meet it with and without a mask.
  std::vector<T> dP = random_values<T>(P.size(), 7);
  multi_head_attention_backward<T>(options, s, q.data() + qc, k.data() + kc, v.data() + vc,
                                   P.data(), c.dropout ? drop.data() : nullptr, dO.data(),
                                   c.dropout || c.additive ? dP.data() : nullptr, dq.data() + qc,
                                   dk_at, dv_at);
  Result r;
  r.P.assign(P.begin(), P.end());
  r.O.assign(O.begin(), O.end());
  r.dQ.assign(dq.begin(), dq.end());
  r.dK.assign(dk.begin(), dk.end());
  r.dV.assign(dv.begin(), dv.end());
  return r;
}

void expect_near(const std::vector<double>& a, const std::vector<double>& b, double tol,
                 const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t i = 0; i < a.size(); ++i)
    ASSERT_NEAR(a[i], b[i], tol * (1 + std::abs(b[i]))) << what << " at " << i;
}

std::vector<Case> cases() {
  return {
      {2, 1, 3, 5, 8, false, false, false, false, false},
      {3, 4, 7, 9, 32, true, false, false, false, false},
      {3, 2, 6, 6, 16, true, true, false, false, true},    // self-attention of one projection
      {4, 4, 1, 11, 256, true, true, false, false, false}, // one decoding step over a cache
      {2, 2, 5, 8, 16, true, false, true, true, false},
      {5, 4, 12, 12, 256, true, true, true, true, true},   // the bench's training shapes
      {2, 2, 40, 40, 128, true, true, false, true, false}, // past kSmallProducts: gemm by default
      // 16 batch rows or more: the loops take a row's heads together
      {17, 4, 1, 13, 64, true, true, false, false, false}, // a beam's decoding step
      {16, 3, 6, 6, 24, true, true, true, true, true},     // self-attention, all options
      {18, 3, 4, 9, 15, true, true, false, true, false},   // heads of 5: no whole vectors
  };
}

// Every case's weights, output and gradients by the loops and by gemm, within tol.
template <typename T>
void expect_loops_and_gemm_agree(double tol) {
  for (const Case& c : cases()) {
    const Result loops = run<T>(c, Products::loops), gemm = run<T>(c, Products::gemm);
    expect_near(loops.P, gemm.P, tol, "P");
    expect_near(loops.O, gemm.O, tol, "O");
    expect_near(loops.dQ, gemm.dQ, tol, "dQ");
    expect_near(loops.dK, gemm.dK, tol, "dK");
    expect_near(loops.dV, gemm.dV, tol, "dV");
  }
}

TEST(MultiHeadAttentionKernel, LoopsAndGemmAgreeInDouble) {
  expect_loops_and_gemm_agree<double>(1e-12);
}

TEST(MultiHeadAttentionKernel, LoopsAndGemmAgreeInFloat) {
  expect_loops_and_gemm_agree<float>(2e-5);
}

// Overwriting a gradient buffer (one nothing has written yet) gives what adding to zeros
// gives, in every column of the heads, by the loops and by gemm; the columns outside them
// (a block's first column) are not touched.
TEST(MultiHeadAttentionKernel, OverwrittenGradientsAreTheAccumulatedOnes) {
  for (const Case& c : cases())
    for (Products products : {Products::loops, Products::gemm}) {
      const Result added = run<double>(c, products), written = run<double>(c, products, true);
      const std::int64_t width = c.blocks ? 3 * c.dim + 1 : c.dim;
      const auto check = [&](const std::vector<double>& a, const std::vector<double>& w,
                             const char* what) {
        ASSERT_EQ(a.size(), w.size());
        for (std::size_t i = 0; i < a.size(); ++i) {
          if (c.blocks && static_cast<std::int64_t>(i) % width == 0) {
            ASSERT_TRUE(std::isnan(w[i])) << what << " at " << i << " was written";
            continue;
          }
          ASSERT_NEAR(w[i], a[i] - 0.5, 1e-12) << what << " at " << i << ", case of "
                                               << c.batch << " x " << c.queries << " x " << c.keys;
        }
      };
      check(added.dQ, written.dQ, "dQ");
      if (c.blocks) continue;  // dK and dV are columns of dQ's buffer
      check(added.dK, written.dK, "dK");
      check(added.dV, written.dV, "dV");
    }
}

TEST(MultiHeadAttentionKernel, TheAutomaticChoiceFollowsTheProductSize) {
  HeadsShape s;
  s.heads = 4;
  s.dim = 256;  // dh 64
  s.queries = s.keys = 32;
  EXPECT_TRUE(uses_product_loops(s));
  s.keys = 33;
  EXPECT_FALSE(uses_product_loops(s));
  s.queries = 1;
  s.keys = 1000;
  EXPECT_TRUE(uses_product_loops(s));
  s.products = Products::gemm;
  EXPECT_FALSE(uses_product_loops(s));
  s.queries = s.keys = 1000;
  s.products = Products::loops;
  EXPECT_TRUE(uses_product_loops(s));
  // Listed key rows are read by the loops only, whatever the size or the forced choice.
  std::int64_t row = 0;
  s.key_rows = &row;
  s.products = Products::gemm;
  EXPECT_TRUE(uses_product_loops(s));
}

// Keys and values listed by row (incremental decoding's cache, models/position_cache.h) give
// exactly the weights and output of the same keys and values laid out batch row by batch row:
// the store holds the rows shuffled, with unused rows between them.
template <typename T>
void expect_listed_rows_read_the_same_keys() {
  for (const Case& c : cases()) {
    if (c.dropout || c.additive || c.blocks) continue;  // listed keys take neither
    const std::int64_t B = c.batch, H = c.heads, n = c.queries, m = c.keys, d = c.dim;
    HeadsShape s = shape_of(c);
    s.q_ld = d;
    s.k_ld = s.v_ld = 2 * d;  // [K; V] rows, as the cache stores them
    s.products = Products::loops;
    std::vector<std::int64_t> lengths;
    for (std::int64_t b = 0; b < B; ++b) lengths.push_back(m - b % m);
    if (c.key_lengths) s.key_lengths = lengths.data();
    const std::vector<T> q = random_values<T>(static_cast<std::size_t>(B * n * d), 1);
    const std::vector<T> kv = random_values<T>(static_cast<std::size_t>(B * m * 2 * d), 2);
    // Row r of the batch-major layout goes to store row 2 perm[r] + 1.
    std::vector<std::int64_t> perm(static_cast<std::size_t>(B * m));
    for (std::size_t r = 0; r < perm.size(); ++r) perm[r] = static_cast<std::int64_t>(r);
    std::shuffle(perm.begin(), perm.end(), std::mt19937(9));
    std::vector<T> store(static_cast<std::size_t>(2 * B * m * 2 * d + 2 * d), T(1e3));
    std::vector<std::int64_t> rows(perm.size());
    for (std::size_t r = 0; r < perm.size(); ++r) {
      rows[r] = 2 * perm[r] + 1;
      std::copy_n(kv.begin() + static_cast<std::ptrdiff_t>(r) * 2 * d, 2 * d,
                  store.begin() + rows[r] * 2 * d);
    }
    const std::size_t np = static_cast<std::size_t>(B * H * n * m), no = static_cast<std::size_t>(B * n * d);
    std::vector<T> P1(np, T(7)), O1(no, T(7)), P2(np, T(5)), O2(no, T(5));
    multi_head_attention<T>({}, s, q.data(), kv.data(), kv.data() + d, nullptr, nullptr, P1.data(),
                            O1.data());
    s.key_rows = rows.data();
    multi_head_attention<T>({}, s, q.data(), store.data(), store.data() + d, nullptr, nullptr,
                            P2.data(), O2.data());
    for (std::size_t i = 0; i < np; ++i) ASSERT_EQ(P1[i], P2[i]) << "P at " << i;
    for (std::size_t i = 0; i < no; ++i) ASSERT_EQ(O1[i], O2[i]) << "O at " << i;
  }
}

TEST(MultiHeadAttentionKernel, ListedKeyRowsReadTheSameKeysInFloat) {
  expect_listed_rows_read_the_same_keys<float>();
}

TEST(MultiHeadAttentionKernel, ListedKeyRowsReadTheSameKeysInDouble) {
  expect_listed_rows_read_the_same_keys<double>();
}

}  // namespace
}  // namespace heed::kernels
