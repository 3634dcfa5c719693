#include "heed/autograd/memory_hop_op.h"

#include "heed/autograd/tape.h"
#include "heed/base/error.h"
#include "heed/kernels/memory_hop.h"

namespace heed {

MemoryHop memory_hop(const Var& u, const Var& m, const Var& c,
                     const std::shared_ptr<const std::vector<std::int32_t>>& counts,
                     std::int64_t slots, bool linear, std::int64_t pad_to) {
  const Tensor& uv = u.value();
  HEED_CHECK(uv.ndim() == 2 && uv.is_contiguous(), "memory_hop: u must be (B, dim), got ",
             uv.shape().str());
  const std::int64_t B = uv.dim(0), d = uv.dim(1);
  HEED_CHECK(slots >= 0 && counts->size() == static_cast<std::size_t>(B),
             "memory_hop: ", counts->size(), " counts for a batch of ", B);
  for (const Var* v : {&m, &c})
    HEED_CHECK(v->value().ndim() == 2 && v->dim(0) == B * slots && v->dim(1) == d &&
                   v->value().is_contiguous() && v->dtype() == uv.dtype(),
               "memory_hop: m and c must be (", B * slots, ", ", d, ") like u, got ",
               v->value().shape().str());
  for (std::int32_t n : *counts)
    HEED_CHECK(n >= 0 && n <= slots, "memory_hop: a story of ", n, " statements in ", slots,
               " slots");
  HEED_CHECK(pad_to == 0 || pad_to >= slots, "memory_hop: a memory padded to ", pad_to,
             " slots holds fewer than the batch's ", slots, " (expected 0, no padding, or at "
             "least ", slots, ")");
  const kernels::HopShape shape{B, slots, d, counts->data(), linear, pad_to};
  Tensor p = Tensor::empty({B, slots}, uv.dtype());
  Tensor o = Tensor::empty({B, d}, uv.dtype());
  dispatch(uv.dtype(), [&]<typename T>() {
    kernels::memory_hop<T>(uv.data<T>(), m.value().data<T>(), c.value().data<T>(), shape,
                           p.data<T>(), o.data<T>());
  });
  if (!any_requires_grad({&u, &m, &c})) return {Var(o), p};
  Var out = record_op(o, {&u, &m, &c}, [u, m, c, p, counts, slots, linear, pad_to](Var& y) {
    const kernels::HopShape s{u.dim(0), slots, u.dim(1), counts->data(), linear, pad_to};
    dispatch(y.dtype(), [&]<typename T>() {
      kernels::memory_hop_backward<T>(
          u.value().data<T>(), m.value().data<T>(), c.value().data<T>(), p.data<T>(),
          y.grad().data<T>(), s, u.requires_grad() ? u.grad_buffer().data<T>() : nullptr,
          m.requires_grad() ? m.grad_buffer().data<T>() : nullptr,
          c.requires_grad() ? c.grad_buffer().data<T>() : nullptr);
    });
  });
  return {out, p};
}

}  // namespace heed
