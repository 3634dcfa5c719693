#pragma once
// The memory network's sentence embedding (docs/MODELS.md#memory-network): each row of word
// ids becomes the sum of its words' embeddings, weighted by the position encoding, plus a
// temporal row; and the adjoint, the scatter-add into the two tables' gradients.
#include <cstdint>

namespace heed::kernels {

// Word rows: rows x width ids (row-major, PAD after each row's length), lengths[r] in
// [0, width], time[r] a row of the temporal table or negative (none). Checked by the caller.
struct WordRows {
  std::int64_t rows = 0, width = 0;
  const std::int32_t* ids = nullptr;
  const std::int32_t* lengths = nullptr;
  const std::int32_t* time = nullptr;  // null: no temporal term for any row
};

// The position encoding l_kj of word j (1-based) of J, component k (1-based) of d (Sukhbaatar
// et al. 2015, sec. 4.1): (1 - j/J) - (k/d)(1 - 2j/J).
inline double position_weight(std::int64_t j, std::int64_t J, std::int64_t k, std::int64_t d) {
  const double a = static_cast<double>(j) / static_cast<double>(J);
  return (1.0 - a) - (static_cast<double>(k) / static_cast<double>(d)) * (1.0 - 2.0 * a);
}

// out[r, :] = sum_{j < len_r} l_j ⊙ table[ids[r, j], :] + temporal[time[r], :] (table and
// temporal (any rows) x dim; temporal may be null when rows.time is). position: l as above,
// else 1.
template <typename T>
void bag_of_words(const T* table, const T* temporal, const WordRows& rows, std::int64_t dim,
                  bool position, T* out);

// dtable[ids[r, j], :] += l_j ⊙ dout[r, :]; dtemporal[time[r], :] += dout[r, :] (dtemporal null:
// not wanted; dtable null likewise).
template <typename T>
void bag_of_words_backward(const T* dout, const WordRows& rows, std::int64_t dim, bool position,
                           T* dtable, T* dtemporal);

}  // namespace heed::kernels
