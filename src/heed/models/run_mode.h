#pragma once
// RunMode: what a model's parts need to know about the call they run in. Training switches
// dropout on (and then needs the random generator); decoding and evaluation pass neither.
// precision is how every product of the call runs, filled by the model from its ComputeType
// (models/compute_type.h: bf16 rounds the products' inputs); the parts hand it to each op that
// multiplies.
#include <vector>

#include "heed/autograd/var.h"
#include "heed/base/random.h"
#include "heed/kernels/precision.h"

namespace heed {

// What hard attention's samples leave for the REINFORCE loss (docs/MODELS.md#hard-attention):
// one entry per decoder step, in step order, each (B): log pi(j_t) of the sampled position
// and the entropy H(pi_t) of the distribution it was drawn from. The trainer owns it and
// reads it after a teacher-forced forward pass (train/reinforce.h).
struct HardAttentionTrace {
  std::vector<Var> log_prob;
  std::vector<Var> entropy;
  void clear() {
    log_prob.clear();
    entropy.clear();
  }
};

struct RunMode {
  bool training = false;
  Rng* rng = nullptr;     // required when training with dropout > 0 or hard attention
  double dropout = 0.0;   // model.dropout: the probability wherever the model drops
  HardAttentionTrace* trace = nullptr;  // hard attention in training: receives each step's sample
  kernels::MatmulPrecision precision = kernels::MatmulPrecision::f32;
  // Saliency: where set, the encoder stores the embedded source (B, m, E) it computes here, so
  // that its gradient can be read after a backward pass (Seq2Seq::saliency).
  Var* source_embeddings = nullptr;
  // Where set (training with the doubly stochastic penalty, train/doubly_stochastic.h), each
  // teacher-forced decoder step appends its attention weights alpha_t (B, m), on the tape.
  std::vector<Var>* attention = nullptr;
  // Hard attention in training: this pass reads the soft expectation instead of samples
  // (training.hard_soft_mix): nothing is drawn and nothing recorded.
  bool hard_expectation = false;
  // Teacher forcing over a whole target of which only the real positions are read
  // (Seq2Seq::forward_packed): the target's lengths (B), so that a decoder's position-wise work
  // over the whole target (Decoder::accelerated) may skip the padding; null otherwise.
  const std::vector<std::int64_t>* target_lengths = nullptr;
  // Where set (training with model.ctc_weight), an encoder with a CTC head stores its logits
  // over the annotations here, (B, m, V), on the tape (the trainer's CTC loss reads them).
  Var* ctc_logits = nullptr;
};

// The probability this call drops with: mode.dropout when training (then mode.rng is
// required), else 0. For ops that fuse dropout into their own pass.
double dropout_rate(const RunMode& mode);

// Inverted dropout with dropout_rate(mode), else x itself.
Var maybe_dropout(const Var& x, const RunMode& mode);

}  // namespace heed
