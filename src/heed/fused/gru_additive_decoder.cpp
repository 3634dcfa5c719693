#include "heed/fused/gru_additive_decoder.h"

#include <algorithm>
#include <vector>

#include "heed/autograd/rnn_common.h"
#include "heed/kernels/attention.h"
#include "heed/kernels/gemm.h"
#include "heed/kernels/gru_cell.h"
#include "heed/kernels/reduce.h"
#include "heed/kernels/row_blocks.h"

namespace heed {
namespace {

// Sizes, and what forward keeps for backward. Per-step buffers are time-major, so step t's
// rows are one contiguous (B, .) block and all steps together one (n·B, .) matrix.
struct Saved {
  std::int64_t B = 0, n = 0, Hd = 0, G = 0, m = 0, dk = 0, A = 0;
  std::int64_t PW = 0;   // G + A: one row of [W_hh s | W_q s]
  std::int64_t ldw = 0;  // W_ih's row stride
  std::vector<std::int64_t> lengths;
  Tensor Wcat;  // (PW, Hd): [W_hh; W_q]
  Tensor S;     // (n + 1, B, Hd): s_0 .. s_n
  Tensor P;     // (n, B, PW): [W_hh s_{t-1} | W_q s_{t-1}]; the gate pass reads the first G
  Tensor C;     // (n, B, dk): contexts
  Tensor Al;    // (n, B, m): attention weights
  Tensor Sv;    // (n, B, 4Hd): the GRU gate pass's save
};

// Step t's attention for batch rows [r0, r1) (the kernels index rows from the pointers).
template <typename T>
kernels::AttentionStep<T> step_of(const Saved& s, const Var& H, const Var& K, const Var& v,
                                  std::int64_t t, std::int64_t r0, std::int64_t r1) {
  kernels::AttentionStep<T> st;
  st.kind = kernels::ScoreKind::tanh;
  st.batch = r1 - r0;
  st.m = s.m;
  st.key_dim = s.A;
  st.value_dim = s.dk;
  st.lengths = s.lengths.data() + r0;
  st.K = K.value().data<T>() + r0 * s.m * s.A;
  st.H = H.value().data<T>() + r0 * s.m * s.dk;
  st.wq = s.P.data<T>() + (t * s.B + r0) * s.PW + s.G;
  st.ld_wq = s.PW;
  st.v = v.value().data<T>();
  return st;
}

template <typename T>
void forward(Saved& s, const Var& X, const Var& s0, const Var& H, const Var& K,
             const GruAdditiveWeights& w, Tensor& Y, Tensor* alphas) {
  const std::int64_t B = s.B, n = s.n, Hd = s.Hd, G = s.G, PW = s.PW, dk = s.dk, m = s.m;
  T* Wcat = s.Wcat.data<T>();
  std::copy_n(w.w_hh.value().data<T>(), G * Hd, Wcat);
  std::copy_n(w.W_q.value().data<T>(), s.A * Hd, Wcat + G * Hd);
  T* S = s.S.data<T>();
  std::copy_n(s0.value().data<T>(), B * Hd, S);
  const T* x = X.value().data<T>();
  const T* w_ctx = w.w_ih.value().data<T>() + w.ctx_col;
  const T* b_hh = w.b_hh.defined() ? w.b_hh.value().data<T>() : nullptr;
  Tensor gi_buf = Tensor::empty({B, G}, s0.dtype());
  T* gi = gi_buf.data<T>();
  T* P = s.P.data<T>();
  T* C = s.C.data<T>();
  T* Al = s.Al.data<T>();
  T* Sv = s.Sv.data<T>();
  const std::int64_t SW = kernels::gru_save_width(Hd);
  // Rows are independent through the recurrence: each thread runs every step for its rows.
  kernels::for_row_blocks(B, [&](int, std::int64_t r0, std::int64_t r1) {
    const std::int64_t nr = r1 - r0;
    for (std::int64_t t = 0; t < n; ++t) {
      const T* s_prev = S + (t * B + r0) * Hd;
      T* Pt = P + (t * B + r0) * PW;
      T* c = C + (t * B + r0) * dk;
      kernels::gemm<T>({w.precision}, false, true, nr, PW, Hd, T(1), s_prev, Hd, Wcat, Hd, T(0), Pt,
                       PW);
      kernels::attention_forward<T>(step_of<T>(s, H, K, w.v, t, r0, r1), c,
                                    Al + (t * B + r0) * m);
      for (std::int64_t b = r0; b < r1; ++b) std::copy_n(x + (b * n + t) * G, G, gi + b * G);
      kernels::gemm<T>({w.precision, w.w_ih.packed()}, false, true, nr, G, dk, T(1), c, dk, w_ctx,
                       s.ldw, T(1), gi + r0 * G, G);
      kernels::gru_gates_forward<T>(nr, Hd, gi + r0 * G, G, Pt, PW, s_prev, Hd, b_hh, nullptr,
                                    S + ((t + 1) * B + r0) * Hd, Hd, Sv + (t * B + r0) * SW);
    }
  });
  // Batch-major output rows (b, t) = [s_t | c_t].
  T* y = Y.data<T>();
  const std::int64_t YW = Hd + dk;
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t t = 0; t < n; ++t) {
      T* row = y + (b * n + t) * YW;
      std::copy_n(S + ((t + 1) * B + b) * Hd, Hd, row);
      std::copy_n(C + (t * B + b) * dk, dk, row + Hd);
    }
  if (alphas) {
    *alphas = Tensor::empty({B, n, m}, s0.dtype());
    rnn_detail::time_to_batch_major<T>(Al, m, alphas->data<T>(), B, n, m, false);
  }
}

template <typename T>
void backward(const Saved& s, const Var& X, const Var& s0, const Var& H, const Var& K,
              const GruAdditiveWeights& w, const Var& out) {
  const std::int64_t B = s.B, n = s.n, Hd = s.Hd, G = s.G, PW = s.PW, dk = s.dk, m = s.m;
  const std::int64_t A = s.A, YW = Hd + dk, R = n * B, SW = kernels::gru_save_width(Hd);
  const DType dt = s0.dtype();
  const T* dy = out.grad().data<T>();
  const T* S = s.S.data<T>();
  const T* Wcat = s.Wcat.data<T>();
  const T* w_ctx = w.w_ih.value().data<T>() + w.ctx_col;
  const int blocks = kernels::row_block_count(B);
  Tensor dg_buf = Tensor::empty({n, B, PW}, dt);    // [d(W_hh s) | d(W_q s)] per step
  Tensor dgi_buf = Tensor::empty({n, B, G}, dt);    // d gi per step
  Tensor dh_buf = Tensor::zeros({B, Hd}, dt);       // d s_t, carried backwards
  Tensor dc_buf = Tensor::empty({B, dk}, dt);
  Tensor ds_buf = Tensor::empty({B, m}, dt);
  const bool want_dv = w.v.requires_grad();
  Tensor dv_rows = want_dv ? Tensor::empty({B, A}, dt) : Tensor();
  Tensor dv_part = want_dv ? Tensor::zeros({blocks, A}, dt) : Tensor();  // per thread
  T* DG = dg_buf.data<T>();
  T* DGI = dgi_buf.data<T>();
  T* dh = dh_buf.data<T>();
  T* dc = dc_buf.data<T>();
  T* ds = ds_buf.data<T>();
  T* dK = K.requires_grad() ? K.grad_buffer().data<T>() : nullptr;
  T* dH = H.requires_grad() ? H.grad_buffer().data<T>() : nullptr;
  const T* Al = s.Al.data<T>();
  const T* Sv = s.Sv.data<T>();
  kernels::for_row_blocks(B, [&](int block, std::int64_t r0, std::int64_t r1) {
    const std::int64_t nr = r1 - r0;
    kernels::AttentionStepGrad<T> g;
    g.dcontext = dc + r0 * dk;
    g.dscore = ds + r0 * m;
    g.ld_dwq = PW;
    if (dK) g.dK = dK + r0 * m * A;
    if (dH) g.dH = dH + r0 * m * dk;
    if (want_dv) g.dv_rows = dv_rows.data<T>() + r0 * A;
    for (std::int64_t t = n - 1; t >= 0; --t) {
      T* dg = DG + (t * B + r0) * PW;
      T* dgi = DGI + (t * B + r0) * G;
      for (std::int64_t b = r0; b < r1; ++b) {
        const T* dyr = dy + (b * n + t) * YW;
        T* dhr = dh + b * Hd;
        for (std::int64_t j = 0; j < Hd; ++j) dhr[j] += dyr[j];
        std::copy_n(dyr + Hd, dk, dc + b * dk);
      }
      kernels::gru_gates_backward<T>(nr, Hd, S + (t * B + r0) * Hd, Hd, nullptr,
                                     Sv + (t * B + r0) * SW, dh + r0 * Hd, Hd, dgi, G, dg, PW);
      // d c_t: from the output and through the GRU's input projection.
      kernels::gemm<T>({w.precision}, false, false, nr, dk, G, T(1), dgi, G, w_ctx, s.ldw, T(1),
                       dc + r0 * dk, dk);
      g.dwq = dg + G;
      kernels::attention_backward<T>(step_of<T>(s, H, K, w.v, t, r0, r1), Al + (t * B + r0) * m,
                                     g);
      if (want_dv) kernels::sum_rows<T>(g.dv_rows, dv_part.data<T>() + block * A, nr, A);
      // d s_{t-1} += [d(W_hh s) | d(W_q s)] [W_hh; W_q]
      kernels::gemm<T>({w.precision}, false, false, nr, Hd, PW, T(1), dg, PW, Wcat, Hd, T(1),
                       dh + r0 * Hd, Hd);
    }
  });
  if (want_dv) kernels::sum_rows<T>(dv_part.data<T>(), w.v.grad_buffer().data<T>(), blocks, A);
  if (s0.requires_grad()) rnn_detail::add_into<T>(s0.grad_buffer(), dh);
  // Every step's weight gradients at once: n·B rows each.
  if (w.w_hh.requires_grad())
    kernels::gemm<T>({w.precision}, true, false, G, Hd, R, T(1), DG, PW, S, Hd, T(1),
                     w.w_hh.grad_buffer().data<T>(), Hd);
  if (w.W_q.requires_grad())
    kernels::gemm<T>({w.precision}, true, false, A, Hd, R, T(1), DG + G, PW, S, Hd, T(1),
                     w.W_q.grad_buffer().data<T>(), Hd);
  if (w.b_hh.defined() && w.b_hh.requires_grad()) {
    T* db = w.b_hh.grad_buffer().data<T>();
    for (std::int64_t r = 0; r < R; ++r) {
      const T* row = DG + r * PW;
      for (std::int64_t j = 0; j < G; ++j) db[j] += row[j];
    }
  }
  if (w.w_ih.requires_grad())
    kernels::gemm<T>({w.precision}, true, false, G, dk, R, T(1), DGI, G, s.C.data<T>(), dk, T(1),
                     w.w_ih.grad_buffer().data<T>() + w.ctx_col, s.ldw);
  if (X.requires_grad())
    rnn_detail::time_to_batch_major<T>(DGI, G, X.grad_buffer().data<T>(), B, n, G, true);
}

void check_contiguous(const Var& v, DType dt, const char* what) {
  HEED_CHECK(v.value().is_contiguous(), "gru_additive_decoder: ", what, " must be contiguous");
  rnn_detail::check_dtype(v, dt, "gru_additive_decoder", what);
}

}  // namespace

