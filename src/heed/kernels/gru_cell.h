#pragma once
// Fused GRU step (PyTorch nn.GRUCell layout, gate order r, z, n):
//   [r; z; n]_pre = gi + h W_hh^T + b_hh, with gi = x W_ih^T + b_ih precomputed by the caller
//   r = σ(.), z = σ(.), n = tanh(gi_n + r ⊙ (W_hn h + b_hn)), h' = (1 − z) ⊙ n + z ⊙ h
// Forward is one GEMM (rows x H) x (H x 3H) and one pass over the gates; backward is one
// pass over the gates and one GEMM back to h. Weight gradients are left to the caller, who
// can then sum them over all time steps with one GEMM.
//
// options: the step's one product's (gemm.h): forward hands w_hh's PackedWeight when the
// model is frozen for decoding, and both directions the precision (bf16 in mixed-precision
// training).
//
// Rows are addressed with row strides (ld_*) so that a step can read and write a time slice
// of a whole-sequence buffer in place. mask (rows bytes, or nullptr for all rows active):
// a row with mask 0 carries its state unchanged (h' = h) and its gradient straight through.
#include <cstdint>

#include "heed/kernels/gemm.h"

namespace heed::kernels {

// Floats saved per row for backward: [r | z | hn | n], hn = W_hn h + b_hn.
inline std::int64_t gru_save_width(std::int64_t hidden) { return 4 * hidden; }

// gi: (rows, 3H) row stride ld_gi; h: (rows, H); w_hh: (3H, H) contiguous; b_hh: (3H) or
// nullptr; h_out: (rows, H), may be h itself; save: (rows, 4H) contiguous, written.
template <typename T>
void gru_step_forward(const GemmOptions& options, std::int64_t rows, std::int64_t hidden,
                      const T* gi, std::int64_t ld_gi, const T* h, std::int64_t ld_h, const T* w_hh,
                      const T* b_hh, const std::uint8_t* mask, T* h_out, std::int64_t ld_out,
                      T* save);

// The gate pass of gru_step_forward alone, for a caller that computed gh = h W_hh^T itself
// (say in one GEMM with other projections of h): gh (rows, 3H) with row stride ld_gh, which
// may be save itself (ld_gh = 4H).
template <typename T>
void gru_gates_forward(std::int64_t rows, std::int64_t hidden, const T* gi, std::int64_t ld_gi,
                       const T* gh, std::int64_t ld_gh, const T* h, std::int64_t ld_h,
                       const T* b_hh, const std::uint8_t* mask, T* h_out, std::int64_t ld_out,
                       T* save);

// h: the step's input state (as in forward); save: forward's save.
// dh: in, dL/dh'; out, dL/dh through this step (overwritten in place).
// dgi: (rows, 3H) row stride ld_dgi, written: dL/dgi (zero on masked rows).
// dgh: (rows, 3H) contiguous, written: dL/d(h W_hh^T + b_hh), so that the caller adds
// dW_hh += dgh^T h and db_hh += Σ_rows dgh.
template <typename T>
void gru_step_backward(const GemmOptions& options, std::int64_t rows, std::int64_t hidden,
                       const T* h, std::int64_t ld_h, const T* w_hh, const std::uint8_t* mask,
                       const T* save, T* dh, std::int64_t ld_dh, T* dgi, std::int64_t ld_dgi,
                       T* dgh);

// The gate pass of gru_step_backward alone (no dh += dgh W_hh: the caller adds the
// recurrent path, possibly in one GEMM with others): dh comes out as the direct path
// dL/dh' ⊙ z only; dgh has row stride ld_dgh.
template <typename T>
void gru_gates_backward(std::int64_t rows, std::int64_t hidden, const T* h, std::int64_t ld_h,
                        const std::uint8_t* mask, const T* save, T* dh, std::int64_t ld_dh,
                        T* dgi, std::int64_t ld_dgi, T* dgh, std::int64_t ld_dgh);

}  // namespace heed::kernels
