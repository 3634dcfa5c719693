#include "heed/autograd/gaussian_op.h"

#include <cmath>

#include "heed/autograd/tape.h"
#include "heed/kernels/gaussian.h"

namespace heed {

Tensor gaussian_sample(const Var& mean, double sigma, Rng& rng) {
  HEED_CHECK(mean.value().ndim() == 2, "gaussian_sample: mean must be (N, D), got ",
             mean.shape().str());
  HEED_CHECK(std::isfinite(sigma) && sigma > 0, "gaussian_sample: sigma ", sigma,
             " must be positive");
  std::vector<double> v = mean.value().to_vector();
  for (double& x : v) x = rng.normal(x, sigma);
  return Tensor::from(mean.shape(), v, mean.dtype());
}

Var gaussian_log_prob(const Var& mean, const Tensor& sample, double sigma) {
  const Tensor mv = mean.value().contiguous();
  HEED_CHECK(mv.ndim() == 2, "gaussian_log_prob: mean must be (N, D), got ", mv.shape().str());
  check_shape(sample, mv.shape(), "gaussian_log_prob sample");
  HEED_CHECK(std::isfinite(sigma) && sigma > 0, "gaussian_log_prob: sigma ", sigma,
             " must be positive");
  const Tensor x = sample.to(mv.dtype()).contiguous();
  const std::int64_t rows = mv.dim(0), D = mv.dim(1);
  Tensor lp = Tensor::empty(Shape{rows}, mv.dtype());
  dispatch(mv.dtype(), [&]<typename T>() {
    kernels::gaussian_log_prob_rows<T>(x.data<T>(), mv.data<T>(), static_cast<T>(sigma),
                                       lp.data<T>(), rows, D);
  });
  return record_op(lp, {&mean}, [mean, mv, x, sigma, rows, D](Var& o) {
    if (!mean.requires_grad()) return;
    dispatch(o.dtype(), [&]<typename T>() {
      kernels::gaussian_log_prob_rows_backward<T>(x.data<T>(), mv.data<T>(),
                                                  static_cast<T>(sigma), o.grad().data<T>(),
                                                  mean.grad_buffer().data<T>(), rows, D);
    });
  });
}

}  // namespace heed
