#pragma once
// Fused attention step: for each batch row, scores over the real source positions, the
// mask, the softmax, optional Luong local-p weighting and the context, in one pass; and
// the matching fused backward. The tanh form may add a per-step key term inside the tanh
// (location features, docs/MODELS.md#location-aware-attention), and any form may restrict
// each row to a window of positions (windowed decoding). Query-side projections (W_q q, W_a q, the location logits,
// p_t) are GEMMs over the whole batch done by the caller (autograd/attention_op.cpp); these
// kernels do the per-position work. Shapes are row-major and contiguous.
#include <algorithm>
#include <cmath>
#include <cstdint>

namespace heed::kernels {

// How a score is read from the inputs.
//   dot:    s_j = scale * (q . K_j)          dot, scaled_dot, general (K = W_a H)
//   tanh:   s_j = v . tanh(K_j + F_j + wq)   concat, mlp (K = key projection, wq = query one,
//                                             F the optional per-step key term, else 0)
//   logits: s_j = logits_j                    location (W_a q cut to m; reads no keys)
enum class ScoreKind { dot, tanh, logits };

template <typename T>
struct AttentionStep {
  ScoreKind kind = ScoreKind::dot;
  std::int64_t batch = 0;    // B
  std::int64_t m = 0;        // padded source length
  std::int64_t key_dim = 0;  // last dimension of K (and of q / wq / v)
  std::int64_t value_dim = 0;
  const std::int64_t* lengths = nullptr;  // (B), each in [1, m]
  const T* q = nullptr;       // dot: (B, key_dim)
  const T* K = nullptr;       // dot, tanh: (B, m, key_dim)
  const T* H = nullptr;       // (B, m, value_dim)
  const T* wq = nullptr;      // tanh: (B, key_dim), row stride ld_wq
  std::int64_t ld_wq = 0;     // 0 = key_dim
  const T* v = nullptr;       // tanh: (key_dim)
  const T* logits = nullptr;  // logits: (B, m)
  T scale = T(1);
  // Local-p: centres p_t (B) in (0, S_b) and half-width D; null p means global attention.
  const T* p = nullptr;
  T window = T(0);
  // tanh: the per-step key term F (B, m, key_dim) added to K inside the tanh, or null. What it
  // holds (location features, coverage) is the caller's.
  const T* key_term = nullptr;
  // Windowed decoding: row b attends over the positions [from[b], to[b]) only (intersected
  // with its real positions and any local-p window; an empty intersection is the whole row);
  // null: every position.
  const std::int64_t* from = nullptr;
  const std::int64_t* to = nullptr;
};

// context (B, value_dim) and alpha (B, m) are written in full (alpha = 0 off the window
// and on padding).
template <typename T>
void attention_forward(const AttentionStep<T>& s, T* context, T* alpha);

template <typename T>
struct AttentionStepGrad {
  const T* dcontext = nullptr;  // (B, value_dim) or null
  const T* dalpha = nullptr;    // (B, m) or null
  T* dscore = nullptr;          // (B, m) written: d loss / d s_j (0 off the window)
  T* dq = nullptr;              // dot: (B, key_dim) accumulated, or null
  T* dK = nullptr;              // (B, m, key_dim) accumulated, or null
  T* dH = nullptr;              // (B, m, value_dim) accumulated, or null (may alias dK)
  T* dwq = nullptr;             // tanh: (B, key_dim) written (row stride ld_dwq), or null
  std::int64_t ld_dwq = 0;      // 0 = key_dim
  T* dv_rows = nullptr;         // tanh: (B, key_dim) written per row (caller sums), or null
  T* dp = nullptr;              // local-p: (B) written, or null
  T* dkey_term = nullptr;       // tanh with a key term: (B, m, key_dim) accumulated, or null
};

// Needs the forward's inputs and its alpha output.
template <typename T>
void attention_backward(const AttentionStep<T>& s, const T* alpha, const AttentionStepGrad<T>& g);

}  // namespace heed::kernels
