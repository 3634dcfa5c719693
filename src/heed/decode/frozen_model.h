#pragma once
// FrozenModel: a model's weights frozen for decoding (kernels/frozen_weights.h) while the
// object lives. greedy_decode and beam_search open one per call; callers that decode many
// batches (the translator, validation, the benchmark) open one around all of them, so the
// weights are packed once rather than per batch.
#include "heed/kernels/frozen_weights.h"
#include "heed/models/seq2seq.h"

namespace heed {

class FrozenModel {
 public:
  FrozenModel(const Seq2Seq& model, kernels::MatmulPrecision precision);

 private:
  kernels::FrozenWeights scope_;
};

}  // namespace heed
