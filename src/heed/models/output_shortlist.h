#pragma once
// OutputShortlist: the output layer cut to a vocabulary shortlist
// (docs/DECODING.md#vocabulary-shortlists).
// A source batch may name the target ids its translations may use (TokenBatch::shortlist: the
// union of the frequent targets and each source token's list, translate/shortlist.h); the
// encoder-decoder gathers those K rows of the final projection once per batch, and every
// decoding step multiplies by K rows instead of V, scattering the K logits into a (B, V) row
// of -inf. Greedy and beam search, n-best, ensembles and copy attention read those rows as
// they read full ones: a token outside the shortlist has probability 0.
// Decoding steps go further (Seq2Seq's StepOutput::shortlist): greedy and beam search read the
// K columns themselves (shortlist_rows), so the step's argmax, log-sum-exp and candidate
// scan cover K columns, not V; only copy attention's mixture, which needs the whole
// vocabulary, reads the scattered row. While the model is frozen for decoding
// (decode/frozen_model.h) the K rows are packed once per batch at the model's precision
// (int8, bf16 or fp32), like the full weight they come from.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "heed/autograd/var.h"
#include "heed/kernels/packed_weight.h"
#include "heed/kernels/precision.h"
#include "heed/tensor/tensor.h"

namespace heed {

class OutputLayer;

struct OutputShortlist {
  std::vector<std::int32_t> ids;  // sorted, unique target ids (the specials among them)
  Var weight;                     // (K, F') the output layer's rows for ids
  Var bias;                       // (K)
  std::int64_t vocab = 0;         // V
  // weight packed for the products, when the output layer's weight was packed (the model is
  // frozen for decoding on this thread) and the weights are fp32; null otherwise.
  std::shared_ptr<const kernels::PackedWeight> packed;
};

// Throws heed::Error naming `what` unless ids are sorted, unique, in [0, vocab) and hold the
// special ids PAD, BOS, EOS and UNK.
void check_shortlist_ids(std::span<const std::int32_t> ids, std::int64_t vocab, const char* what);

// The rows of `layer` for ids (checked as above), packed as the layer's weight is.
OutputShortlist gather_shortlist(const OutputLayer& layer, std::span<const std::int32_t> ids,
                                 const char* what);

// The K logits (B, K) from the pre-output features x (B, F'): column c is ids[c]'s. No
// gradient (decoding only).
Tensor shortlist_rows(const OutputShortlist& s, const Var& x, kernels::MatmulPrecision precision);

// rows (B, K) into a (B, V) row of -inf at the shortlist's ids.
Tensor scatter_shortlist(const OutputShortlist& s, const Tensor& rows);

// Logits (B, V) from the pre-output features x (B, F'): the K products, the rest -inf. No
// gradient (decoding only).
Var shortlist_logits(const OutputShortlist& s, const Var& x, kernels::MatmulPrecision precision);

}  // namespace heed
