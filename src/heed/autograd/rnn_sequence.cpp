#include "heed/autograd/rnn_sequence.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <numeric>

#include "heed/autograd/rnn_common.h"
#include "heed/kernels/gemm.h"
#include "heed/kernels/gru_cell.h"
#include "heed/kernels/lstm_cell.h"
#include "heed/kernels/reduce.h"

namespace heed {
namespace {

// Buffer layout, per layer (all time-major, rows sorted by decreasing length, so the rows
// still running at step t are the prefix [0, active[t])):
//   X  (T, B, in)      the layer's input (layer 0: the gathered input; layer l: layer l-1's
//                      outputs, after dropout)
//   Y  (T + 2, B, D)   states, D = dirs * H, direction d in columns [dH, (d+1)H). Slot t + 1
//                      holds the output at time t. The forward direction's initial state
//                      sits in slot 0; the reverse direction's initial state for row i sits
//                      in slot len_i + 1 (a padded position, or the extra slot T + 1), so
//                      every step reads its previous state from one slot with one stride:
//                      forward step t reads slot t, reverse step t reads slot t + 2.
//   C  (T + 2, B, D)   LSTM cell states, same layout.
//   S  (T, B, SW)      per direction: what the step kernel saved for backward.
// Slots of rows that are not running hold zeros (or a reverse initial state), so the weight
// gradients of all time steps are each one GEMM over T * B rows with zero gradient rows.
struct Plan {
  kernels::MatmulPrecision precision = kernels::MatmulPrecision::f32;  // every product's
  bool lstm = false;
  std::int64_t B = 0, T = 0, in = 0, H = 0, L = 0, dirs = 1, D = 0, G = 0, SW = 0;
  std::vector<std::int64_t> perm;    // sorted row -> batch row
  std::vector<std::int64_t> len;     // sorted lengths
  std::vector<std::int64_t> active;  // active[t] = number of rows with len > t
  std::int64_t layer_in(std::int64_t l) const { return l == 0 ? in : D; }
};

struct Saved {
  std::vector<Tensor> X, Y, C, S, M;  // M: dropout scale masks on X[l], l >= 1 (or undefined)
};

// Threads for the directions of a layer: two for a bidirectional layer when two are
// available (and no outer parallel region holds them), else one.
int direction_threads(const Plan& p) {
  return p.dirs == 2 && kernels::num_threads() >= 2 && !omp_in_parallel() ? 2 : 1;
}

template <typename T>
const T* ptr_or_null(const Var& v) {
  return v.defined() ? v.value().data<T>() : nullptr;
}

template <typename T>
void forward(const Plan& p, const Tensor& x, const std::vector<RnnWeights>& w, const Var& h0,
             const Var& c0, const RnnSequenceOptions& opt, Rng* rng, bool keep, Saved& sv) {
  const std::int64_t B = p.B, Tn = p.T, H = p.H, D = p.D, G = p.G, SW = p.SW;
  // Layer 0's input, gathered time-major in sorted row order.
  {
    Tensor X0 = Tensor::empty({Tn, B, p.in}, x.dtype());
    const T* src = x.data<T>();
    T* dst = X0.data<T>();
    for (std::int64_t t = 0; t < Tn; ++t)
      for (std::int64_t i = 0; i < B; ++i)
        std::memcpy(dst + (t * B + i) * p.in, src + (p.perm[i] * Tn + t) * p.in,
                    sizeof(T) * p.in);
    sv.X.push_back(X0);
    sv.M.emplace_back();
  }
  const bool drop = opt.training && opt.dropout > 0 && p.L > 1;
  for (std::int64_t l = 0; l < p.L; ++l) {
    const std::int64_t in = p.layer_in(l);
    if (l > 0) {
      Tensor prev = sv.Y.back().slice(0, 1, Tn + 1);  // (T, B, D) outputs of layer l-1
      if (drop) {
        HEED_CHECK(rng, "rnn_sequence: dropout between layers needs an Rng");
        Tensor mask = Tensor::empty({Tn, B, D}, x.dtype());
        Tensor Xl = Tensor::empty({Tn, B, D}, x.dtype());
        const T scale = T(1) / T(1 - opt.dropout);
        T* m = mask.data<T>();
        T* xl = Xl.data<T>();
        const T* y = prev.data<T>();
        for (std::int64_t k = 0; k < mask.numel(); ++k) {
          m[k] = rng->uniform() < opt.dropout ? T(0) : scale;
          xl[k] = y[k] * m[k];
        }
        sv.X.push_back(Xl);
        sv.M.push_back(mask);
      } else {
        sv.X.push_back(prev);
        sv.M.emplace_back();
      }
    }
    const T* X = sv.X[static_cast<std::size_t>(l)].data<T>();
    Tensor Y = Tensor::zeros({Tn + 2, B, D}, x.dtype());
    Tensor C = p.lstm ? Tensor::zeros({Tn + 2, B, D}, x.dtype()) : Tensor();
    T* y = Y.data<T>();
    T* c = p.lstm ? C.data<T>() : nullptr;
    // The directions are independent until the next layer: with two threads each runs one
    // (its projection GEMM and every step, single-threaded) with no barrier per step.
    std::vector<Tensor> GIs, Ss;
    for (std::int64_t d = 0; d < p.dirs; ++d) {
      GIs.push_back(Tensor::empty({Tn * B, G}, x.dtype()));
      Ss.push_back(Tensor::empty(keep ? Shape{Tn, B, SW} : Shape{B, SW}, x.dtype()));
    }
    const int nt = direction_threads(p);
#pragma omp parallel for num_threads(nt) schedule(static, 1) if (nt > 1)
    for (std::int64_t d = 0; d < p.dirs; ++d) {
      const std::int64_t ld = l * p.dirs + d;
      const RnnWeights& wd = w[static_cast<std::size_t>(ld)];
      Tensor& GI = GIs[static_cast<std::size_t>(d)];
      // Input projection of every time step: one GEMM.
      T beta = 0;
      if (wd.b_ih.defined()) {
        kernels::broadcast_rows<T>(wd.b_ih.value().data<T>(), GI.data<T>(), Tn * B, G);
        beta = 1;
      }
      kernels::gemm<T>({p.precision, wd.w_ih.packed()}, false, true, Tn * B, G, in, T(1), X, in,
                       wd.w_ih.value().data<T>(), in, beta, GI.data<T>(), G);
      // Initial states into their slots.
      for (std::int64_t i = 0; i < B; ++i) {
        const std::int64_t slot = d == 0 ? 0 : p.len[i] + 1;
        const std::int64_t at = (slot * B + i) * D + d * H;
        const std::int64_t from = (ld * B + p.perm[i]) * H;
        if (h0.defined()) std::memcpy(y + at, h0.value().data<T>() + from, sizeof(T) * H);
        if (p.lstm && c0.defined())
          std::memcpy(c + at, c0.value().data<T>() + from, sizeof(T) * H);
      }
      Tensor& S = Ss[static_cast<std::size_t>(d)];
      const T* w_hh = wd.w_hh.value().data<T>();
      const T* b_hh = ptr_or_null<T>(wd.b_hh);
      const kernels::GemmOptions step_options{p.precision, wd.w_hh.packed()};
      for (std::int64_t k = 0; k < Tn; ++k) {
        const std::int64_t t = d == 0 ? k : Tn - 1 - k;
        const std::int64_t n = p.active[t];
        if (n == 0) continue;
        const std::int64_t prev = ((d == 0 ? t : t + 2) * B) * D + d * H;
        const std::int64_t next = ((t + 1) * B) * D + d * H;
        const T* gi = GI.data<T>() + t * B * G;
        T* save = S.data<T>() + (keep ? t * B * SW : 0);
        if (p.lstm)
          kernels::lstm_step_forward<T>(step_options, n, H, gi, G, y + prev, D, c + prev, D, w_hh,
                                        b_hh, nullptr, y + next, D, c + next, D, save);
        else
          kernels::gru_step_forward<T>(step_options, n, H, gi, G, y + prev, D, w_hh, b_hh, nullptr,
                                       y + next, D, save);
      }
    }
    if (keep)
      for (Tensor& S : Ss) sv.S.push_back(S);
    sv.Y.push_back(Y);
    if (p.lstm) sv.C.push_back(C);
  }
}

// Final states (layers * dirs, B, H) in batch order from the state slots.
template <typename T>
void gather_final(const Plan& p, const std::vector<Tensor>& slots, Tensor& out) {
  T* o = out.data<T>();
  for (std::int64_t l = 0; l < p.L; ++l) {
    const T* s = slots[static_cast<std::size_t>(l)].data<T>();
    for (std::int64_t d = 0; d < p.dirs; ++d)
      for (std::int64_t i = 0; i < p.B; ++i) {
        const std::int64_t slot = d == 0 ? p.len[i] : 1;
        std::memcpy(o + ((l * p.dirs + d) * p.B + p.perm[i]) * p.H,
                    s + (slot * p.B + i) * p.D + d * p.H, sizeof(T) * p.H);
      }
  }
}

template <typename T>
void backward(const Plan& p, const Saved& sv, const Var& x, const std::vector<RnnWeights>& w,
              const Var& h0, const Var& c0, const Var& out, const Var& h_n, const Var& c_n) {
  const std::int64_t B = p.B, Tn = p.T, H = p.H, D = p.D, G = p.G, SW = p.SW, R = Tn * B;
  const DType dt = x.dtype();
  // dL/d(last layer's outputs), time-major sorted; only running rows are ever read.
  Tensor dY = Tensor::empty({Tn, B, D}, dt);
  {
    T* dy = dY.data<T>();
    const T* g = out.has_grad() ? out.grad().data<T>() : nullptr;
    for (std::int64_t t = 0; t < Tn; ++t)
      for (std::int64_t i = 0; i < p.active[t]; ++i) {
        T* row = dy + (t * B + i) * D;
        if (g)
          std::memcpy(row, g + (p.perm[i] * Tn + t) * D, sizeof(T) * D);
        else
          std::fill(row, row + D, T(0));
      }
  }
  // Per direction: the carries and the gate gradients of every step (the directions run
  // their BPTT loops on separate threads when there are two).
  std::vector<Tensor> dhs, dcs, DGs, DGHs;
  for (std::int64_t d = 0; d < p.dirs; ++d) {
    dhs.push_back(Tensor::empty({B, H}, dt));
    dcs.push_back(p.lstm ? Tensor::empty({B, H}, dt) : Tensor());
    DGs.push_back(Tensor::empty({R, G}, dt));
    DGHs.push_back(p.lstm ? Tensor() : Tensor::empty({R, G}, dt));
  }
  const int nt = direction_threads(p);
  for (std::int64_t l = p.L - 1; l >= 0; --l) {
    const std::int64_t in = p.layer_in(l);
    const T* X = sv.X[static_cast<std::size_t>(l)].data<T>();
    const T* y = sv.Y[static_cast<std::size_t>(l)].data<T>();
    const T* c = p.lstm ? sv.C[static_cast<std::size_t>(l)].data<T>() : nullptr;
    const bool need_dx = l > 0 || x.requires_grad();
    Tensor dX = need_dx ? Tensor::zeros({Tn, B, in}, dt) : Tensor();
#pragma omp parallel for num_threads(nt) schedule(static, 1) if (nt > 1)
    for (std::int64_t d = 0; d < p.dirs; ++d) {
      const auto du = static_cast<std::size_t>(d);
      const std::int64_t ld = l * p.dirs + d;
      const T* w_hh = w[static_cast<std::size_t>(ld)].w_hh.value().data<T>();
      const T* S = sv.S[static_cast<std::size_t>(ld)].data<T>();
      T* dg = DGs[du].data<T>();
      T* dgh = p.lstm ? dg : DGHs[du].data<T>();
      DGs[du].zero();
      if (!p.lstm) DGHs[du].zero();
      // Gradient carried into the final state.
      auto init_carry = [&](const Var& v, Tensor& carry) {
        T* cr = carry.data<T>();
        if (!v.has_grad()) return carry.zero();
        const T* g = v.grad().data<T>();
        for (std::int64_t i = 0; i < B; ++i)
          std::memcpy(cr + i * H, g + (ld * B + p.perm[i]) * H, sizeof(T) * H);
      };
      init_carry(h_n, dhs[du]);
      if (p.lstm) init_carry(c_n, dcs[du]);
      T* dhp = dhs[du].data<T>();
      T* dcp = p.lstm ? dcs[du].data<T>() : nullptr;
      const T* dy = dY.data<T>();
      // BPTT: the steps in the reverse of the order forward ran them.
      for (std::int64_t k = 0; k < Tn; ++k) {
        const std::int64_t t = d == 0 ? Tn - 1 - k : k;
        const std::int64_t n = p.active[t];
        if (n == 0) continue;
        for (std::int64_t i = 0; i < n; ++i) {
          const T* g = dy + (t * B + i) * D + d * H;
          T* r = dhp + i * H;
          for (std::int64_t j = 0; j < H; ++j) r[j] += g[j];
        }
        const std::int64_t prev = ((d == 0 ? t : t + 2) * B) * D + d * H;
        const T* save = S + t * B * SW;
        if (p.lstm)
          kernels::lstm_step_backward<T>({p.precision}, n, H, c + prev, D, w_hh, nullptr, save, dhp,
                                         H, dcp, H, dg + t * B * G, G);
        else
          kernels::gru_step_backward<T>({p.precision}, n, H, y + prev, D, w_hh, nullptr, save, dhp,
                                        H, dg + t * B * G, G, dgh + t * B * G);
      }
    }
    for (std::int64_t d = 0; d < p.dirs; ++d) {
      const auto du = static_cast<std::size_t>(d);
      const std::int64_t ld = l * p.dirs + d;
      const RnnWeights& wd = w[static_cast<std::size_t>(ld)];
      const T* dg = DGs[du].data<T>();
      const T* dgh = p.lstm ? dg : DGHs[du].data<T>();
      // Weight gradients of all time steps at once.
      const T* hprev = y + ((d == 0 ? 0 : 2) * B) * D + d * H;
      if (wd.w_hh.requires_grad())
        kernels::gemm<T>({p.precision}, true, false, G, H, R, T(1), dgh, G, hprev, D, T(1),
                         wd.w_hh.grad_buffer().data<T>(), H);
      if (wd.b_hh.requires_grad()) kernels::sum_rows<T>(dgh, wd.b_hh.grad_buffer().data<T>(), R, G);
      if (wd.w_ih.requires_grad())
        kernels::gemm<T>({p.precision}, true, false, G, in, R, T(1), dg, G, X, in, T(1),
                         wd.w_ih.grad_buffer().data<T>(), in);
      if (wd.b_ih.requires_grad()) kernels::sum_rows<T>(dg, wd.b_ih.grad_buffer().data<T>(), R, G);
      if (need_dx)
        kernels::gemm<T>({p.precision}, false, false, R, in, G, T(1), dg, G,
                         wd.w_ih.value().data<T>(), in, T(1), dX.data<T>(), in);
      // What is left in the carries is the gradient of the initial states.
      auto scatter_initial = [&](const Var& v, const T* carry) {
        if (!v.requires_grad()) return;
        T* g = v.grad_buffer().data<T>();
        for (std::int64_t i = 0; i < B; ++i) {
          T* r = g + (ld * B + p.perm[i]) * H;
          for (std::int64_t j = 0; j < H; ++j) r[j] += carry[i * H + j];
        }
      };
      scatter_initial(h0, dhs[du].data<T>());
      if (p.lstm) scatter_initial(c0, dcs[du].data<T>());
    }
    if (l > 0) {
      const Tensor& mask = sv.M[static_cast<std::size_t>(l)];
      if (mask.defined()) {
        T* g = dX.data<T>();
        const T* m = mask.data<T>();
        for (std::int64_t k = 0; k < dX.numel(); ++k) g[k] *= m[k];
      }
      dY = dX;
    } else if (x.requires_grad()) {
      T* g = x.grad_buffer().data<T>();
      const T* s = dX.data<T>();
      for (std::int64_t i = 0; i < B; ++i)
        for (std::int64_t t = 0; t < p.len[i]; ++t) {
          T* r = g + (p.perm[i] * Tn + t) * in;
          const T* q = s + (t * B + i) * in;
          for (std::int64_t j = 0; j < in; ++j) r[j] += q[j];
        }
    }
  }
}

}  // namespace

RnnSequenceOutput rnn_sequence(const RnnSequenceOptions& opt, const Var& input,
                               const std::vector<std::int32_t>& lengths,
                               const std::vector<RnnWeights>& weights, Rng* rng, const Var& h0,
                               const Var& c0) {
  const char* op = "rnn_sequence";
  Plan p;
  p.precision = opt.precision;
  p.lstm = opt.cell == RnnCell::lstm;
  const Tensor& xv = input.value();
  HEED_CHECK(xv.ndim() == 3, op, ": input must be (B, T, in), got ", xv.shape().str());
  HEED_CHECK(xv.is_contiguous(), op, ": input must be contiguous");
  HEED_CHECK(opt.num_layers >= 1, op, ": num_layers must be at least 1");
  HEED_CHECK(opt.dropout >= 0 && opt.dropout < 1, op, ": dropout must be in [0, 1), got ",
             opt.dropout);
  p.B = xv.dim(0);
  p.T = xv.dim(1);
  p.in = xv.dim(2);
  p.L = opt.num_layers;
  p.dirs = opt.bidirectional ? 2 : 1;
  HEED_CHECK(static_cast<std::int64_t>(weights.size()) == p.L * p.dirs, op, ": expected ",
             p.L * p.dirs, " layer-direction weight sets, got ", weights.size());
  const DType dt = xv.dtype();
  const std::int64_t gates = p.lstm ? 4 : 3;
  HEED_CHECK(weights[0].w_hh.defined() && weights[0].w_hh.value().ndim() == 2, op,
             ": w_hh_l0 must be a 2-D tensor");
  p.H = weights[0].w_hh.value().dim(1);
  p.D = p.dirs * p.H;
  p.G = gates * p.H;
  p.SW = p.lstm ? kernels::lstm_save_width(p.H) : kernels::gru_save_width(p.H);
  for (std::int64_t k = 0; k < p.L * p.dirs; ++k) {
    const RnnWeights& w = weights[static_cast<std::size_t>(k)];
    const std::int64_t in = p.layer_in(k / p.dirs);
    HEED_CHECK(w.w_ih.defined() && w.w_hh.defined(), op, ": weights of layer-direction ", k,
               " are missing");
    check_shape(w.w_ih.value(), Shape{p.G, in}, "rnn_sequence w_ih");
    check_shape(w.w_hh.value(), Shape{p.G, p.H}, "rnn_sequence w_hh");
    if (w.b_ih.defined()) check_shape(w.b_ih.value(), Shape{p.G}, "rnn_sequence b_ih");
    if (w.b_hh.defined()) check_shape(w.b_hh.value(), Shape{p.G}, "rnn_sequence b_hh");
    for (const Var* v : {&w.w_ih, &w.w_hh, &w.b_ih, &w.b_hh})
      if (v->defined()) {
        rnn_detail::check_dtype(*v, dt, op, "a weight");
        HEED_CHECK(v->value().is_contiguous(), op, ": weights must be contiguous");
      }
  }
  for (const Var* s : {&h0, &c0})
    if (s->defined()) {
      check_shape(s->value(), Shape{p.L * p.dirs, p.B, p.H}, "rnn_sequence initial state");
      rnn_detail::check_dtype(*s, dt, op, "the initial state");
      HEED_CHECK(s->value().is_contiguous(), op, ": initial states must be contiguous");
    }
  HEED_CHECK(!c0.defined() || p.lstm, op, ": a GRU has no cell state");
  HEED_CHECK(static_cast<std::int64_t>(lengths.size()) == p.B, op, ": ", lengths.size(),
             " lengths for a batch of ", p.B);
  for (std::int32_t n : lengths)
    HEED_CHECK(n >= 0 && n <= p.T, op, ": length ", n, " outside [0, ", p.T, "]");

  // Sort rows by decreasing length (stable, so equal lengths keep batch order).
  p.perm.resize(static_cast<std::size_t>(p.B));
  std::iota(p.perm.begin(), p.perm.end(), 0);
  std::stable_sort(p.perm.begin(), p.perm.end(), [&](std::int64_t a, std::int64_t b) {
    return lengths[static_cast<std::size_t>(a)] > lengths[static_cast<std::size_t>(b)];
  });
  p.len.resize(static_cast<std::size_t>(p.B));
  for (std::int64_t i = 0; i < p.B; ++i) p.len[i] = lengths[static_cast<std::size_t>(p.perm[i])];
  p.active.assign(static_cast<std::size_t>(p.T), 0);
  for (std::int64_t t = 0; t < p.T; ++t)
    while (p.active[t] < p.B && p.len[p.active[t]] > t) ++p.active[t];

  std::vector<const Var*> inputs{&input, &h0, &c0};
  for (const RnnWeights& w : weights)
    for (const Var* v : {&w.w_ih, &w.w_hh, &w.b_ih, &w.b_hh}) inputs.push_back(v);
  bool keep = false;
  if (grad_enabled())
    for (const Var* v : inputs) keep = keep || v->requires_grad();

  auto saved = std::make_shared<Saved>();
  Tensor out = Tensor::empty({p.B, p.T, p.D}, dt);
  Tensor hn = Tensor::empty({p.L * p.dirs, p.B, p.H}, dt);
  Tensor cn = p.lstm ? Tensor::empty({p.L * p.dirs, p.B, p.H}, dt) : Tensor();
  dispatch(dt, [&]<typename T>() {
    forward<T>(p, xv, weights, h0, c0, opt, rng, keep, *saved);
    const T* y = saved->Y.back().data<T>();
    T* o = out.data<T>();
    for (std::int64_t i = 0; i < p.B; ++i) {
      T* row = o + p.perm[i] * p.T * p.D;
      for (std::int64_t t = 0; t < p.T; ++t) {
        if (t < p.len[i])
          std::memcpy(row + t * p.D, y + ((t + 1) * p.B + i) * p.D, sizeof(T) * p.D);
        else
          std::fill(row + t * p.D, row + (t + 1) * p.D, T(0));
      }
    }
    gather_final<T>(p, saved->Y, hn);
    if (p.lstm) gather_final<T>(p, saved->C, cn);
  });

  RnnSequenceOutput result{Var(out), Var(hn), p.lstm ? Var(cn) : Var()};
  std::vector<Var*> outputs{&result.output, &result.h_n};
  if (p.lstm) outputs.push_back(&result.c_n);
  if (keep)
    record_multi(
        inputs, outputs,
        [p = std::make_shared<const Plan>(std::move(p)), saved, input, weights, h0, c0,
         o = result.output, hn = result.h_n, cn = result.c_n]() {
          dispatch(input.dtype(), [&]<typename T>() {
            backward<T>(*p, *saved, input, weights, h0, c0, o, hn, cn);
          });
        });
  return result;
}

}  // namespace heed
