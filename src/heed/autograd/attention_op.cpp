#include "heed/autograd/attention_op.h"

#include <cmath>
#include <vector>

#include "heed/autograd/tape.h"
#include "heed/kernels/attention.h"
#include "heed/kernels/gemm.h"
#include "heed/kernels/reduce.h"

namespace heed {
namespace {

template <typename T>
T logistic(T x) {  // no overflow on either side
  if (x >= T(0)) return T(1) / (T(1) + std::exp(-x));
  const T e = std::exp(x);
  return e / (T(1) + e);
}

// Everything the backward needs besides the op's inputs and outputs.
struct Saved {
  AttentionScore score;
  std::int64_t B, m, dq, kd, dv;
  std::vector<std::int64_t> lengths;
  double scale = 1;
  Tensor wq;  // tanh scores: the projected query (B, A)
  Tensor tp;  // local-p: tanh(W_p q) (B, dq)
  Tensor p;   // local-p: centres (B)
  std::vector<std::int64_t> from, to;  // windowed decoding: each row's positions
  kernels::MatmulPrecision precision = kernels::MatmulPrecision::f32;  // every product's
};

template <typename T>
kernels::AttentionStep<T> make_step(const Saved& s, const Var& q, const Var& K, const Var& H,
                                    const AttentionWeights& w, const Var& F) {
  kernels::AttentionStep<T> st;
  st.kind = score_spec(s.score).kind;
  st.batch = s.B;
  st.m = s.m;
  st.key_dim = s.kd;
  st.value_dim = s.dv;
  st.lengths = s.lengths.data();
  st.H = H.value().data<T>();
  if (st.kind != kernels::ScoreKind::logits) st.K = K.value().data<T>();
  if (st.kind == kernels::ScoreKind::dot) st.q = q.value().data<T>();
  if (st.kind == kernels::ScoreKind::tanh) {
    st.wq = s.wq.data<T>();
    st.v = w.v.value().data<T>();
  }
  st.scale = static_cast<T>(s.scale);
  if (s.p.defined()) {
    st.p = s.p.data<T>();
    st.window = static_cast<T>(w.window);
  }
  if (F.defined()) st.key_term = F.value().data<T>();
  if (!s.from.empty()) {
    st.from = s.from.data();
    st.to = s.to.data();
  }
  return st;
}

template <typename T>
void backward(const Saved& s, const Var& q, const Var& K, const Var& H, const AttentionWeights& w,
              const Var& F, const Var& ctx, const Var& alpha) {
  kernels::AttentionStep<T> st = make_step<T>(s, q, K, H, w, F);
  const kernels::GemmOptions go{s.precision};
  const DType dt = dtype_of<T>();
  const bool tanh_kind = st.kind == kernels::ScoreKind::tanh;
  const std::int64_t B = s.B, m = s.m, dq = s.dq, kd = s.kd;

  Tensor ds = Tensor::empty({B, m}, dt);
  Tensor dwq, dv_rows, dp;
  kernels::AttentionStepGrad<T> g;
  g.dcontext = ctx.has_grad() ? ctx.grad().data<T>() : nullptr;
  g.dalpha = alpha.has_grad() ? alpha.grad().data<T>() : nullptr;
  g.dscore = ds.data<T>();
  if (st.kind == kernels::ScoreKind::dot && q.requires_grad()) g.dq = q.grad_buffer().data<T>();
  if (st.K && K.requires_grad()) g.dK = K.grad_buffer().data<T>();
  if (H.requires_grad()) g.dH = H.grad_buffer().data<T>();
  if (st.key_term && F.requires_grad()) g.dkey_term = F.grad_buffer().data<T>();
  if (tanh_kind && (q.requires_grad() || w.W.requires_grad())) {
    dwq = Tensor::empty({B, kd}, dt);
    g.dwq = dwq.data<T>();
  }
  if (tanh_kind && w.v.requires_grad()) {
    dv_rows = Tensor::empty({B, kd}, dt);
    g.dv_rows = dv_rows.data<T>();
  }
  const bool local = s.p.defined();
  if (local && (q.requires_grad() || w.W_p.requires_grad() || w.v_p.requires_grad())) {
    dp = Tensor::empty({B}, dt);
    g.dp = dp.data<T>();
  }
  kernels::attention_backward<T>(st, alpha.value().data<T>(), g);

  const T* qv = q.value().data<T>();
  if (tanh_kind) {
    // wq = q W[:, :dq]^T (W's row stride is its full width: concat's W_a holds both halves).
    const T* W = w.W.value().data<T>();
    const std::int64_t ldw = w.W.dim(1);
    if (w.W.requires_grad())
      kernels::gemm<T>(go, true, false, kd, dq, B, T(1), g.dwq, kd, qv, dq, T(1),
                       w.W.grad_buffer().data<T>(), ldw);
    if (q.requires_grad())
      kernels::gemm<T>(go, false, false, B, dq, kd, T(1), g.dwq, kd, W, ldw, T(1),
                       q.grad_buffer().data<T>(), dq);
    if (g.dv_rows) kernels::sum_rows<T>(g.dv_rows, w.v.grad_buffer().data<T>(), B, kd);
  } else if (st.kind == kernels::ScoreKind::logits) {
    // logits = q W[:m]^T, so the score gradient is the logits' gradient.
    if (w.W.requires_grad())
      kernels::gemm<T>(go, true, false, m, dq, B, T(1), g.dscore, m, qv, dq, T(1),
                       w.W.grad_buffer().data<T>(), dq);
    if (q.requires_grad())
      kernels::gemm<T>(go, false, false, B, dq, m, T(1), g.dscore, m, w.W.value().data<T>(), dq,
                       T(1), q.grad_buffer().data<T>(), dq);
  }
  if (g.dp) {
    // p = S sigmoid(u), u = v_p . tp, tp = tanh(W_p q).
    const T* tp = s.tp.data<T>();
    const T* p = s.p.data<T>();
    const T* vp = w.v_p.value().data<T>();
    Tensor dpre = Tensor::empty({B, dq}, dt);
    T* dpr = dpre.data<T>();
    T* dvp = w.v_p.requires_grad() ? w.v_p.grad_buffer().data<T>() : nullptr;
    for (std::int64_t b = 0; b < B; ++b) {
      const T S = static_cast<T>(s.lengths[static_cast<std::size_t>(b)]);
      const T sg = p[b] / S;
      const T du = g.dp[b] * S * sg * (T(1) - sg);
      const T* t = tp + b * dq;
      if (dvp)
        for (std::int64_t i = 0; i < dq; ++i) dvp[i] += du * t[i];
      for (std::int64_t i = 0; i < dq; ++i) dpr[b * dq + i] = du * vp[i] * (T(1) - t[i] * t[i]);
    }
    if (w.W_p.requires_grad())
      kernels::gemm<T>(go, true, false, dq, dq, B, T(1), dpr, dq, qv, dq, T(1),
                       w.W_p.grad_buffer().data<T>(), dq);
    if (q.requires_grad())
      kernels::gemm<T>(go, false, false, B, dq, dq, T(1), dpr, dq, w.W_p.value().data<T>(), dq,
                       T(1), q.grad_buffer().data<T>(), dq);
  }
}

}  // namespace

AttentionResult attention_step(AttentionScore score, const Var& q, const Var& K, const Var& H,
                               std::span<const std::int64_t> lengths, const AttentionWeights& w,
                               kernels::MatmulPrecision precision,
                               const AttentionStepExtras& extras) {
  const Tensor& qv = q.value();
  const Tensor& Hv = H.value();
  const DType dt = qv.dtype();
  HEED_CHECK(qv.ndim() == 2, "attention: query must be (B, dq), got ", qv.shape().str());
  HEED_CHECK(Hv.ndim() == 3 && Hv.dim(0) == qv.dim(0),
             "attention: values must be (B, m, dk) with B = ", qv.dim(0), ", got ",
             Hv.shape().str());
  HEED_CHECK(qv.is_contiguous() && Hv.is_contiguous() && Hv.dtype() == dt,
             "attention: query and values must be contiguous and of one dtype");
  Saved s;
  s.score = score;
  s.precision = precision;
  s.B = qv.dim(0);
  s.dq = qv.dim(1);
  s.m = Hv.dim(1);
  s.dv = Hv.dim(2);
  HEED_CHECK(static_cast<std::int64_t>(lengths.size()) == s.B, "attention: ", lengths.size(),
             " source lengths for a batch of ", s.B);
  for (std::int64_t len : lengths)
    HEED_CHECK(len >= 1 && len <= s.m, "attention: source length ", len, " outside [1, ", s.m, "]");
  s.lengths.assign(lengths.begin(), lengths.end());
  const ScoreSpec& spec = score_spec(score);
  const kernels::ScoreKind kind = spec.kind;

  if (kind != kernels::ScoreKind::logits) {
    HEED_CHECK(K.defined(), "attention: score ", attention_score_name(score), " needs keys");
    const Tensor& Kv = K.value();
    HEED_CHECK(Kv.ndim() == 3 && Kv.dim(0) == s.B && Kv.dim(1) == s.m,
               "attention: keys must be (B, m, .) = (", s.B, ", ", s.m, ", .), got ",
               Kv.shape().str());
    HEED_CHECK(Kv.is_contiguous() && Kv.dtype() == dt, "attention: keys must be contiguous, ",
               dtype_name(dt));
    s.kd = Kv.dim(2);
  }
  spec.check(attention_score_name(score), ScoreStepSizes{s.m, s.dq, s.kd, s.dv}, w, dt);
  const Var& F = extras.key_term;
  if (F.defined()) {
    HEED_CHECK(kind == kernels::ScoreKind::tanh, "attention: score ", attention_score_name(score),
               " takes no key term (only the additive scores: mlp, concat)");
    HEED_CHECK(F.value().ndim() == 3 && F.dim(0) == s.B && F.dim(1) == s.m && F.dim(2) == s.kd,
               "attention: the key term must be (B, m, A) = (", s.B, ", ", s.m, ", ", s.kd,
               "), got ", F.shape().str());
    HEED_CHECK(F.value().is_contiguous() && F.dtype() == dt,
               "attention: the key term must be contiguous, ", dtype_name(dt));
  }
  HEED_CHECK(extras.from.size() == extras.to.size() &&
                 (extras.from.empty() || static_cast<std::int64_t>(extras.from.size()) == s.B),
             "attention: a window needs a first and an end position per row, got ",
             extras.from.size(), " and ", extras.to.size(), " for a batch of ", s.B);
  s.from.assign(extras.from.begin(), extras.from.end());
  s.to.assign(extras.to.begin(), extras.to.end());
  if (spec.scaled) s.scale = 1.0 / std::sqrt(double(s.dq));
  const bool local = w.window > 0;
  if (local) {
    HEED_CHECK(w.window >= 1, "attention local-p: window D must be >= 1, got ", w.window);
    check_attention_param(w.W_p, Shape{s.dq, s.dq}, "W_p.weight", dt);
    check_attention_param(w.v_p, Shape{1, s.dq}, "v_p.weight", dt);
  }

  Tensor context = Tensor::empty({s.B, s.dv}, dt);
  Tensor alpha = Tensor::empty({s.B, s.m}, dt);
  dispatch(dt, [&]<typename T>() {
    const T* qp = qv.data<T>();
    Tensor logits;
    if (kind == kernels::ScoreKind::tanh) {
      s.wq = Tensor::empty({s.B, s.kd}, dt);
      kernels::gemm<T>({precision, w.W.packed()}, false, true, s.B, s.kd, s.dq, T(1), qp, s.dq,
                       w.W.value().data<T>(), w.W.dim(1), T(0), s.wq.data<T>(), s.kd);
    } else if (kind == kernels::ScoreKind::logits) {
      logits = Tensor::empty({s.B, s.m}, dt);
      kernels::gemm<T>({precision, w.W.packed()}, false, true, s.B, s.m, s.dq, T(1), qp, s.dq,
                       w.W.value().data<T>(), s.dq, T(0), logits.data<T>(), s.m);
    }
    if (local) {
      s.tp = Tensor::empty({s.B, s.dq}, dt);
      s.p = Tensor::empty({s.B}, dt);
      T* tp = s.tp.data<T>();
      T* p = s.p.data<T>();
      const T* vp = w.v_p.value().data<T>();
      kernels::gemm<T>({precision, w.W_p.packed()}, false, true, s.B, s.dq, s.dq, T(1), qp, s.dq,
                       w.W_p.value().data<T>(), s.dq, T(0), tp, s.dq);
      for (std::int64_t b = 0; b < s.B; ++b) {
        T u = T(0);
        for (std::int64_t i = 0; i < s.dq; ++i) {
          tp[b * s.dq + i] = std::tanh(tp[b * s.dq + i]);
          u += vp[i] * tp[b * s.dq + i];
        }
        p[b] = static_cast<T>(s.lengths[static_cast<std::size_t>(b)]) * logistic(u);
      }
    }
    kernels::AttentionStep<T> st = make_step<T>(s, q, K, H, w, F);
    if (logits.defined()) st.logits = logits.data<T>();
    kernels::attention_forward<T>(st, context.data<T>(), alpha.data<T>());
  });

  const bool rg = any_requires_grad({&q, &K, &H, &w.W, &w.v, &w.W_p, &w.v_p, &F});
  AttentionResult out{Var(context, rg), Var(alpha, rg)};
  if (rg) {
    Tape::current().record(
        [s = std::move(s), q, K, H, w, F, ctx = out.context, al = out.alpha]() {
          if (!ctx.has_grad() && !al.has_grad()) return;
          dispatch(ctx.dtype(), [&]<typename T>() { backward<T>(s, q, K, H, w, F, ctx, al); });
        },
        {&q, &K, &H, &w.W, &w.v, &w.W_p, &w.v_p, &F});
  }
  return out;
}

Var linear_columns(const Var& x, const Var& W, std::int64_t col,
                   kernels::MatmulPrecision precision) {
  const Tensor& xv = x.value();
  const Tensor& Wv = W.value();
  HEED_CHECK(Wv.ndim() == 2 && Wv.is_contiguous() && xv.is_contiguous() && xv.ndim() >= 1 &&
                 xv.dtype() == Wv.dtype(),
             "linear_columns: contiguous x (..., in) and 2-D W of one dtype expected");
  const std::int64_t in = xv.dim(-1), out = Wv.dim(0), ldw = Wv.dim(1), rows = xv.numel() / in;
  HEED_CHECK(col >= 0 && col + in <= ldw, "linear_columns: columns [", col, ", ", col + in,
             ") outside W ", Wv.shape().str());
  Shape ys = xv.shape();
  ys[ys.ndim() - 1] = out;
  Tensor y = Tensor::empty(ys, xv.dtype());
  dispatch(xv.dtype(), [&]<typename T>() {
    kernels::gemm<T>({precision, W.packed()}, false, true, rows, out, in, T(1), xv.data<T>(), in,
                     Wv.data<T>() + col, ldw, T(0), y.data<T>(), out);
  });
  return record_op(y, {&x, &W}, [x, W, rows, in, out, ldw, col, precision](Var& o) {
    const kernels::GemmOptions go{precision};
    dispatch(o.dtype(), [&]<typename T>() {
      const T* dy = o.grad().data<T>();
      if (x.requires_grad())
        kernels::gemm<T>(go, false, false, rows, in, out, T(1), dy, out, W.value().data<T>() + col,
                         ldw, T(1), x.grad_buffer().data<T>(), in);
      if (W.requires_grad())
        kernels::gemm<T>(go, true, false, out, in, rows, T(1), dy, out, x.value().data<T>(), in,
                         T(1), W.grad_buffer().data<T>() + col, ldw);
    });
  });
}

}  // namespace heed
