#include "heed/kernels/bf16_products.h"

#include <memory>
#include <string>
#include <vector>

#include "heed/base/error.h"
#include "heed/kernels/onednn.h"

namespace heed::kernels {
namespace {

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

// One matmul per (trans_a, trans_b, accumulate), shapes given at run time (oneDNN's jit
// bf16 GEMM); per thread, so concurrent products never share a primitive or its scratchpad.
struct ThreadState {
  std::unique_ptr<dnnl::matmul> prims[8];
  bool tried[8] = {};
  std::vector<std::uint16_t> a, b;
  std::vector<float> c;
  std::unique_ptr<dnnl::stream> stream;
  std::size_t products = 0;
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

}  // namespace

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
  s.a.resize(static_cast<std::size_t>(a_rows * a_cols));
  s.b.resize(static_cast<std::size_t>(b_rows * b_cols));
  round_to_bf16(A, a_rows, a_cols, lda, s.a.data());
  round_to_bf16(B, b_rows, b_cols, ldb, s.b.data());
  float* c = C;
  if (!dense_c) {
    s.c.resize(static_cast<std::size_t>(M * N));
    c = s.c.data();
  }
  dnnl::engine& eng = onednn_engine();
  if (!s.stream) s.stream = std::make_unique<dnnl::stream>(eng);
  dnnl::memory src(dnnl::memory::desc({M, K}, dt::bf16, layout(ta)), eng, s.a.data());
  dnnl::memory wei(dnnl::memory::desc({K, N}, dt::bf16, layout(tb)), eng, s.b.data());
  dnnl::memory dst(dnnl::memory::desc({M, N}, dt::f32, tag::ab), eng, c);
  mm->execute(*s.stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}});
  s.stream->wait();
  if (!dense_c) store_rows(c, M, N, beta, C, ldc);
  ++s.products;
  return true;
}

}  // namespace heed::kernels
