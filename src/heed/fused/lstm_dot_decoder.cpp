#include "heed/fused/lstm_dot_decoder.h"

#include <algorithm>
#include <cmath>

#include "heed/autograd/rnn_common.h"
#include "heed/autograd/tape.h"
#include "heed/kernels/attention.h"
#include "heed/kernels/fast_math.h"
#include "heed/kernels/gemm.h"
#include "heed/kernels/lstm_cell.h"
#include "heed/kernels/reduce.h"
#include "heed/kernels/row_blocks.h"

namespace heed {
namespace {

// Sizes, and what forward keeps for backward; per-step buffers are time-major.
struct Saved {
  std::int64_t B = 0, n = 0, Hd = 0, G = 0, L = 0, m = 0, dk = 0, SW = 0;
  std::int64_t ldw0 = 0;  // layer 0's W_ih row stride
  std::int64_t ldc = 0;   // W_c's row stride, dk + Hd
  std::vector<std::int64_t> lengths;
  Tensor hs, cs;  // (L, n + 1, B, Hd): slot 0 the initial state, slot t + 1 step t's
  Tensor Sv;      // (L, n, B, SW): the LSTM kernel's save
  Tensor C;       // (n, B, dk): contexts
  Tensor Al;      // (n, B, m): attention weights
  Tensor HT;      // (n, B, Hd): h~

