#include "heed/kernels/bf16_products.h"

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "heed/base/error.h"
#include "heed/kernels/onednn.h"

namespace heed::kernels {
namespace {

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

// The open Bf16WeightScope's regions as [begin, end) addresses, sorted, and the scope's
// number (0 when none is open). Written only by the scope's constructor and destructor, on
// the thread that runs the step, before and after the step's parallel regions.
struct WeightRegions {
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> ranges;
  std::uint64_t scope = 0;
  std::uint64_t scopes_opened = 0;
};

WeightRegions& weight_regions() {
  static WeightRegions r;
  return r;
}

// A thread's bf16 copy of one weight operand: its rows x cols floats at ld.
struct WeightCopy {
  std::vector<std::uint16_t> bits;
  std::uint64_t scope = 0;  // the scope it was rounded in
};
using CopyKey = std::tuple<const float*, std::int64_t, std::int64_t, std::int64_t>;

// One matmul per (trans_a, trans_b, accumulate), shapes given at run time (oneDNN's jit
// bf16 GEMM); per thread, so concurrent products never share a primitive or its scratchpad.
struct ThreadState {
  std::unique_ptr<dnnl::matmul> prims[8];
  bool tried[8] = {};
  std::vector<std::uint16_t> a, b;
  std::vector<float> c;
  std::unique_ptr<dnnl::stream> stream;
  std::size_t products = 0;
  std::map<CopyKey, WeightCopy> copies;
  std::uint64_t copies_scope = 0;  // the scope whose copies were last looked up
  Bf16WeightCopyCounts counts;
};

ThreadState& thread_state() {
  thread_local ThreadState s;
  return s;
}

tag layout(bool trans) { return trans ? tag::ba : tag::ab; }

dnnl::matmul::primitive_desc make_pd(bool ta, bool tb, bool accumulate) {
  const auto R = DNNL_RUNTIME_DIM_VAL;
  dnnl::memory::desc src({R, R}, dt::bf16, layout(ta));
  dnnl::memory::desc wei({R, R}, dt::bf16, layout(tb));
  dnnl::memory::desc dst({R, R}, dt::f32, tag::ab);
  dnnl::primitive_attr attr;
  if (accumulate) {
    dnnl::post_ops po;
    po.append_sum(1.0f);
    attr.set_post_ops(po);
  }
  return dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, wei, dst), attr, onednn_engine(),
                                      /*allow_empty=*/true);
}

bool fast(const dnnl::matmul::primitive_desc& pd) {
  return pd && std::string(pd.impl_info_str()).rfind("ref", 0) != 0;
}

dnnl::matmul* primitive(ThreadState& s, bool ta, bool tb, bool accumulate) {
  const int i = (ta ? 4 : 0) + (tb ? 2 : 0) + (accumulate ? 1 : 0);
  if (!s.tried[i]) {
    s.tried[i] = true;
    auto pd = make_pd(ta, tb, accumulate);
    if (fast(pd)) s.prims[i] = std::make_unique<dnnl::matmul>(pd);
  }
  return s.prims[i].get();
}

bool inside_weights(const float* p, std::int64_t rows, std::int64_t cols, std::int64_t ld) {
  const WeightRegions& r = weight_regions();
  if (r.scope == 0 || r.ranges.empty()) return false;
  const auto begin = reinterpret_cast<std::uintptr_t>(p);
  const auto end = reinterpret_cast<std::uintptr_t>(p + (rows - 1) * ld + cols);
  // The last region starting at or before p.
  auto it = std::upper_bound(r.ranges.begin(), r.ranges.end(),
                             std::make_pair(begin, ~std::uintptr_t{0}));
  if (it == r.ranges.begin()) return false;
  --it;
  return begin >= it->first && end <= it->second;
}