Var gru_additive_decoder(const Var& X, const Var& s0, const Var& H, const Var& K,
                     std::span<const std::int64_t> lengths, const GruAdditiveWeights& w,
                     Tensor* alphas) {
  HEED_CHECK(X.defined() && s0.defined() && H.defined() && K.defined() && w.w_ih.defined() &&
                 w.w_hh.defined() && w.W_q.defined() && w.v.defined(),
             "gru_additive_decoder: an input or weight is undefined");
  const DType dt = s0.dtype();
  HEED_CHECK(s0.value().ndim() == 2, "gru_additive_decoder: s0 must be (B, H), got ",
             s0.shape().str());
  Saved s;
  s.B = s0.dim(0);
  s.Hd = s0.dim(1);
  s.G = 3 * s.Hd;
  HEED_CHECK(X.value().ndim() == 3 && X.dim(0) == s.B && X.dim(2) == s.G,
             "gru_additive_decoder: X must be (B, n, 3H) = (", s.B, ", n, ", s.G, "), got ",
             X.shape().str());
  s.n = X.dim(1);
  HEED_CHECK(H.value().ndim() == 3 && H.dim(0) == s.B, "gru_additive_decoder: annotations must be (",
             s.B, ", m, dk), got ", H.shape().str());
  s.m = H.dim(1);
  s.dk = H.dim(2);
  HEED_CHECK(K.value().ndim() == 3 && K.dim(0) == s.B && K.dim(1) == s.m,
             "gru_additive_decoder: keys must be (", s.B, ", ", s.m, ", A), got ", K.shape().str());
  s.A = K.dim(2);
  s.PW = s.G + s.A;
  check_shape(w.w_hh.value(), Shape{s.G, s.Hd}, "gru_additive_decoder w_hh");
  check_shape(w.W_q.value(), Shape{s.A, s.Hd}, "gru_additive_decoder W_q");
  check_shape(w.v.value(), Shape{1, s.A}, "gru_additive_decoder v");
  if (w.b_hh.defined()) check_shape(w.b_hh.value(), Shape{s.G}, "gru_additive_decoder b_hh");
  const Tensor& wih = w.w_ih.value();
  HEED_CHECK(wih.ndim() == 2 && wih.dim(0) == s.G && w.ctx_col >= 0 &&
                 w.ctx_col + s.dk <= wih.dim(1),
             "gru_additive_decoder: w_ih must be (3H, in) with the context in columns [", w.ctx_col,
             ", ", w.ctx_col + s.dk, "), got ", wih.shape().str());
  s.ldw = wih.dim(1);
  for (const auto& [v, what] : {std::pair{&X, "X"}, {&s0, "s0"}, {&H, "annotations"},
                                {&K, "keys"}, {&w.w_ih, "w_ih"}, {&w.w_hh, "w_hh"},
                                {&w.W_q, "W_q"}, {&w.v, "v"}})
    check_contiguous(*v, dt, what);
  if (w.b_hh.defined()) check_contiguous(w.b_hh, dt, "b_hh");
  HEED_CHECK(static_cast<std::int64_t>(lengths.size()) == s.B, "gru_additive_decoder: ",
             lengths.size(), " source lengths for a batch of ", s.B);
  for (std::int64_t len : lengths)
    HEED_CHECK(len >= 1 && len <= s.m, "gru_additive_decoder: source length ", len,
               " outside [1, ", s.m, "]");
  s.lengths.assign(lengths.begin(), lengths.end());

  s.Wcat = Tensor::empty({s.PW, s.Hd}, dt);
  s.S = Tensor::empty({s.n + 1, s.B, s.Hd}, dt);
  s.P = Tensor::empty({s.n, s.B, s.PW}, dt);
  s.C = Tensor::empty({s.n, s.B, s.dk}, dt);
  s.Al = Tensor::empty({s.n, s.B, s.m}, dt);
  s.Sv = Tensor::empty({s.n, s.B, kernels::gru_save_width(s.Hd)}, dt);
  Tensor Y = Tensor::empty({s.B, s.n, s.Hd + s.dk}, dt);
  dispatch(dt, [&]<typename T>() { forward<T>(s, X, s0, H, K, w, Y, alphas); });
  return record_op(Y, {&X, &s0, &H, &K, &w.w_ih, &w.w_hh, &w.b_hh, &w.W_q, &w.v},
                   [s = std::move(s), X, s0, H, K, w](Var& o) {
                     dispatch(o.dtype(), [&]<typename T>() { backward<T>(s, X, s0, H, K, w, o); });
                   });
}

}  // namespace heed
