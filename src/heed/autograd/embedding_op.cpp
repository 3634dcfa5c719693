#include "heed/autograd/embedding_op.h"

#include "heed/autograd/tape.h"
#include "heed/kernels/embedding.h"

namespace heed {

Var embedding(const Var& weight, const std::vector<std::int32_t>& ids, const Shape& out_leading,
              std::int64_t padding_idx) {
  const Tensor& wv = weight.value();
  HEED_CHECK(wv.ndim() == 2, "embedding: weight must be 2-D, got ", wv.shape().str());
  HEED_CHECK(wv.is_contiguous(), "embedding: weight must be contiguous");
  const std::int64_t num = wv.dim(0), dim = wv.dim(1);
  const auto n = static_cast<std::int64_t>(ids.size());
  HEED_CHECK(out_leading.numel() == n, "embedding: ", n, " ids do not fill shape ",
             out_leading.str());
  HEED_CHECK(out_leading.ndim() < kMaxDims, "embedding: output would have more than ", kMaxDims,
             " dimensions");
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int32_t id = ids[static_cast<std::size_t>(i)];
    HEED_CHECK(id >= 0 && id < num, "embedding: id ", id, " at position ", i,
               " is outside the table of ", num, " rows");
  }
  Shape ys = out_leading;
  ys.push_back(dim);
  Tensor y = Tensor::empty(ys, wv.dtype());
  dispatch(wv.dtype(), [&]<typename T>() {
    kernels::embedding_lookup<T>(wv.data<T>(), ids.data(), n, dim, y.data<T>());
  });
  if (!any_requires_grad({&weight})) return Var(y);
  return record_op(y, {&weight}, [weight, ids, n, dim, padding_idx](Var& o) {
    dispatch(o.dtype(), [&]<typename T>() {
      kernels::scatter_add_rows<T>(o.grad().data<T>(), ids.data(), n, dim, padding_idx,
                                   weight.grad_buffer().data<T>());
    });
  });
}

}  // namespace heed
