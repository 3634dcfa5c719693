#pragma once
// The pointer-generator's output distribution (See et al. 2017, "Get To The Point", eq. 9;
// docs/MODELS.md#copy-attention), row by row, over a vocabulary of V words extended by a
// sentence's source words that the vocabulary lacks (ids V, V + 1, ...):
//   P(w) = p_gen P_vocab(w) + (1 - p_gen) sum_{j: copy_ids[j] = w} alpha_j,
//   P_vocab = softmax(logits), p_gen = sigmoid(gate).
// Everything is taken in the log domain: log p_gen = -softplus(-gate), log(1 - p_gen) =
// -softplus(gate), log P_vocab(w) = logits_w - lse, and the two parts meet in one log-sum-exp,
// so no log(0) is ever taken of a part that is not exactly empty. copy_ids (rows, m) hold each
// source position's extended id; a padding position's weight is 0 and adds nothing.
#include <cstdint>

namespace heed::kernels {

// A copy mass below this is taken as this when a target can only be copied (its log stays
// finite and its gradient bounded, 1 / kMinCopyMass).
inline constexpr double kMinCopyMass = 1e-30;

// -log P(target) of every row (0 for a row whose target is ignore_index), with what the
// backward reads: the vocabulary part's share of P(target), w_vocab = p_gen P_vocab(t) / P(t),
// and the copy mass A = sum_{j: copy_ids[j] = t} alpha_j. lse[r] is the row's log-sum-exp
// of the logits (kernels::log_sum_exp_rows). Targets lie in [0, V + K) (the caller checks).
template <typename T>
void copy_mixture_loss_forward(const T* logits, const T* lse, std::int64_t rows, std::int64_t V,
                               const T* gate, const T* alpha, std::int64_t m,
                               const std::int32_t* copy_ids, const std::int32_t* targets,
                               std::int32_t ignore_index, T* w_vocab, T* copy_mass,
                               double* row_loss);

// The gradient of scale * sum_r -log P(t_r), accumulated into the non-null buffers:
//   dlogits[r, c] += scale w_vocab (softmax_c - [c = t]),  dgate[r] += scale (p_gen - w_vocab),
//   dalpha[r, j] += -scale (1 - w_vocab) / A [copy_ids[j] = t].
template <typename T>
void copy_mixture_loss_backward(const T* logits, const T* lse, std::int64_t rows, std::int64_t V,
                                const T* gate, std::int64_t m, const std::int32_t* copy_ids,
                                const std::int32_t* targets, std::int32_t ignore_index,
                                const T* w_vocab, const T* copy_mass, T scale, T* dlogits,
                                T* dgate, T* dalpha);

// log P(w) for every w of the extended vocabulary [0, V + K): out (rows, V + K). An extended
// id that no source position of the row holds gets -infinity (it cannot be produced).
template <typename T>
void copy_mixture_log_probs(const T* logits, std::int64_t rows, std::int64_t V, const T* gate,
                            const T* alpha, std::int64_t m, const std::int32_t* copy_ids,
                            std::int64_t K, T* out);

}  // namespace heed::kernels