// op's operand rows x cols at ld as dense bf16: the scope's copy where it lies inside the
// scope's weights (rounded on its first use in the scope), else rounded into scratch.
const std::uint16_t* bf16_operand(ThreadState& s, const float* p, std::int64_t rows,
                                  std::int64_t cols, std::int64_t ld,
                                  std::vector<std::uint16_t>& scratch) {
  const std::size_t n = static_cast<std::size_t>(rows * cols);
  if (!inside_weights(p, rows, cols, ld)) {
    scratch.resize(n);
    round_to_bf16(p, rows, cols, ld, scratch.data());
    return scratch.data();
  }
  const std::uint64_t scope = weight_regions().scope;
  if (s.copies_scope != scope) {
    // A new scope: drop the copies the previous one did not use (regions that went away),
    // keep the others' buffers for re-rounding.
    for (auto it = s.copies.begin(); it != s.copies.end();)
      it = it->second.scope == s.copies_scope ? std::next(it) : s.copies.erase(it);
    s.copies_scope = scope;
  }
  WeightCopy& copy = s.copies[CopyKey{p, rows, cols, ld}];
  if (copy.scope != scope) {
    copy.bits.resize(n);
    round_to_bf16(p, rows, cols, ld, copy.bits.data());
    copy.scope = scope;
    ++s.counts.made;
  } else {
    ++s.counts.reused;
  }
  return copy.bits.data();
}

}  // namespace

Bf16WeightScope::Bf16WeightScope(std::vector<std::pair<const float*, std::size_t>> regions) {
  WeightRegions& r = weight_regions();
  HEED_CHECK(r.scope == 0, "a bf16 weight scope is already open");
  r.ranges.clear();
  for (const auto& [p, n] : regions)
    if (p && n > 0)
      r.ranges.emplace_back(reinterpret_cast<std::uintptr_t>(p),
                            reinterpret_cast<std::uintptr_t>(p + n));
  std::sort(r.ranges.begin(), r.ranges.end());
  r.scope = ++r.scopes_opened;
}

Bf16WeightScope::~Bf16WeightScope() {
  WeightRegions& r = weight_regions();
  r.scope = 0;
  r.ranges.clear();
}

Bf16WeightCopyCounts bf16_weight_copies_on_this_thread() { return thread_state().counts; }

void require_bf16_products() {
  auto pd = make_pd(false, true, false);
  HEED_CHECK(fast(pd), "bf16 products: oneDNN has no fast bf16 kernel on this CPU (it offers ",
             pd ? pd.impl_info_str() : "none", "); use fp32");
}

bool bf16_products_available() {
  static const bool available = fast(make_pd(false, true, false));
  return available;
}

std::size_t bf16_products_run_on_this_thread() { return thread_state().products; }

bool gemm_bf16(bool ta, bool tb, std::int64_t M, std::int64_t N, std::int64_t K, float alpha,
               const float* A, std::int64_t lda, const float* B, std::int64_t ldb, float beta,
               float* C, std::int64_t ldc) {
  if (M <= 0 || N <= 0 || K <= 0 || alpha != 1.0f || (beta != 0.0f && beta != 1.0f)) return false;
  ThreadState& s = thread_state();
  const bool dense_c = ldc == N;
  const bool accumulate = beta != 0.0f && dense_c;
  dnnl::matmul* mm = primitive(s, ta, tb, accumulate);
  if (!mm) return false;
  // The operands as stored (op(A) is A^T when ta), each made dense and rounded.
  const std::int64_t a_rows = ta ? K : M, a_cols = ta ? M : K;
  const std::int64_t b_rows = tb ? N : K, b_cols = tb ? K : N;
  const std::uint16_t* a16 = bf16_operand(s, A, a_rows, a_cols, lda, s.a);
  const std::uint16_t* b16 = bf16_operand(s, B, b_rows, b_cols, ldb, s.b);
  float* c = C;
  if (!dense_c) {
    s.c.resize(static_cast<std::size_t>(M * N));
    c = s.c.data();
  }
  dnnl::engine& eng = onednn_engine();
  if (!s.stream) s.stream = std::make_unique<dnnl::stream>(eng);
  // oneDNN reads, never writes, its source and weights.
  dnnl::memory src(dnnl::memory::desc({M, K}, dt::bf16, layout(ta)), eng,
                   const_cast<std::uint16_t*>(a16));
  dnnl::memory wei(dnnl::memory::desc({K, N}, dt::bf16, layout(tb)), eng,
                   const_cast<std::uint16_t*>(b16));
  dnnl::memory dst(dnnl::memory::desc({M, N}, dt::f32, tag::ab), eng, c);
  mm->execute(*s.stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}});
  s.stream->wait();
  if (!dense_c) store_rows(c, M, N, beta, C, ldc);
  ++s.products;
  return true;
}

}  // namespace heed::kernels