  template <typename T>
  T* state(const Tensor& t, std::int64_t l, std::int64_t slot) const {
    return t.data<T>() + ((l * (n + 1) + slot) * B) * Hd;
  }
};

template <typename T>
kernels::AttentionStep<T> step_of(const Saved& s, const Var& H_ann, const Var& K,
                                  const LstmDotWeights& w, std::int64_t t, std::int64_t r0,
                                  std::int64_t r1) {
  kernels::AttentionStep<T> st;
  st.kind = kernels::ScoreKind::dot;
  st.batch = r1 - r0;
  st.m = s.m;
  st.key_dim = s.Hd;
  st.value_dim = s.dk;
  st.lengths = s.lengths.data() + r0;
  st.q = s.state<T>(s.hs, s.L - 1, t + 1) + r0 * s.Hd;
  st.K = K.value().data<T>() + r0 * s.m * s.Hd;
  st.H = H_ann.value().data<T>() + r0 * s.m * s.dk;
  st.scale = static_cast<T>(w.scale);
  return st;
}

template <typename T>
const T* data_or_null(const Var& v) {
  return v.defined() ? v.value().data<T>() : nullptr;
}

template <typename T>
void forward(Saved& s, const Var& X, const std::vector<Var>& h0, const std::vector<Var>& c0,
             const Var& H_ann, const Var& K, const LstmDotWeights& w, Tensor& Y,
             Tensor* alphas) {
  const std::int64_t B = s.B, n = s.n, Hd = s.Hd, G = s.G, L = s.L, m = s.m, dk = s.dk;
  const std::int64_t SW = s.SW;
  for (std::int64_t l = 0; l < L; ++l) {
    std::copy_n(h0[static_cast<std::size_t>(l)].value().data<T>(), B * Hd, s.state<T>(s.hs, l, 0));
    std::copy_n(c0[static_cast<std::size_t>(l)].value().data<T>(), B * Hd, s.state<T>(s.cs, l, 0));
  }
  const T* x = X.value().data<T>();
  const T* Wc = w.W_c.value().data<T>();
  const T* w_feed = w.layers[0].w_ih.value().data<T>() + w.feed_col;
  Tensor gi_buf = Tensor::empty({B, G}, X.dtype());
  T* gi_all = gi_buf.data<T>();
  T* C = s.C.data<T>();
  T* HT = s.HT.data<T>();
  T* Sv = s.Sv.data<T>();
  kernels::for_row_blocks(B, [&](int, std::int64_t r0, std::int64_t r1) {
    const std::int64_t nr = r1 - r0;
    T* gi = gi_all + r0 * G;
    for (std::int64_t t = 0; t < n; ++t) {
      for (std::int64_t l = 0; l < L; ++l) {
        const LstmDotLayer& ly = w.layers[static_cast<std::size_t>(l)];
        if (l == 0) {
          for (std::int64_t b = r0; b < r1; ++b)
            std::copy_n(x + (b * n + t) * G, G, gi + (b - r0) * G);
          if (w.input_feed && t > 0)  // h~_{t-1}'s block of W_ih
            kernels::gemm<T>({w.precision, w.layers[0].w_ih.packed()}, false, true, nr, G, Hd, T(1),
                             HT + ((t - 1) * B + r0) * Hd, Hd, w_feed, s.ldw0, T(1), gi, G);
        } else {
          const T* b_ih = data_or_null<T>(ly.b_ih);
          if (b_ih) kernels::broadcast_rows<T>(b_ih, gi, nr, G);
          kernels::gemm<T>({w.precision, ly.w_ih.packed()}, false, true, nr, G, Hd, T(1),
                           s.state<T>(s.hs, l - 1, t + 1) + r0 * Hd, Hd, ly.w_ih.value().data<T>(),
                           Hd, b_ih ? T(1) : T(0), gi, G);
        }
        kernels::lstm_step_forward<T>(
            {w.precision, ly.w_hh.packed()}, nr, Hd, gi, G, s.state<T>(s.hs, l, t) + r0 * Hd, Hd,
            s.state<T>(s.cs, l, t) + r0 * Hd, Hd, ly.w_hh.value().data<T>(),
            data_or_null<T>(ly.b_hh), nullptr, s.state<T>(s.hs, l, t + 1) + r0 * Hd, Hd,
            s.state<T>(s.cs, l, t + 1) + r0 * Hd, Hd, Sv + ((l * n + t) * B + r0) * SW);
      }
      T* c = C + (t * B + r0) * dk;
      kernels::attention_forward<T>(step_of<T>(s, H_ann, K, w, t, r0, r1), c,
                                    s.Al.data<T>() + (t * B + r0) * s.m);
      // h~ = tanh(W_c[:, :dk] c + W_c[:, dk:] h)
      T* ht = HT + (t * B + r0) * Hd;
      kernels::gemm<T>({w.precision, w.W_c.packed()}, false, true, nr, Hd, dk, T(1), c, dk, Wc,
                       s.ldc, T(0), ht, Hd);
      kernels::gemm<T>({w.precision, w.W_c.packed()}, false, true, nr, Hd, Hd, T(1),
                       s.state<T>(s.hs, L - 1, t + 1) + r0 * Hd, Hd, Wc + dk, s.ldc, T(1), ht, Hd);
      for (std::int64_t i = 0; i < nr * Hd; ++i) ht[i] = kernels::fast_tanh(ht[i]);
    }
  });
  rnn_detail::time_to_batch_major<T>(HT, Hd, Y.data<T>(), B, n, Hd, false);
  if (alphas) {
    *alphas = Tensor::empty({B, n, m}, X.dtype());
    rnn_detail::time_to_batch_major<T>(s.Al.data<T>(), m, alphas->data<T>(), B, n, m, false);
  }
}

template <typename T>
void backward(const Saved& s, const Var& X, const std::vector<Var>& h0,
              const std::vector<Var>& c0, const Var& H_ann, const Var& K,
              const LstmDotWeights& w, const Var& out) {
  const std::int64_t B = s.B, n = s.n, Hd = s.Hd, G = s.G, L = s.L, m = s.m, dk = s.dk;
  const std::int64_t SW = s.SW, R = n * B;
  const DType dt = X.dtype();
  const T* dy = out.grad().data<T>();
  const T* Wc = w.W_c.value().data<T>();
  const T* w_feed = w.layers[0].w_ih.value().data<T>() + w.feed_col;
  Tensor dga_buf = Tensor::empty({L, n, B, G}, dt);  // d(pre-activation gates) per layer, step
  Tensor dpre_buf = Tensor::empty({n, B, Hd}, dt);   // d(W_c [c; h]) per step
  Tensor dh_buf = Tensor::zeros({L, B, Hd}, dt);     // carries: d h_l, d c_l
  Tensor dc_buf = Tensor::zeros({L, B, Hd}, dt);
  Tensor dht_buf = Tensor::zeros({B, Hd}, dt);       // d h~_t from step t + 1's input
  Tensor dctx_buf = Tensor::empty({B, dk}, dt);
  Tensor ds_buf = Tensor::empty({B, m}, dt);
  T* DGA = dga_buf.data<T>();
  T* DPRE = dpre_buf.data<T>();
  T* dh = dh_buf.data<T>();
  T* dc = dc_buf.data<T>();
  T* dht = dht_buf.data<T>();
  T* dK = K.requires_grad() ? K.grad_buffer().data<T>() : nullptr;
  T* dH = H_ann.requires_grad() ? H_ann.grad_buffer().data<T>() : nullptr;
  const T* HT = s.HT.data<T>();
  const T* Sv = s.Sv.data<T>();
  kernels::for_row_blocks(B, [&](int, std::int64_t r0, std::int64_t r1) {
    const std::int64_t nr = r1 - r0;
    T* dh_top = dh + ((L - 1) * B + r0) * Hd;
    kernels::AttentionStepGrad<T> g;
    g.dcontext = dctx_buf.data<T>() + r0 * dk;
    g.dscore = ds_buf.data<T>() + r0 * m;
    g.dq = dh_top;
    if (dK) g.dK = dK + r0 * m * Hd;
    if (dH) g.dH = dH + r0 * m * dk;
    for (std::int64_t t = n - 1; t >= 0; --t) {
      // Through h~_t = tanh(pre): from the output and from step t + 1's input feeding.
      T* dpre = DPRE + (t * B + r0) * Hd;
      const T* ht = HT + (t * B + r0) * Hd;
      for (std::int64_t b = r0; b < r1; ++b) {
        const T* dyr = dy + (b * n + t) * Hd;
        const T* feed = dht + b * Hd;
        const T* h = ht + (b - r0) * Hd;
        T* d = dpre + (b - r0) * Hd;
        for (std::int64_t j = 0; j < Hd; ++j) d[j] = (dyr[j] + feed[j]) * (T(1) - h[j] * h[j]);
      }
      kernels::gemm<T>({w.precision}, false, false, nr, dk, Hd, T(1), dpre, Hd, Wc, s.ldc, T(0),
                       dctx_buf.data<T>() + r0 * dk, dk);
      kernels::gemm<T>({w.precision}, false, false, nr, Hd, Hd, T(1), dpre, Hd, Wc + dk, s.ldc,
                       T(1), dh_top, Hd);
      kernels::attention_backward<T>(step_of<T>(s, H_ann, K, w, t, r0, r1),
                                     s.Al.data<T>() + (t * B + r0) * m, g);
      for (std::int64_t l = L - 1; l >= 0; --l) {
        const LstmDotLayer& ly = w.layers[static_cast<std::size_t>(l)];
        T* dga = DGA + ((l * n + t) * B + r0) * G;
        kernels::lstm_step_backward<T>({w.precision}, nr, Hd, s.state<T>(s.cs, l, t) + r0 * Hd, Hd,
                                       ly.w_hh.value().data<T>(), nullptr,
                                       Sv + ((l * n + t) * B + r0) * SW, dh + (l * B + r0) * Hd, Hd,
                                       dc + (l * B + r0) * Hd, Hd, dga, G);
        if (l > 0)  // into h_{l-1,t}, layer l's input
          kernels::gemm<T>({w.precision}, false, false, nr, Hd, G, T(1), dga, G,
                           ly.w_ih.value().data<T>(), Hd, T(1), dh + ((l - 1) * B + r0) * Hd, Hd);
        else if (w.input_feed && t > 0)  // into h~_{t-1}
          kernels::gemm<T>({w.precision}, false, false, nr, Hd, G, T(1), dga, G, w_feed, s.ldw0,
                           T(0), dht + r0 * Hd, Hd);
      }
    }
  });
  for (std::int64_t l = 0; l < L; ++l) {
    const auto lu = static_cast<std::size_t>(l);
    if (h0[lu].requires_grad()) rnn_detail::add_into<T>(h0[lu].grad_buffer(), dh + l * B * Hd);
    if (c0[lu].requires_grad()) rnn_detail::add_into<T>(c0[lu].grad_buffer(), dc + l * B * Hd);
  }
  // Every step's weight gradients at once: n·B rows each.
  for (std::int64_t l = 0; l < L; ++l) {
    const LstmDotLayer& ly = w.layers[static_cast<std::size_t>(l)];
    const T* dga = DGA + l * n * B * G;
    if (ly.w_hh.requires_grad())
      kernels::gemm<T>({w.precision}, true, false, G, Hd, R, T(1), dga, G, s.state<T>(s.hs, l, 0),
                       Hd, T(1), ly.w_hh.grad_buffer().data<T>(), Hd);
    if (ly.b_hh.defined() && ly.b_hh.requires_grad())
      kernels::sum_rows<T>(dga, ly.b_hh.grad_buffer().data<T>(), R, G);
    if (l > 0) {
      if (ly.w_ih.requires_grad())
        kernels::gemm<T>({w.precision}, true, false, G, Hd, R, T(1), dga, G,
                         s.state<T>(s.hs, l - 1, 1), Hd, T(1), ly.w_ih.grad_buffer().data<T>(), Hd);
      if (ly.b_ih.defined() && ly.b_ih.requires_grad())
        kernels::sum_rows<T>(dga, ly.b_ih.grad_buffer().data<T>(), R, G);
    } else if (w.input_feed && n > 1 && ly.w_ih.requires_grad()) {
      // Step t >= 1 read h~_{t-1}.
      kernels::gemm<T>({w.precision}, true, false, G, Hd, (n - 1) * B, T(1), dga + B * G, G, HT, Hd,
                       T(1), ly.w_ih.grad_buffer().data<T>() + w.feed_col, s.ldw0);
    }
  }
  if (w.W_c.requires_grad()) {
    T* gWc = w.W_c.grad_buffer().data<T>();
    kernels::gemm<T>({w.precision}, true, false, Hd, dk, R, T(1), DPRE, Hd, s.C.data<T>(), dk, T(1),
                     gWc, s.ldc);
    kernels::gemm<T>({w.precision}, true, false, Hd, Hd, R, T(1), DPRE, Hd,
                     s.state<T>(s.hs, L - 1, 1), Hd, T(1), gWc + dk, s.ldc);
  }
  if (X.requires_grad())  // layer 0's gate gradients are X's
    rnn_detail::time_to_batch_major<T>(DGA, G, X.grad_buffer().data<T>(), B, n, G, true);
}

void check_var(const Var& v, DType dt, const char* what) {
  HEED_CHECK(v.defined(), "lstm_dot_decoder: ", what, " is undefined");
  HEED_CHECK(v.value().is_contiguous(), "lstm_dot_decoder: ", what, " must be contiguous");
  rnn_detail::check_dtype(v, dt, "lstm_dot_decoder", what);
}

}  // namespace

Var lstm_dot_decoder(const Var& X, const std::vector<Var>& h0, const std::vector<Var>& c0,
                  const Var& H_ann, const Var& K, std::span<const std::int64_t> lengths,
                  const LstmDotWeights& w, Tensor* alphas) {
  HEED_CHECK(X.defined() && X.value().ndim() == 3, "lstm_dot_decoder: X must be (B, n, 4H)");
  const DType dt = X.dtype();
  Saved s;
  s.L = static_cast<std::int64_t>(w.layers.size());
  HEED_CHECK(s.L >= 1 && h0.size() == w.layers.size() && c0.size() == w.layers.size(),
             "lstm_dot_decoder: ", w.layers.size(), " layers with ", h0.size(), " h and ", c0.size(),
             " c initial states");
  check_var(h0[0], dt, "h0");
  HEED_CHECK(h0[0].value().ndim() == 2, "lstm_dot_decoder: initial states must be (B, H)");
  s.B = h0[0].dim(0);
  s.Hd = h0[0].dim(1);
  s.G = 4 * s.Hd;
  s.SW = kernels::lstm_save_width(s.Hd);
  HEED_CHECK(X.dim(0) == s.B && X.dim(2) == s.G, "lstm_dot_decoder: X must be (", s.B, ", n, ", s.G,
             "), got ", X.shape().str());
  s.n = X.dim(1);
  check_var(X, dt, "X");
  for (std::size_t l = 0; l < h0.size(); ++l) {
    check_var(h0[l], dt, "h0");
    check_var(c0[l], dt, "c0");
    check_shape(h0[l].value(), Shape{s.B, s.Hd}, "lstm_dot_decoder h0");
    check_shape(c0[l].value(), Shape{s.B, s.Hd}, "lstm_dot_decoder c0");
  }
  check_var(H_ann, dt, "annotations");
  check_var(K, dt, "keys");
  HEED_CHECK(H_ann.value().ndim() == 3 && H_ann.dim(0) == s.B,
             "lstm_dot_decoder: annotations must be (", s.B, ", m, dk), got ", H_ann.shape().str());
  s.m = H_ann.dim(1);
  s.dk = H_ann.dim(2);
  check_shape(K.value(), Shape{s.B, s.m, s.Hd}, "lstm_dot_decoder keys");
  for (std::int64_t l = 0; l < s.L; ++l) {
    const LstmDotLayer& ly = w.layers[static_cast<std::size_t>(l)];
    check_var(ly.w_ih, dt, "w_ih");
    check_var(ly.w_hh, dt, "w_hh");
    check_shape(ly.w_hh.value(), Shape{s.G, s.Hd}, "lstm_dot_decoder w_hh");
    if (l > 0) check_shape(ly.w_ih.value(), Shape{s.G, s.Hd}, "lstm_dot_decoder w_ih");
    for (const Var* b : {&ly.b_ih, &ly.b_hh})
      if (b->defined()) {
        check_var(*b, dt, "a bias");
        check_shape(b->value(), Shape{s.G}, "lstm_dot_decoder bias");
      }
  }
  const Tensor& w0 = w.layers[0].w_ih.value();
  HEED_CHECK(w0.ndim() == 2 && w0.dim(0) == s.G &&
                 (!w.input_feed || (w.feed_col >= 0 && w.feed_col + s.Hd <= w0.dim(1))),
             "lstm_dot_decoder: layer 0's w_ih must be (4H, in) with the input-feeding block in "
             "columns [", w.feed_col, ", ", w.feed_col + s.Hd, "), got ", w0.shape().str());
  s.ldw0 = w0.dim(1);
  check_var(w.W_c, dt, "W_c");
  check_shape(w.W_c.value(), Shape{s.Hd, s.dk + s.Hd}, "lstm_dot_decoder W_c");
  s.ldc = s.dk + s.Hd;
  HEED_CHECK(static_cast<std::int64_t>(lengths.size()) == s.B, "lstm_dot_decoder: ", lengths.size(),
             " source lengths for a batch of ", s.B);
  for (std::int64_t len : lengths)
    HEED_CHECK(len >= 1 && len <= s.m, "lstm_dot_decoder: source length ", len, " outside [1, ",
               s.m, "]");
  s.lengths.assign(lengths.begin(), lengths.end());

  s.hs = Tensor::empty({s.L, s.n + 1, s.B, s.Hd}, dt);
  s.cs = Tensor::empty({s.L, s.n + 1, s.B, s.Hd}, dt);
  s.Sv = Tensor::empty({s.L, s.n, s.B, s.SW}, dt);
  s.C = Tensor::empty({s.n, s.B, s.dk}, dt);
  s.Al = Tensor::empty({s.n, s.B, s.m}, dt);
  s.HT = Tensor::empty({s.n, s.B, s.Hd}, dt);
  Tensor Y = Tensor::empty({s.B, s.n, s.Hd}, dt);
  dispatch(dt, [&]<typename T>() { forward<T>(s, X, h0, c0, H_ann, K, w, Y, alphas); });

  std::vector<const Var*> inputs{&X, &H_ann, &K, &w.W_c};
  for (const Var& v : h0) inputs.push_back(&v);
  for (const Var& v : c0) inputs.push_back(&v);
  for (const LstmDotLayer& ly : w.layers)
    for (const Var* v : {&ly.w_ih, &ly.w_hh, &ly.b_ih, &ly.b_hh}) inputs.push_back(v);
  Var out(Y);
  record_multi(inputs, {&out}, [s = std::move(s), X, h0, c0, H_ann, K, w, out]() {
    dispatch(out.dtype(), [&]<typename T>() { backward<T>(s, X, h0, c0, H_ann, K, w, out); });
  });
  return out;
}

}  // namespace heed
