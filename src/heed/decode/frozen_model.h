#pragma once
// FrozenModel: a model's weights frozen for decoding while the object lives. It gives every
// float weight of the model a kernels::PackedWeight (packed_weight.h) at the model's decoding
// precision (Seq2Seq::compute_type(), models/compute_type.h), kept with the parameter
// (Var::packed()); the ops that multiply by a weight hand that handle to kernels::gemm, so
// those products run on weights packed once.
//
// greedy_decode and beam_search make one per call; callers that decode many batches (the
// translator, validation, the benchmark) make one around all of them, so the weights are
// packed once rather than per batch. FrozenModels of one model nest and may be made from
// several threads at once: an inner one finds the handles attached and shares them, and the
// last one to go detaches them. The ops see a handle only on a thread whose FrozenModel
// holds it (Var::packed). All must agree on the precision (heed::Error otherwise: the model's
// decoding precision changed while it was frozen).
// The weights must not change while any of them lives (training never holds one).
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "heed/kernels/packed_weight.h"
#include "heed/models/seq2seq.h"

namespace heed {

class FrozenModel {
 public:
  explicit FrozenModel(const Seq2Seq& model);
  ~FrozenModel();
  FrozenModel(const FrozenModel&) = delete;
  FrozenModel& operator=(const FrozenModel&) = delete;

  // Over the model's weights: the blocks packed so far and the products run on them.
  std::size_t packed() const;
  std::size_t products() const;

 private:
  void attach(const Seq2Seq& model);
  std::vector<std::pair<Var, std::shared_ptr<kernels::PackedWeight>>> held_;
};

}  // namespace heed
