#pragma once
// The doubly stochastic attention penalty (docs/MODELS.md#image-to-sequence; Xu et al. 2015,
// sec. 4.2.1): the attention of every decoder step sums to 1 over the positions, and the
// penalty asks each position's attention, summed over the steps, to be near 1 as well, so
// that every grid cell is looked at. With alpha_bti the teacher-forced weight of sentence b,
// step t < n_b (its real target positions), position i < m_b, and N the real target tokens of
// the batch (the cross-entropy's mean divides by it):
//
//   penalty = (lambda / N) sum_b sum_{i < m_b} (1 - sum_{t < n_b} alpha_bti)^2
//
// training.doubly_stochastic is lambda; the trainer adds the penalty to the cross-entropy.
#include <cstdint>
#include <span>
#include <vector>

#include "heed/autograd/var.h"

namespace heed {

// alphas: one (B, m) entry per teacher-forced step (Seq2Seq::set_attention_trace);
// target_lengths: n_b; source_lengths: m_b. A scalar on the tape.
Var doubly_stochastic_penalty(const std::vector<Var>& alphas,
                              std::span<const std::int64_t> target_lengths,
                              std::span<const std::int64_t> source_lengths, double weight,
                              double normaliser);

}  // namespace heed
