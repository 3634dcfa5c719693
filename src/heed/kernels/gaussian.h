#pragma once
// The log-density of an isotropic Gaussian, row by row: the location policy of hard
// attention on images (docs/MODELS.md, "Location policy"). For rows of D values,
//   log N(x; mu, sigma^2 I) = -sum_d (x_d - mu_d)^2 / (2 sigma^2) - D log sigma - D/2 log(2 pi).
#include <cstdint>

namespace heed::kernels {

template <typename T>
void gaussian_log_prob_rows(const T* x, const T* mu, T sigma, T* log_prob, std::int64_t rows,
                            std::int64_t D);

// dmu += dlog_prob[r] (x - mu) / sigma^2 (the gradient w.r.t. the mean only).
template <typename T>
void gaussian_log_prob_rows_backward(const T* x, const T* mu, T sigma, const T* dlog_prob, T* dmu,
                                     std::int64_t rows, std::int64_t D);

}  // namespace heed::kernels
