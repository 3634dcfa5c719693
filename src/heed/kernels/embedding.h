#pragma once
// Embedding lookup: gather rows of a (num x dim) table by id, and its adjoint, the
// scatter-add of output gradients back into the table's gradient. Ids are checked by the
// caller.
#include <cstdint>

namespace heed::kernels {

// out[i, :] = weight[ids[i], :]
template <typename T>
void embedding_lookup(const T* weight, const std::int32_t* ids, std::int64_t n, std::int64_t dim,
                      T* out);

// dweight[ids[i], :] += dout[i, :] for every i with ids[i] != skip_id (padding_idx; pass
// a negative id to skip nothing).
template <typename T>
void scatter_add_rows(const T* dout, const std::int32_t* ids, std::int64_t n, std::int64_t dim,
                      std::int64_t skip_id, T* dweight);

}  // namespace heed::kernels
