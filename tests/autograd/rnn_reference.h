#pragma once
// Test helpers for the recurrent ops: a naive double-precision GRU/LSTM written straight
// from the equations (one sequence at a time, no padding, no fusion), and join(), which
// flattens several outputs into one so that a single gradient check covers them all.
#include <cmath>
#include <cstdint>
#include <vector>

#include "heed/autograd/tape.h"
#include "heed/autograd/var.h"

namespace heed::testing {

// Parameters of one layer-direction as plain row-major arrays (PyTorch layout).
struct RefWeights {
  std::vector<double> w_ih, w_hh, b_ih, b_hh;  // biases may be empty
};

inline RefWeights ref_weights(const Var& w_ih, const Var& w_hh, const Var& b_ih,
                              const Var& b_hh) {
  return {w_ih.value().to_vector(), w_hh.value().to_vector(),
          b_ih.defined() ? b_ih.value().to_vector() : std::vector<double>(),
          b_hh.defined() ? b_hh.value().to_vector() : std::vector<double>()};
}

inline double ref_sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// One step: x (in), h and c (H) updated in place. c is ignored for a GRU.
inline void ref_step(bool lstm, const RefWeights& w, std::int64_t in, std::int64_t H,
                     const double* x, std::vector<double>& h, std::vector<double>& c) {
  const std::int64_t G = (lstm ? 4 : 3) * H;
  std::vector<double> gi(static_cast<std::size_t>(G)), gh(static_cast<std::size_t>(G));
  for (std::int64_t g = 0; g < G; ++g) {
    double a = w.b_ih.empty() ? 0 : w.b_ih[g], b = w.b_hh.empty() ? 0 : w.b_hh[g];
    for (std::int64_t k = 0; k < in; ++k) a += w.w_ih[g * in + k] * x[k];
    for (std::int64_t k = 0; k < H; ++k) b += w.w_hh[g * H + k] * h[k];
    gi[g] = a;
    gh[g] = b;
  }
  for (std::int64_t j = 0; j < H; ++j) {
    if (lstm) {
      double i = ref_sigmoid(gi[j] + gh[j]), f = ref_sigmoid(gi[H + j] + gh[H + j]);
      double g = std::tanh(gi[2 * H + j] + gh[2 * H + j]);
      double o = ref_sigmoid(gi[3 * H + j] + gh[3 * H + j]);
      c[j] = f * c[j] + i * g;
      h[j] = o * std::tanh(c[j]);
    } else {
      double r = ref_sigmoid(gi[j] + gh[j]), z = ref_sigmoid(gi[H + j] + gh[H + j]);
      double n = std::tanh(gi[2 * H + j] + r * gh[2 * H + j]);
      h[j] = (1 - z) * n + z * h[j];
    }
  }
}

struct RefSequence {
  std::vector<double> output;  // (len, dirs * H)
  std::vector<double> h_n, c_n;  // (layers * dirs, H)
};

// A stacked (bi)directional RNN over one sequence x (len, in), zero initial states unless
// h0/c0 ((layers * dirs, H)) are given. weights: layers * dirs entries, PyTorch order.
inline RefSequence ref_sequence(bool lstm, const std::vector<RefWeights>& weights,
                                std::int64_t layers, bool bidirectional, std::int64_t in,
                                std::int64_t H, const std::vector<double>& x, std::int64_t len,
                                const std::vector<double>& h0 = {},
                                const std::vector<double>& c0 = {}) {
  const std::int64_t dirs = bidirectional ? 2 : 1, D = dirs * H;
  RefSequence r;
  std::vector<double> cur = x;
  std::int64_t cur_in = in;
  for (std::int64_t l = 0; l < layers; ++l) {
    std::vector<double> out(static_cast<std::size_t>(len * D));
    for (std::int64_t d = 0; d < dirs; ++d) {
      const std::int64_t k = l * dirs + d;
      std::vector<double> h(static_cast<std::size_t>(H)), c(static_cast<std::size_t>(H));
      if (!h0.empty()) std::copy(h0.begin() + k * H, h0.begin() + (k + 1) * H, h.begin());
      if (!c0.empty()) std::copy(c0.begin() + k * H, c0.begin() + (k + 1) * H, c.begin());
      for (std::int64_t s = 0; s < len; ++s) {
        const std::int64_t t = d == 0 ? s : len - 1 - s;
        ref_step(lstm, weights[static_cast<std::size_t>(k)], cur_in, H, cur.data() + t * cur_in,
                 h, c);
        std::copy(h.begin(), h.end(), out.begin() + t * D + d * H);
      }
      r.h_n.insert(r.h_n.end(), h.begin(), h.end());
      r.c_n.insert(r.c_n.end(), c.begin(), c.end());
    }
    cur = out;
    cur_in = D;
  }
  r.output = cur;
  return r;
}

// All parts flattened into one 1-D Var (undefined parts skipped), gradients split back.
inline Var join(const std::vector<Var>& parts) {
  std::vector<Var> defined;
  std::vector<double> values;
  for (const Var& p : parts)
    if (p.defined()) {
      defined.push_back(p);
      std::vector<double> v = p.value().to_vector();
      values.insert(values.end(), v.begin(), v.end());
    }
  bool rg = false;
  for (const Var& p : defined) rg = rg || p.requires_grad();
  Var out(Tensor::from({static_cast<std::int64_t>(values.size())}, values, DType::f64), rg);
  if (rg)
    Tape::current().record([out, defined] {
      if (!out.has_grad()) return;
      const double* g = out.grad().data<double>();
      for (const Var& p : defined) {
        const std::int64_t n = p.value().numel();
        if (p.requires_grad()) {
          double* d = p.grad_buffer().data<double>();
          for (std::int64_t i = 0; i < n; ++i) d[i] += g[i];
        }
        g += n;
      }
    }, defined);
  return out;
}

}  // namespace heed::testing
