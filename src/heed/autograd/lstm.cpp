#include "heed/autograd/lstm.h"

#include <vector>

#include "heed/autograd/matmul.h"
#include "heed/autograd/rnn_common.h"
#include "heed/kernels/gemm.h"
#include "heed/kernels/lstm_cell.h"
#include "heed/kernels/reduce.h"

namespace heed {

using rnn_detail::check_dtype;
using rnn_detail::row_stride;

LstmState lstm_step(const Var& x_proj, const LstmState& state, const Var& w_hh, const Var& b_hh,
                    std::span<const std::uint8_t> mask, kernels::MatmulPrecision precision) {
  const Var& h = state.h;
  const Var& c = state.c;
  const Tensor& hv = h.value();
  const Tensor& cv = c.value();
  const Tensor& xv = x_proj.value();
  const Tensor& wv = w_hh.value();
  HEED_CHECK(hv.ndim() == 2, "lstm_step: state must be (B, H), got ", hv.shape().str());
  const std::int64_t B = hv.dim(0), H = hv.dim(1), G = 4 * H;
  check_shape(cv, Shape{B, H}, "lstm_step cell state");
  check_shape(wv, Shape{G, H}, "lstm_step w_hh");
  HEED_CHECK(wv.is_contiguous(), "lstm_step: w_hh must be contiguous");
  check_shape(xv, Shape{B, G}, "lstm_step x_proj");
  if (b_hh.defined()) {
    check_shape(b_hh.value(), Shape{G}, "lstm_step b_hh");
    HEED_CHECK(b_hh.value().is_contiguous(), "lstm_step: b_hh must be contiguous");
  }
  HEED_CHECK(mask.empty() || static_cast<std::int64_t>(mask.size()) == B, "lstm_step: mask has ",
             mask.size(), " entries for a batch of ", B);
  const DType dt = hv.dtype();
  check_dtype(c, dt, "lstm_step", "cell state");
  check_dtype(x_proj, dt, "lstm_step", "x_proj");
  check_dtype(w_hh, dt, "lstm_step", "w_hh");
  check_dtype(b_hh, dt, "lstm_step", "b_hh");
  const std::int64_t ld_x = row_stride(xv, "lstm_step x_proj");
  const std::int64_t ld_h = row_stride(hv, "lstm_step h");
  const std::int64_t ld_c = row_stride(cv, "lstm_step c");

  Tensor h_out = Tensor::empty({B, H}, dt);
  Tensor c_out = Tensor::empty({B, H}, dt);
  Tensor save = Tensor::empty({B, kernels::lstm_save_width(H)}, dt);
  dispatch(dt, [&]<typename T>() {
    kernels::lstm_step_forward<T>({precision, w_hh.packed()}, B, H, xv.data<T>(), ld_x,
                                  hv.data<T>(), ld_h, cv.data<T>(), ld_c, wv.data<T>(),
                                  b_hh.defined() ? b_hh.value().data<T>() : nullptr,
                                  mask.empty() ? nullptr : mask.data(), h_out.data<T>(), H,
                                  c_out.data<T>(), H, save.data<T>());
  });
  LstmState out{Var(h_out), Var(c_out)};
  std::vector<std::uint8_t> m(mask.begin(), mask.end());
  record_multi(
      {&x_proj, &h, &c, &w_hh, &b_hh}, {&out.h, &out.c},
      [x_proj, h, c, w_hh, b_hh, ho = out.h, co = out.c, save, m = std::move(m), B, H, G, ld_h,
       ld_c, precision]() {
        dispatch(ho.dtype(), [&]<typename T>() {
          Tensor dh = ho.has_grad() ? ho.grad().clone() : Tensor::zeros({B, H}, ho.dtype());
          Tensor dc = co.has_grad() ? co.grad().clone() : Tensor::zeros({B, H}, ho.dtype());
          Tensor dg = Tensor::empty({B, G}, ho.dtype());
          kernels::lstm_step_backward<T>({precision}, B, H, c.value().data<T>(), ld_c,
                                         w_hh.value().data<T>(), m.empty() ? nullptr : m.data(),
                                         save.data<T>(), dh.data<T>(), H, dc.data<T>(), H,
                                         dg.data<T>(), G);
          if (x_proj.requires_grad()) rnn_detail::add_into<T>(x_proj.grad_buffer(), dg.data<T>());
          if (h.requires_grad()) rnn_detail::add_into<T>(h.grad_buffer(), dh.data<T>());
          if (c.requires_grad()) rnn_detail::add_into<T>(c.grad_buffer(), dc.data<T>());
          if (w_hh.requires_grad())
            kernels::gemm<T>({precision}, true, false, G, H, B, T(1), dg.data<T>(), G,
                             h.value().data<T>(), ld_h, T(1), w_hh.grad_buffer().data<T>(), H);
          if (b_hh.requires_grad())
            kernels::sum_rows<T>(dg.data<T>(), b_hh.grad_buffer().data<T>(), B, G);
        });
      });
  return out;
}

LstmState lstm_cell(const Var& x, const LstmState& state, const Var& w_ih, const Var& w_hh,
                    const Var& b_ih, const Var& b_hh, std::span<const std::uint8_t> mask,
                    kernels::MatmulPrecision precision) {
  return lstm_step(linear(x, w_ih, b_ih, precision), state, w_hh, b_hh, mask, precision);
}

}  // namespace heed
