#pragma once
// Connectionist temporal classification (Graves et al. 2006), PyTorch's F.ctc_loss with
// reduction "sum" and zero_infinity=True: for each row b, the negative log-probability of its
// target y_b (L_b symbols, none the blank) summed over every alignment of T_b frames, each
// frame emitting a symbol or the blank, repeats merged and blanks removed:
//
//   nll_b = -log sum over alignments pi of prod_t softmax(x_b,t)[pi_t]
//
// by the forward (alpha) and backward (beta) recursions over the extended target
// l' = (blank, y_1, blank, y_2, ..., y_L, blank), in log space and in double whatever T.
// A target that no alignment of T_b frames can emit (T_b shorter than L_b plus its repeated
// neighbours) has nll +inf and gets no gradient (the op then counts it 0: zero_infinity).
#include <cstdint>

namespace heed::kernels {

struct CtcShape {
  std::int64_t batch = 0;   // B
  std::int64_t frames = 0;  // T: the logits' (B, T, V) middle dimension
  std::int64_t symbols = 0; // V, the blank included
  std::int32_t blank = 0;
};

// logits (B, T, V), row b's first frame_lengths[b] frames read (each in [0, T]); targets: the
// rows' symbols one after another (target_lengths[b] each, in [0, V), never blank). Writes
// nll[b] and, where grad is not null, adds scale * d nll_b / d logits
// into grad (B, T, V): softmax minus the posterior occupancy of each symbol, at row b's
// frames; nothing past them. nll[b] is +inf for an infeasible row. Returns their number.
template <typename T>
std::int64_t ctc_loss(const CtcShape& s, const T* logits, const std::int64_t* frame_lengths,
                      const std::int32_t* targets, const std::int64_t* target_lengths,
                      double* nll, T scale, T* grad);

}  // namespace heed::kernels
