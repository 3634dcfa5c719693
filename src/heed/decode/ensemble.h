#pragma once
// Ensemble: several Seq2Seq models with the same target vocabulary decoded as one. It is a
// Seq2Seq itself, so greedy_decode and beam_search take it unchanged.
//
// Output: the log of the mean of the members' softmaxes, returned as logits; since those
// already sum to one, log_softmax gives them back (up to rounding): p(v) = mean_i p_i(v).
// Attention: the mean of the attention of the members that have one (undefined when none
// has), so UNK replacement and alignment output follow the ensemble's consensus. CTC heads
// (ctc_logits, for rescoring): the log of the mean of the members' per-frame softmaxes in the
// same way; every member needs one.
//
// encode() packs every member's Encoded into one batch-major (B, P) tensor (each row the
// members' flattened annotations, keys and fixed contexts), so reorder_rows replicates it
// for beam search like any other encoding. step() needs the members' own tensors back: the
// Ensemble keeps the unpacked encodings of the last packed tensor it saw (holding that
// tensor, so the match by identity is exact) and unpacks again only for a new one: once per
// batch for beam search, never for greedy decoding. That cache (with the packed layout, which
// depends on the batch's length) is kept per thread: a decode runs encode, initial_state and
// every step on one thread, so concurrent decodes of different batches through one Ensemble
// (decode_in_row_blocks' row blocks, say) each see their own. The decoder state is the
// concatenation of the members' states. forward() gives the same combination without
// gradients.
//
// Members whose target vocabularies hold the same tokens in another order (each built from
// its own training data) join with target_ids: member i reads the previous tokens through
// target_ids[i] (the first member's id v is member i's target_ids[i][v]) and its logits'
// columns are put back in the first member's order, so every id the Ensemble takes or gives
// is the first member's.
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "heed/models/seq2seq.h"

namespace heed {

class Ensemble : public Seq2Seq {
 public:
  // At least one member; all must have the same target vocabulary size. target_ids: empty
  // (every member in the first's order), or one entry a member, each empty (the first's
  // order) or a permutation of [0, V).
  explicit Ensemble(std::vector<std::shared_ptr<const Seq2Seq>> members,
                    std::vector<std::vector<std::int32_t>> target_ids = {});

  std::size_t size() const { return members_.size(); }
  const Seq2Seq& member(std::size_t i) const { return *members_.at(i); }

  Encoded encode(const TokenBatch& src) const override;
  DecoderState initial_state(const Encoded& enc) const override;
  StepOutput step(std::span<const std::int32_t> y_prev, DecoderState& state,
                  const Encoded& enc) const override;
  Var forward(const TokenBatch& src, const TokenBatch& tgt_in,
              Tensor* alphas = nullptr) const override;
  std::vector<Var> weights() const override;
  Tensor ctc_logits(const TokenBatch& src) const override;
  std::int64_t max_output_steps() const override;

 private:
  // Where member i's field f (annotations, keys, fixed_context) lives in a packed row.
  struct Field {
    bool defined = false;
    Shape tail;               // the shape without dimension 0
    std::int64_t offset = 0;  // in elements, within a packed row
    std::int64_t size = 0;    // elements per row
  };
  // What one thread's decode needs between calls.
  struct Cache {
    std::vector<Field> layout;  // members x 3
    std::int64_t packed_width = 0;
    DType packed_dtype = DType::f32;
    Var packed;                         // the last packed encoding seen ...
    std::vector<Encoded> members;       // ... unpacked
    std::vector<std::size_t> state_parts;   // parts of each member's state
    std::vector<std::size_t> state_caches;  // and its position caches
  };
  // The calling thread's cache (created on first use; std::map keeps it in place).
  Cache& cache() const;
  std::vector<Encoded> unpack(const Encoded& enc) const;

  // Member i's view of a batch of the first member's target ids, and its logits (rows, V)
  // with their columns in the first member's order (as they are when it has no map).
  std::vector<std::int32_t> member_ids(std::size_t i, std::span<const std::int32_t> ids) const;
  Tensor in_first_order(std::size_t i, const Tensor& logits) const;

  std::vector<std::shared_ptr<const Seq2Seq>> members_;
  std::vector<std::vector<std::int32_t>> target_ids_;  // one a member; empty: the first's order
  mutable std::mutex mutex_;  // guards caches_' structure; each entry is its thread's alone
  mutable std::map<std::thread::id, Cache> caches_;
};

// log(mean_i softmax(logits_i)) row by row: the ensemble's combination, exposed for tests.
// Every input (rows, V) of one dtype; returns a new (rows, V) tensor.
Tensor log_mean_softmax(const std::vector<Tensor>& logits);

}  // namespace heed
