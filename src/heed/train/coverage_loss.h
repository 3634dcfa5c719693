#pragma once
// The coverage loss (docs/MODELS.md#coverage; See et al. 2017, "Get To The Point", eq. 12-13):
// the attention a decoder step gives to positions that earlier steps already attended. With
// alpha_btj the teacher-forced weight of sentence b, step t < n_b (its real target positions),
// position j, the coverage c_btj = sum_{t' < t} alpha_bt'j and N the real target tokens of the
// batch (the cross-entropy's mean divides by it):
//
//   loss = (lambda / N) sum_b sum_{t < n_b} sum_j min(alpha_btj, c_btj)
//
// training.coverage_loss is lambda; the trainer adds the loss to the cross-entropy, and logs the
// dev set's (coverage_loss_sum) at each validation.
#include <cstdint>
#include <span>
#include <vector>

#include "heed/autograd/var.h"
#include "heed/tensor/tensor.h"

namespace heed {

// alphas: one (B, m) entry per teacher-forced step (Seq2Seq::set_attention_trace);
// target_lengths: n_b. A scalar on the tape.
Var coverage_loss(const std::vector<Var>& alphas, std::span<const std::int64_t> target_lengths,
                  double weight, double normaliser);

// sum_b sum_{t < n_b} sum_j min(alpha_btj, c_btj) of teacher-forced weights alphas (B, n, m),
// without the tape (the dev set's report).
double coverage_loss_sum(const Tensor& alphas, std::span<const std::int64_t> target_lengths);

}  // namespace heed
