#include "heed/kernels/packed_weight.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <dnnl.hpp>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "heed/base/error.h"
#include "heed/kernels/bf16_products.h"
#include "heed/kernels/int8_quantize.h"
#include "heed/kernels/onednn.h"

namespace heed::kernels {
namespace {

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;
using dims = dnnl::memory::dims;

dt weight_type(MatmulPrecision p) {
  return p == MatmulPrecision::bf16 ? dt::bf16 : p == MatmulPrecision::int8 ? dt::s8 : dt::f32;
}
dt src_type(MatmulPrecision p) {
  return p == MatmulPrecision::bf16 ? dt::bf16 : p == MatmulPrecision::int8 ? dt::u8 : dt::f32;
}
// int8 products sum into s32; heed scales them into C itself (a scale per row of A and per
// column of C, which oneDNN 2.6's output scales cannot express).
dt dst_type(MatmulPrecision p) { return p == MatmulPrecision::int8 ? dt::s32 : dt::f32; }

// A kernel worth using: anything but oneDNN's reference (scalar) implementations.
bool fast_impl(const dnnl::matmul::primitive_desc& pd) {
  return std::string_view(pd.impl_info_str()).substr(0, 3) != "ref";
}

// What a product does with C: C = A B^T, C += A B^T, or C = A B^T + bias.
enum class Mode { store, accumulate, bias };

// One primitive per (rows, mode). oneDNN 2.6's blocked-weight kernels take dense A and C
// only, so strided ones are copied through per-thread buffers.
using PrimKey = std::pair<std::int64_t, Mode>;
struct Prim {
  bool ok = false;
  dnnl::matmul matmul;
  dnnl::memory::desc src, dst;
  std::size_t scratch_bytes = 0;
};

struct Packed {
  bool ok = false;
  dnnl::memory weights;  // the kernel's blocked layout, weight_type(precision)
  std::map<PrimKey, Prim> prims;
  // int8: each row's (output channel's) scale and the sum of its int8 values (for A's zero
  // point: sum_k (a_k - z) w_k = sum_k a_k w_k - z sum_k w_k).
  std::vector<float> scales;
  std::vector<std::int32_t> sums;
};

// A block of the weight: B (N x K, row stride ldb).
using PackKey = std::tuple<const float*, std::int64_t, std::int64_t, std::int64_t>;

// The bias of an N-column product: one row, broadcast by oneDNN over C's rows.
dnnl::memory::desc bias_desc(std::int64_t N) {
  return dnnl::memory::desc({1, N}, dt::f32, tag::ab);
}

dnnl::matmul::primitive_desc make_pd(const dnnl::memory::desc& src,
                                     const dnnl::memory::desc& weights,
                                     const dnnl::memory::desc& dst, Mode mode) {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  if (mode == Mode::accumulate) {
    dnnl::post_ops po;
    po.append_sum(1.0f);
    attr.set_post_ops(po);
  }
  const dnnl::matmul::desc desc =
      mode == Mode::bias ? dnnl::matmul::desc(src, weights, bias_desc(dst.dims()[1]), dst)
                         : dnnl::matmul::desc(src, weights, dst);
  return dnnl::matmul::primitive_desc(desc, attr, onednn_engine(), /*allow_empty=*/true);
}

dnnl::memory::desc src_desc(MatmulPrecision p, std::int64_t M, std::int64_t K) {
  return dnnl::memory::desc({M, K}, src_type(p), tag::ab);
}
dnnl::memory::desc dst_desc(MatmulPrecision p, std::int64_t M, std::int64_t N) {
  return dnnl::memory::desc({M, N}, dst_type(p), tag::ab);
}

// Packs B for the weight's precision, taking the layout the kernel picks for M rows.
void pack(Packed& p, MatmulPrecision precision, std::int64_t M, std::int64_t N, std::int64_t K,
          const float* B, std::int64_t ldb) {
  const dt wt = weight_type(precision);
  auto pd = make_pd(src_desc(precision, M, K), dnnl::memory::desc({K, N}, wt, tag::any),
                    dst_desc(precision, M, N), Mode::store);
  if (!pd || !fast_impl(pd)) return;
  // B^T as oneDNN sees it: K x N with strides (1, ldb); int8 quantises B first (dense).
  std::vector<std::int8_t> q;
  dnnl::memory user;
  if (precision == MatmulPrecision::int8) {
    q.resize(static_cast<std::size_t>(N * K));
    p.scales.resize(static_cast<std::size_t>(N));
    p.sums.assign(static_cast<std::size_t>(N), 0);
    quantize_weight_rows(B, N, K, ldb, q.data(), p.scales.data());
    for (std::int64_t j = 0; j < N; ++j)
      for (std::int64_t k = 0; k < K; ++k) p.sums[static_cast<std::size_t>(j)] += q[j * K + k];
    user = dnnl::memory(dnnl::memory::desc({K, N}, dt::s8, dims{1, K}), onednn_engine(), q.data());
  } else {
    user = dnnl::memory(dnnl::memory::desc({K, N}, dt::f32, dims{1, ldb}), onednn_engine(),
                        const_cast<float*>(B));
  }
  p.weights = dnnl::memory(pd.weights_desc(), onednn_engine());
  dnnl::stream s(onednn_engine());
  dnnl::reorder(user, p.weights).execute(s, user, p.weights);
  s.wait();
  p.ok = true;
}

Prim make_prim(const Packed& p, MatmulPrecision precision, std::int64_t M, std::int64_t N,
               std::int64_t K, Mode mode) {
  Prim r;
  r.src = src_desc(precision, M, K);
  r.dst = dst_desc(precision, M, N);
  auto pd = make_pd(r.src, p.weights.get_desc(), r.dst, mode);
  if (!pd || !fast_impl(pd)) return r;
  r.matmul = dnnl::matmul(pd);
  r.scratch_bytes = pd.scratchpad_desc().get_size();
  r.ok = true;
  return r;
}

struct ThreadBuffers {
  std::vector<std::uint8_t> scratch;
  std::vector<std::uint16_t> a_bf16;    // A rounded
  std::vector<std::uint8_t> a_u8;       // A quantised (int8), with its rows' scales and zero points
  std::vector<float> a_scales;
  std::vector<std::int32_t> a_zero_points;
  std::vector<std::int32_t> c_s32;      // the int8 product's integer sums
  std::vector<float> a_dense, c_dense;  // strided A and C, copied
};

}  // namespace

struct PackedWeight::State {
  const float* data = nullptr;
  std::size_t size = 0;
  MatmulPrecision precision = MatmulPrecision::f32;
  std::atomic<std::size_t> products{0};
  mutable std::mutex mutex;  // guards packs (and the primitives inside)
  std::map<PackKey, Packed> packs;
};

PackedWeight::PackedWeight(const float* data, std::size_t size, MatmulPrecision precision)
    : s_(std::make_unique<State>()) {
  s_->data = data;
  s_->size = size;
  s_->precision = precision;
}

PackedWeight::~PackedWeight() = default;

MatmulPrecision PackedWeight::precision() const { return s_->precision; }
const float* PackedWeight::data() const { return s_->data; }
std::size_t PackedWeight::size() const { return s_->size; }

std::string PackedWeight::implementation(MatmulPrecision precision, std::int64_t M,
                                         std::int64_t N, std::int64_t K) {
  try {
    auto pd = make_pd(src_desc(precision, M, K),
                      dnnl::memory::desc({K, N}, weight_type(precision), tag::any),
                      dst_desc(precision, M, N), Mode::store);
    return pd && fast_impl(pd) ? pd.impl_info_str() : "none";
  } catch (const dnnl::error&) {
    return "none";
  }
}

std::size_t PackedWeight::products() const { return s_->products.load(std::memory_order_relaxed); }

std::size_t PackedWeight::packed() const {
  std::lock_guard<std::mutex> lock(s_->mutex);
  return static_cast<std::size_t>(
      std::count_if(s_->packs.begin(), s_->packs.end(), [](const auto& p) { return p.second.ok; }));
}

bool PackedWeight::gemm(std::int64_t M, std::int64_t N, std::int64_t K, const float* A,
                        std::int64_t lda, const float* B, std::int64_t ldb, float beta, float* C,
                        std::int64_t ldc) const {
  return run(M, N, K, A, lda, B, ldb, beta, nullptr, C, ldc);
}

bool PackedWeight::gemm_bias(std::int64_t M, std::int64_t N, std::int64_t K, const float* A,
                             std::int64_t lda, const float* B, std::int64_t ldb, const float* bias,
                             float* C, std::int64_t ldc) const {
  return run(M, N, K, A, lda, B, ldb, 0.0f, bias, C, ldc);
}

// gemm and gemm_bias: bias is null or beta is 0.
bool PackedWeight::run(std::int64_t M, std::int64_t N, std::int64_t K, const float* A,
                       std::int64_t lda, const float* B, std::int64_t ldb, float beta,
                       const float* bias, float* C, std::int64_t ldc) const {
  if (M <= 0 || N <= 0 || K <= 0 || (beta != 0.0f && beta != 1.0f)) return false;
  State& st = *s_;
  HEED_CHECK(B >= st.data && B + (N - 1) * ldb + K <= st.data + st.size,
             "packed weight: the product's B (", N, " x ", K, ", row stride ", ldb,
             ") lies outside the weight it was given with");
  const MatmulPrecision precision = st.precision;

  // A strided C is computed into a dense buffer and then stored or added. int8 products
  // always store their integer sums; the scaling pass adds bias and C.
  const bool int8 = precision == MatmulPrecision::int8;
  const bool dense_c = ldc == N && !int8;
  const Mode mode = int8    ? Mode::store
                    : bias ? Mode::bias
                    : beta != 0.0f && dense_c ? Mode::accumulate
                                              : Mode::store;

  const Prim* prim = nullptr;
  const Packed* packed = nullptr;
  try {
    std::lock_guard<std::mutex> lock(st.mutex);
    auto [it, fresh] = st.packs.try_emplace(PackKey{B, ldb, N, K});
    Packed& p = it->second;
    if (fresh) pack(p, precision, M, N, K, B, ldb);
    if (!p.ok) return false;
    const PrimKey key{M, mode};
    auto pit = p.prims.find(key);
    if (pit == p.prims.end())
      pit = p.prims.emplace(key, make_prim(p, precision, M, N, K, mode)).first;
    if (!pit->second.ok) return false;
    prim = &pit->second;  // std::map nodes stay put; entries are never erased while st lives
    packed = &p;
  } catch (const dnnl::error&) {
    return false;  // no kernel for this case: BLAS does it
  }

  thread_local ThreadBuffers buf;
  const auto MK = static_cast<std::size_t>(M * K);
  void* a = const_cast<float*>(A);
  if (precision == MatmulPrecision::bf16) {
    buf.a_bf16.resize(MK);
    round_to_bf16(A, M, K, lda, buf.a_bf16.data());
    a = buf.a_bf16.data();
  } else if (int8) {
    buf.a_u8.resize(MK);
    buf.a_scales.resize(static_cast<std::size_t>(M));
    buf.a_zero_points.resize(static_cast<std::size_t>(M));
    quantize_activation_rows(A, M, K, lda, buf.a_u8.data(), buf.a_scales.data(),
                             buf.a_zero_points.data());
    a = buf.a_u8.data();
  } else if (lda != K) {
    buf.a_dense.resize(MK);
    for (std::int64_t i = 0; i < M; ++i)
      std::memcpy(buf.a_dense.data() + i * K, A + i * lda,
                  static_cast<std::size_t>(K) * sizeof(float));
    a = buf.a_dense.data();
  }
  void* c = C;
  if (int8) {
    buf.c_s32.resize(static_cast<std::size_t>(M * N));
    c = buf.c_s32.data();
  } else if (!dense_c) {
    buf.c_dense.resize(static_cast<std::size_t>(M * N));
    c = buf.c_dense.data();
  }
  buf.scratch.resize(std::max<std::size_t>({buf.scratch.size(), prim->scratch_bytes, 64}));
  thread_local dnnl::stream stream(onednn_engine());
  dnnl::memory src(prim->src, onednn_engine(), a);
  dnnl::memory dst(prim->dst, onednn_engine(), c);
  dnnl::memory scratch(
      dnnl::memory::desc({static_cast<std::int64_t>(buf.scratch.size())}, dt::u8, tag::a),
      onednn_engine(), buf.scratch.data());
  std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, src},
                                             {DNNL_ARG_WEIGHTS, packed->weights},
                                             {DNNL_ARG_DST, dst},
                                             {DNNL_ARG_SCRATCHPAD, scratch}};
  if (mode == Mode::bias)
    args.emplace(DNNL_ARG_BIAS,
                 dnnl::memory(bias_desc(N), onednn_engine(), const_cast<float*>(bias)));
  prim->matmul.execute(stream, args);
  stream.wait();
  if (int8)
    dequantize_int8_rows(buf.c_s32.data(), M, N, buf.a_scales.data(), buf.a_zero_points.data(),
                         packed->scales.data(), packed->sums.data(), bias, beta, C, ldc);
  else if (!dense_c)
    store_rows(static_cast<const float*>(c), M, N, beta, C, ldc);
  st.products.fetch_add(1, std::memory_order_relaxed);
  return true;
}

}  // namespace heed::kernels
