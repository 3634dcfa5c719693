#include "heed/models/output_shortlist.h"

#include <algorithm>
#include <limits>

#include "heed/autograd/index.h"
#include "heed/autograd/matmul.h"
#include "heed/base/error.h"
#include "heed/kernels/gemm.h"
#include "heed/models/output_layer.h"
#include "heed/models/token_batch.h"
#include "heed/tensor/arena.h"

namespace heed {
namespace {

template <typename T>
void scatter(const Tensor& rows, const std::vector<std::int32_t>& ids, Tensor& out) {
  const std::int64_t B = rows.dim(0), K = rows.dim(1), V = out.dim(1);
  const T* from = rows.data<T>();
  T* to = out.data<T>();
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t k = 0; k < K; ++k)
      to[b * V + ids[static_cast<std::size_t>(k)]] = from[b * K + k];
}

}  // namespace

void check_shortlist_ids(std::span<const std::int32_t> ids, std::int64_t vocab, const char* what) {
  for (std::size_t i = 0; i < ids.size(); ++i) {
    HEED_CHECK(ids[i] >= 0 && ids[i] < vocab, what, ": shortlist id ", ids[i], " at position ", i,
               " is outside the target vocabulary [0, ", vocab, ")");
    HEED_CHECK(i == 0 || ids[i - 1] < ids[i], what,
               ": shortlist ids must be sorted and unique, "
               "got ",
               ids[i - 1], " before ", ids[i], " at position ", i);
  }
  for (const std::int32_t special : {kPad, kBos, kEos, kUnk})
    HEED_CHECK(static_cast<std::int64_t>(special) < vocab &&
                   std::binary_search(ids.begin(), ids.end(), special),
               what, ": a shortlist must hold the special ids 0-3, ", special, " is missing");
}

OutputShortlist gather_shortlist(const OutputLayer& layer, std::span<const std::int32_t> ids,
                                 const char* what) {
  const std::int64_t V = layer.weight.dim(0);
  check_shortlist_ids(ids, V, what);
  const std::vector<std::int64_t> rows(ids.begin(), ids.end());
  OutputShortlist s;
  s.ids.assign(ids.begin(), ids.end());
  s.vocab = V;
  ArenaScope heap(nullptr);  // lives for the whole batch
  s.weight = Var(gather_rows(layer.weight, rows).value().contiguous());
  const auto K = static_cast<std::int64_t>(rows.size());
  s.bias = Var(gather_rows(reshape(layer.bias, {V, 1}), rows).value().reshape({K}));
  if (const kernels::PackedWeight* full = layer.weight.packed();
      full && s.weight.dtype() == DType::f32)
    s.packed = std::make_shared<const kernels::PackedWeight>(
        s.weight.value().data<float>(), static_cast<std::size_t>(s.weight.value().numel()),
        full->precision());
  return s;
}

Tensor shortlist_rows(const OutputShortlist& s, const Var& x, kernels::MatmulPrecision precision) {
  HEED_CHECK(x.value().ndim() == 2, "shortlist logits: features must be (B, F), got ",
             x.shape().str());
  if (!s.packed) return linear(x, s.weight, s.bias, precision).value().contiguous();
  const Tensor xv = x.value().contiguous();
  const std::int64_t B = xv.dim(0), F = xv.dim(1), K = s.weight.dim(0);
  HEED_CHECK(F == s.weight.dim(1) && xv.dtype() == DType::f32, "shortlist logits: features ",
             xv.shape().str(), " do not fit the packed rows (", K, ", ", s.weight.dim(1), ")");
  Tensor out = Tensor::empty({B, K}, DType::f32);
  kernels::affine_rows<float>({precision, s.packed.get()}, B, K, F, xv.data<float>(),
                              s.weight.value().data<float>(), s.bias.value().data<float>(),
                              out.data<float>());
  return out;
}

Tensor scatter_shortlist(const OutputShortlist& s, const Tensor& rows) {
  Tensor out =
      Tensor::full({rows.dim(0), s.vocab}, -std::numeric_limits<double>::infinity(), rows.dtype());
  if (rows.dtype() == DType::f32)
    scatter<float>(rows, s.ids, out);
  else
    scatter<double>(rows, s.ids, out);
  return out;
}

Var shortlist_logits(const OutputShortlist& s, const Var& x, kernels::MatmulPrecision precision) {
  return Var(scatter_shortlist(s, shortlist_rows(s, x, precision)));
}

}  // namespace heed
