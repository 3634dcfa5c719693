#include "heed/kernels/onednn.h"

#include <cstring>

namespace heed::kernels {

dnnl::engine& onednn_engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

void store_rows(const float* D, std::int64_t rows, std::int64_t cols, float beta, float* C,
                std::int64_t ldc) {
  for (std::int64_t i = 0; i < rows; ++i) {
    const float* from = D + i * cols;
    float* to = C + i * ldc;
    if (beta == 0.0f)
      std::memcpy(to, from, static_cast<std::size_t>(cols) * sizeof(float));
    else
      for (std::int64_t j = 0; j < cols; ++j) to[j] += from[j];
  }
}

}  // namespace heed::kernels
