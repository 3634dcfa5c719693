#include "heed/kernels/frozen_weights.h"

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
#include "heed/kernels/onednn.h"

namespace heed::kernels {
namespace {

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;
using dims = dnnl::memory::dims;

dt weight_type(MatmulPrecision p) { return p == MatmulPrecision::bf16 ? dt::bf16 : dt::f32; }

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
};

// B (N x K, row stride ldb) as packed weights.
using PackKey = std::tuple<const float*, std::int64_t, std::int64_t, std::int64_t>;

struct Registry {
  MatmulPrecision precision = MatmulPrecision::f32;
  std::atomic<std::size_t> products{0};
  std::vector<FrozenWeights::Range> ranges;
  std::mutex mutex;  // guards packs (and the primitives inside)
  std::map<PackKey, Packed> packs;
};

std::mutex g_mutex;  // guards g_registry and g_open
std::shared_ptr<Registry> g_registry;
int g_open = 0;
std::atomic<int> g_open_fast{0};  // g_open, read without the lock to skip the common case

std::shared_ptr<Registry> open_registry() {
  if (g_open_fast.load(std::memory_order_acquire) == 0) return nullptr;
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_registry;
}

bool covers(const Registry& r, const float* B, std::int64_t N, std::int64_t K, std::int64_t ldb) {
  const float* end = B + (N - 1) * ldb + K;
  return std::any_of(r.ranges.begin(), r.ranges.end(), [&](const FrozenWeights::Range& g) {
    return B >= g.data && end <= g.data + g.size;
  });
}

// The bias of an N-column product: one row, broadcast by oneDNN over C's rows.
dnnl::memory::desc bias_desc(std::int64_t N) { return dnnl::memory::desc({1, N}, dt::f32, tag::ab); }

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
      mode == Mode::bias
          ? dnnl::matmul::desc(src, weights, bias_desc(dst.dims()[1]), dst)
          : dnnl::matmul::desc(src, weights, dst);
  return dnnl::matmul::primitive_desc(desc, attr, onednn_engine(), /*allow_empty=*/true);
}

dnnl::memory::desc src_desc(MatmulPrecision p, std::int64_t M, std::int64_t K) {
  return dnnl::memory::desc({M, K}, weight_type(p), tag::ab);
}

// Packs B for the registry's precision, taking the layout the kernel picks for M rows.
void pack(Packed& p, MatmulPrecision precision, std::int64_t M, std::int64_t N, std::int64_t K,
          const float* B, std::int64_t ldb) {
  const dt wt = weight_type(precision);
  auto pd = make_pd(src_desc(precision, M, K),
                    dnnl::memory::desc({K, N}, wt, tag::any),
                    dnnl::memory::desc({M, N}, dt::f32, tag::ab), Mode::store);
  if (!pd || !fast_impl(pd)) return;
  // B^T as oneDNN sees it: K x N with strides (1, ldb).
  dnnl::memory user(dnnl::memory::desc({K, N}, dt::f32, dims{1, ldb}), onednn_engine(),
                    const_cast<float*>(B));
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
  r.dst = dnnl::memory::desc({M, N}, dt::f32, tag::ab);
  auto pd = make_pd(r.src, p.weights.get_desc(), r.dst, mode);
  if (!pd || !fast_impl(pd)) return r;
  r.matmul = dnnl::matmul(pd);
  r.scratch_bytes = pd.scratchpad_desc().get_size();
  r.ok = true;
  return r;
}

struct ThreadBuffers {
  std::vector<std::uint8_t> scratch;
  std::vector<std::uint16_t> a_bf16;  // A rounded
  std::vector<float> a_dense, c_dense;  // strided A and C, copied
};

}  // namespace

MatmulPrecision parse_matmul_precision(std::string_view name) {
  if (name == "fp32") return MatmulPrecision::f32;
  if (name == "bf16") return MatmulPrecision::bf16;
  throw Error(detail::concat("unknown precision '", name, "' (expected fp32 or bf16)"));
}

std::string_view matmul_precision_name(MatmulPrecision precision) {
  return precision == MatmulPrecision::bf16 ? "bf16" : "fp32";
}

FrozenWeights::FrozenWeights(std::span<const Range> ranges, MatmulPrecision precision) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_registry) {
    g_registry = std::make_shared<Registry>();
    g_registry->precision = precision;
  }
  HEED_CHECK(g_registry->precision == precision, "frozen weights: a ",
             matmul_precision_name(precision), " scope opened inside a ",
             matmul_precision_name(g_registry->precision), " one");
  {
    std::lock_guard<std::mutex> packs_lock(g_registry->mutex);
    for (const Range& r : ranges) {
      if (r.size == 0) continue;
      const bool known = std::any_of(g_registry->ranges.begin(), g_registry->ranges.end(),
                                     [&](const Range& g) { return g.data == r.data && g.size == r.size; });
      if (!known) g_registry->ranges.push_back(r);
    }
  }
  ++g_open;
  g_open_fast.store(g_open, std::memory_order_release);
}

