#pragma once
// Hard (stochastic) attention: pick one source position per row, j ~ alpha_t, and use its
// annotation h_j as the context. The choice is not differentiable; log pi(j) is, through
// alpha to the scores, for REINFORCE. At test time take the argmax or the soft context.
#include <cstdint>
#include <span>
#include <vector>

#include "heed/autograd/var.h"
#include "heed/base/enum_names.h"
#include "heed/base/random.h"

namespace heed {

// model.attention.mode: the context is the expectation over positions (soft) or one sampled
// position (hard, trained with REINFORCE; docs/MODELS.md#hard-attention); none: no attention,
// every step reads a fixed context (model.kind image2seq; the text baseline is kind noattn).
enum class AttentionMode { soft, hard, none };
inline constexpr EnumName<AttentionMode> kAttentionModeNames[] = {{AttentionMode::soft, "soft"},
                                                                  {AttentionMode::hard, "hard"},
                                                                  {AttentionMode::none, "none"}};
constexpr std::span<const EnumName<AttentionMode>> enum_names(AttentionMode) {
  return kAttentionModeNames;
}

// model.attention.hard_eval: what hard attention reads when not training (decoding, dev loss):
// the most probable position's annotation, or the soft context.
enum class HardEval { argmax, expectation };
inline constexpr EnumName<HardEval> kHardEvalNames[] = {{HardEval::argmax, "argmax"},
                                                        {HardEval::expectation, "expectation"}};
constexpr std::span<const EnumName<HardEval>> enum_names(HardEval) { return kHardEvalNames; }

// j_b ~ alpha[b, :] / sum_k alpha[b, k] (rows of a local window need not sum to 1); never
// a position of weight 0.
std::vector<std::int64_t> sample_positions(const Tensor& alpha, Rng& rng);
// j_b = argmax_k alpha[b, k] (the first on ties).
std::vector<std::int64_t> argmax_positions(const Tensor& alpha);

// c_b = H[b, index_b, :], (B, dk); the gradient flows into the chosen rows of H.
Var gather_positions(const Var& H, std::span<const std::int64_t> index);

// log pi(j_b) = log(alpha[b, j_b] / sum_k alpha[b, k]), (B).
Var attention_log_prob(const Var& alpha, std::span<const std::int64_t> index);

// H(pi_b) = -sum_k pi_bk log pi_bk with pi_b = alpha[b, :] / sum_k alpha[b, k], (B): the
// entropy of the sampling distribution (the REINFORCE entropy bonus). Positions of weight 0
// add nothing and receive no gradient.
Var attention_entropy(const Var& alpha);

}  // namespace heed
