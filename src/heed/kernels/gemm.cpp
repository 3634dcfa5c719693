#include "heed/kernels/gemm.h"

#include <cblas.h>
#include <dnnl.h>
#include <omp.h>

#include <type_traits>

#include "heed/base/error.h"
#include "heed/kernels/bf16_products.h"
#include "heed/kernels/packed_weight.h"
#include "heed/kernels/reduce.h"

namespace heed::kernels {
namespace {
CBLAS_TRANSPOSE tr(bool t) { return t ? CblasTrans : CblasNoTrans; }
}  // namespace

template <>
void gemm<float>(const GemmOptions& o, bool ta, bool tb, std::int64_t M, std::int64_t N,
                 std::int64_t K, float alpha, const float* A, std::int64_t lda, const float* B,
                 std::int64_t ldb, float beta, float* C, std::int64_t ldc) {
  if (M == 0 || N == 0) return;
  if (o.packed_b && !ta && tb && alpha == 1.0f &&
      o.packed_b->gemm(M, N, K, A, lda, B, ldb, beta, C, ldc))
    return;
  if (o.precision == MatmulPrecision::bf16 &&
      gemm_bf16(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc))
    return;
  const dnnl_status_t st = dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', M, N, K, alpha, A, lda, B,
                                      ldb, beta, C, ldc);
  HEED_CHECK(st == dnnl_success, "gemm: oneDNN's sgemm failed (status ", static_cast<int>(st), ")");
}

template <>
void gemm<double>(const GemmOptions&, bool ta, bool tb, std::int64_t M, std::int64_t N,
                  std::int64_t K, double alpha, const double* A, std::int64_t lda, const double* B,
                  std::int64_t ldb, double beta, double* C, std::int64_t ldc) {
  if (M == 0 || N == 0) return;
  cblas_dgemm(CblasRowMajor, tr(ta), tr(tb), static_cast<blasint>(M), static_cast<blasint>(N),
              static_cast<blasint>(K), alpha, A, static_cast<blasint>(lda), B,
              static_cast<blasint>(ldb), beta, C, static_cast<blasint>(ldc));
}

template <typename T>
void gemm_batched(const GemmOptions& o, bool ta, bool tb, std::int64_t batch, std::int64_t M,
                  std::int64_t N, std::int64_t K, T alpha, const T* A, std::int64_t lda,
                  std::int64_t sa, const T* B, std::int64_t ldb, std::int64_t sb, T beta, T* C,
                  std::int64_t ldc, std::int64_t sc) {
  for (std::int64_t i = 0; i < batch; ++i)
    gemm<T>(o, ta, tb, M, N, K, alpha, A + i * sa, lda, B + i * sb, ldb, beta, C + i * sc, ldc);
}

template void gemm_batched<float>(const GemmOptions&, bool, bool, std::int64_t, std::int64_t,
                                  std::int64_t, std::int64_t, float, const float*, std::int64_t,
                                  std::int64_t, const float*, std::int64_t, std::int64_t, float,
                                  float*, std::int64_t, std::int64_t);
template void gemm_batched<double>(const GemmOptions&, bool, bool, std::int64_t, std::int64_t,
                                   std::int64_t, std::int64_t, double, const double*, std::int64_t,
                                   std::int64_t, const double*, std::int64_t, std::int64_t, double,
                                   double*, std::int64_t, std::int64_t);

template <typename T>
void affine_rows(const GemmOptions& o, std::int64_t rows, std::int64_t out, std::int64_t in,
                 const T* x, const T* W, const T* b, T* y) {
  if (rows == 0 || out == 0) return;
  if constexpr (std::is_same_v<T, float>) {
    if (b && o.packed_b && o.packed_b->gemm_bias(rows, out, in, x, in, W, in, b, y, out)) return;
  }
  T beta = 0;
  if (b) {
    broadcast_rows<T>(b, y, rows, out);
    beta = 1;
  }
  gemm<T>(o, false, true, rows, out, in, T(1), x, in, W, in, beta, y, out);
}

template void affine_rows<float>(const GemmOptions&, std::int64_t, std::int64_t, std::int64_t,
                                 const float*, const float*, const float*, float*);
template void affine_rows<double>(const GemmOptions&, std::int64_t, std::int64_t, std::int64_t,
                                  const double*, const double*, const double*, double*);

void set_num_threads(int n) {
  omp_set_num_threads(n);
  openblas_set_num_threads(n);
}

int num_threads() { return omp_get_max_threads(); }

}  // namespace heed::kernels
