#pragma once
// Fused LSTM step (PyTorch nn.LSTMCell layout, gate order i, f, g, o):
//   [i; f; g; o]_pre = gi + h W_hh^T + b_hh, with gi = x W_ih^T + b_ih precomputed by the caller
//   i, f, o = σ(.), g = tanh(.), c' = f ⊙ c + i ⊙ g, h' = o ⊙ tanh(c')
// Forward is one GEMM (rows x H) x (H x 4H) and one pass over the gates; backward is one
// pass over the gates and one GEMM back to h. Weight gradients are left to the caller
// (dW_hh += dgates^T h, db_hh += Σ_rows dgates; the input side gets the same dgates).
//
// options: the step's one product's (gemm.h): forward hands w_hh's PackedWeight when the
// model is frozen for decoding, and both directions the precision (bf16 in mixed-precision
// training).
//
// Rows are addressed with row strides (ld_*) so that a step can read and write a time slice
// of a whole-sequence buffer in place. mask (rows bytes, or nullptr for all rows active):
// a row with mask 0 carries its state unchanged (h' = h, c' = c) and its gradients
// straight through.
#include <cstdint>

#include "heed/kernels/gemm.h"

namespace heed::kernels {

// Floats saved per row for backward: [i | f | g | o | tanh(c')].
inline std::int64_t lstm_save_width(std::int64_t hidden) { return 5 * hidden; }

// gi: (rows, 4H) row stride ld_gi; h, c: (rows, H); w_hh: (4H, H) contiguous; b_hh: (4H) or
// nullptr; h_out, c_out: (rows, H), may be h and c themselves; save: (rows, 5H) contiguous.
template <typename T>
void lstm_step_forward(const GemmOptions& options, std::int64_t rows, std::int64_t hidden,
                       const T* gi, std::int64_t ld_gi, const T* h, std::int64_t ld_h, const T* c,
                       std::int64_t ld_c, const T* w_hh, const T* b_hh, const std::uint8_t* mask,
                       T* h_out, std::int64_t ld_h_out, T* c_out, std::int64_t ld_c_out, T* save);

// c: the step's input cell state; save: forward's save.
// dh: in, dL/dh'; out, dL/dh through this step (overwritten in place).
// dc: in, dL/dc' from later steps and outputs (not through h'); out, dL/dc.
// dgates: (rows, 4H) row stride ld_dgates, written: dL/d(pre-activation gates), which is
// both dL/dgi and dL/d(h W_hh^T + b_hh) (zero on masked rows).
template <typename T>
void lstm_step_backward(const GemmOptions& options, std::int64_t rows, std::int64_t hidden,
                        const T* c, std::int64_t ld_c, const T* w_hh, const std::uint8_t* mask,
                        const T* save, T* dh, std::int64_t ld_dh, T* dc, std::int64_t ld_dc,
                        T* dgates, std::int64_t ld_dgates);

}  // namespace heed::kernels
