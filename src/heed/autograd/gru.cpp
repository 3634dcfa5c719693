#include "heed/autograd/gru.h"

#include <vector>

#include "heed/autograd/matmul.h"
#include "heed/autograd/rnn_common.h"
#include "heed/kernels/gemm.h"
#include "heed/kernels/gru_cell.h"
#include "heed/kernels/reduce.h"

namespace heed {

using rnn_detail::check_dtype;
using rnn_detail::row_stride;

Var gru_step(const Var& x_proj, const Var& h, const Var& w_hh, const Var& b_hh,
             std::span<const std::uint8_t> mask, kernels::MatmulPrecision precision) {
  const Tensor& hv = h.value();
  const Tensor& xv = x_proj.value();
  const Tensor& wv = w_hh.value();
  HEED_CHECK(hv.ndim() == 2, "gru_step: state must be (B, H), got ", hv.shape().str());
  const std::int64_t B = hv.dim(0), H = hv.dim(1);
  check_shape(wv, Shape{3 * H, H}, "gru_step w_hh");
  HEED_CHECK(wv.is_contiguous(), "gru_step: w_hh must be contiguous");
  check_shape(xv, Shape{B, 3 * H}, "gru_step x_proj");
  if (b_hh.defined()) {
    check_shape(b_hh.value(), Shape{3 * H}, "gru_step b_hh");
    HEED_CHECK(b_hh.value().is_contiguous(), "gru_step: b_hh must be contiguous");
  }
  HEED_CHECK(mask.empty() || static_cast<std::int64_t>(mask.size()) == B, "gru_step: mask has ",
             mask.size(), " entries for a batch of ", B);
  const DType dt = hv.dtype();
  check_dtype(x_proj, dt, "gru_step", "x_proj");
  check_dtype(w_hh, dt, "gru_step", "w_hh");
  check_dtype(b_hh, dt, "gru_step", "b_hh");
  const std::int64_t ld_x = row_stride(xv, "gru_step x_proj");
  const std::int64_t ld_h = row_stride(hv, "gru_step h");

  Tensor out = Tensor::empty({B, H}, dt);
  Tensor save = Tensor::empty({B, kernels::gru_save_width(H)}, dt);
  dispatch(dt, [&]<typename T>() {
    kernels::gru_step_forward<T>(
        {precision, w_hh.packed()}, B, H, xv.data<T>(), ld_x, hv.data<T>(), ld_h, wv.data<T>(),
        b_hh.defined() ? b_hh.value().data<T>() : nullptr, mask.empty() ? nullptr : mask.data(),
        out.data<T>(), H, save.data<T>());
  });
  std::vector<std::uint8_t> m(mask.begin(), mask.end());
  return record_op(out, {&x_proj, &h, &w_hh, &b_hh},
                   [x_proj, h, w_hh, b_hh, save, m = std::move(m), B, H, ld_h, precision](Var& o) {
                     dispatch(o.dtype(), [&]<typename T>() {
                       const std::int64_t G = 3 * H;
                       Tensor dh = o.grad().clone();
                       Tensor dgi = Tensor::empty({B, G}, o.dtype());
                       Tensor dgh = Tensor::empty({B, G}, o.dtype());
                       const T* hp = h.value().data<T>();
                       kernels::gru_step_backward<T>(
                           {precision}, B, H, hp, ld_h, w_hh.value().data<T>(),
                           m.empty() ? nullptr : m.data(), save.data<T>(), dh.data<T>(), H,
                           dgi.data<T>(), G, dgh.data<T>());
                       if (x_proj.requires_grad())
                         rnn_detail::add_into<T>(x_proj.grad_buffer(), dgi.data<T>());
                       if (h.requires_grad())
                         rnn_detail::add_into<T>(h.grad_buffer(), dh.data<T>());
                       if (w_hh.requires_grad())
                         kernels::gemm<T>({precision}, true, false, G, H, B, T(1), dgh.data<T>(), G,
                                          hp, ld_h, T(1), w_hh.grad_buffer().data<T>(), H);
                       if (b_hh.requires_grad())
                         kernels::sum_rows<T>(dgh.data<T>(), b_hh.grad_buffer().data<T>(), B, G);
                     });
                   });
}

Var gru_cell(const Var& x, const Var& h, const Var& w_ih, const Var& w_hh, const Var& b_ih,
             const Var& b_hh, std::span<const std::uint8_t> mask,
             kernels::MatmulPrecision precision) {
  return gru_step(linear(x, w_ih, b_ih, precision), h, w_hh, b_hh, mask, precision);
}

}  // namespace heed