FrozenWeights::~FrozenWeights() {
  std::shared_ptr<Registry> last;  // freed outside the lock
  std::lock_guard<std::mutex> lock(g_mutex);
  if (--g_open == 0) last = std::move(g_registry);
  g_open_fast.store(g_open, std::memory_order_release);
}

std::size_t frozen_weights_products() {
  auto reg = open_registry();
  return reg ? reg->products.load(std::memory_order_relaxed) : 0;
}

std::size_t frozen_weights_packed() {
  auto reg = open_registry();
  if (!reg) return 0;
  std::lock_guard<std::mutex> lock(reg->mutex);
  return static_cast<std::size_t>(
      std::count_if(reg->packs.begin(), reg->packs.end(), [](const auto& p) { return p.second.ok; }));
}

namespace {

// gemm_frozen and gemm_frozen_bias: bias is null or beta is 0.
bool run_frozen(std::int64_t M, std::int64_t N, std::int64_t K, const float* A, std::int64_t lda,
                const float* B, std::int64_t ldb, float beta, const float* bias, float* C,
                std::int64_t ldc) {
  if (M <= 0 || N <= 0 || K <= 0 || (beta != 0.0f && beta != 1.0f)) return false;
  std::shared_ptr<Registry> reg = open_registry();
  if (!reg || !covers(*reg, B, N, K, ldb)) return false;
  const MatmulPrecision precision = reg->precision;

  // A strided C is computed into a dense buffer and then stored or added.
  const bool dense_c = ldc == N;
  const Mode mode = bias ? Mode::bias : beta != 0.0f && dense_c ? Mode::accumulate : Mode::store;

  const Prim* prim = nullptr;
  const Packed* packed = nullptr;
  try {
    std::lock_guard<std::mutex> lock(reg->mutex);
    auto [it, fresh] = reg->packs.try_emplace(PackKey{B, ldb, N, K});
    Packed& p = it->second;
    if (fresh) pack(p, precision, M, N, K, B, ldb);
    if (!p.ok) return false;
    const PrimKey key{M, mode};
    auto pit = p.prims.find(key);
    if (pit == p.prims.end())
      pit = p.prims.emplace(key, make_prim(p, precision, M, N, K, mode)).first;
    if (!pit->second.ok) return false;
    prim = &pit->second;  // std::map nodes stay put; entries are never erased while reg lives
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
  } else if (lda != K) {
    buf.a_dense.resize(MK);
    for (std::int64_t i = 0; i < M; ++i)
      std::memcpy(buf.a_dense.data() + i * K, A + i * lda, static_cast<std::size_t>(K) * sizeof(float));
    a = buf.a_dense.data();
  }
  float* c = C;
  if (!dense_c) {
    buf.c_dense.resize(static_cast<std::size_t>(M * N));
    c = buf.c_dense.data();
  }
  buf.scratch.resize(std::max<std::size_t>({buf.scratch.size(), prim->scratch_bytes, 64}));
  thread_local dnnl::stream stream(onednn_engine());
  dnnl::memory src(prim->src, onednn_engine(), a);
  dnnl::memory dst(prim->dst, onednn_engine(), c);
  dnnl::memory scratch(
      dnnl::memory::desc({static_cast<std::int64_t>(buf.scratch.size())}, dt::u8, tag::a), onednn_engine(),
      buf.scratch.data());
  std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, src},
                                             {DNNL_ARG_WEIGHTS, packed->weights},
                                             {DNNL_ARG_DST, dst},
                                             {DNNL_ARG_SCRATCHPAD, scratch}};
  if (bias)
    args.emplace(DNNL_ARG_BIAS,
                 dnnl::memory(bias_desc(N), onednn_engine(), const_cast<float*>(bias)));
  prim->matmul.execute(stream, args);
  stream.wait();
  if (!dense_c) store_rows(c, M, N, beta, C, ldc);
  reg->products.fetch_add(1, std::memory_order_relaxed);
  return true;
}

}  // namespace

bool gemm_frozen(std::int64_t M, std::int64_t N, std::int64_t K, const float* A, std::int64_t lda,
                 const float* B, std::int64_t ldb, float beta, float* C, std::int64_t ldc) {
  return run_frozen(M, N, K, A, lda, B, ldb, beta, nullptr, C, ldc);
}

bool gemm_frozen_bias(std::int64_t M, std::int64_t N, std::int64_t K, const float* A,
                      std::int64_t lda, const float* B, std::int64_t ldb, const float* bias,
                      float* C, std::int64_t ldc) {
  return run_frozen(M, N, K, A, lda, B, ldb, 0.0f, bias, C, ldc);
}

}  // namespace heed::kernels
