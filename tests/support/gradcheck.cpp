#include "support/gradcheck.h"

#include <cmath>
#include <sstream>

#include "heed/autograd/tape.h"
#include "heed/base/random.h"

namespace heed::testing {

Tensor random_tensor(const Shape& shape, std::uint64_t seed, double lo, double hi) {
  Rng rng(seed);
  std::vector<double> v(static_cast<std::size_t>(shape.numel()));
  for (auto& x : v) x = rng.uniform(lo, hi);
  return Tensor::from(shape, v, DType::f64);
}

std::vector<float> random_floats(std::size_t n, std::uint64_t seed, float lo, float hi) {
  Rng rng(seed);
  std::vector<float> v(n);
  for (auto& x : v) x = static_cast<float>(rng.uniform(lo, hi));
  return v;
}

Var random_var(const Shape& shape, std::uint64_t seed, double lo, double hi) {
  return Var(random_tensor(shape, seed, lo, hi), true);
}

namespace {
double weighted(const Tensor& y, const std::vector<double>& r) {
  std::vector<double> v = y.to_vector();
  double s = 0;
  for (std::size_t i = 0; i < v.size(); ++i) s += v[i] * r[i];
  return s;
}
}  // namespace

::testing::AssertionResult gradcheck(const std::function<Var()>& fn, std::vector<Var> inputs,
                                     GradcheckOptions opt) {
  for (auto& in : inputs) {
    if (in.dtype() != DType::f64) return ::testing::AssertionFailure() << "gradcheck needs f64";
    in.clear_grad();
    if (!in.requires_grad()) return ::testing::AssertionFailure() << "input without grad";
  }
  Tape::current().clear();
  Var y = fn();
  if (!y.requires_grad()) return ::testing::AssertionFailure() << "output does not require grad";
  Tensor seed = random_tensor(y.shape(), opt.seed);
  std::vector<double> r = seed.to_vector();
  Tape::current().backward(y, seed);

  std::ostringstream failures;
  int bad = 0;
  NoGradGuard no_grad;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    Var& in = inputs[k];
    Tensor analytic = in.has_grad() ? in.grad() : Tensor::zeros_like(in.value());
    std::vector<double> g = analytic.to_vector();
    Tensor& x = in.mutable_value();
    HEED_CHECK(x.is_contiguous(), "gradcheck input must be contiguous");
    double* p = x.data<double>();
    for (std::int64_t i = 0; i < x.numel(); ++i) {
      double orig = p[i];
      p[i] = orig + opt.step;
      double fp = weighted(fn().value(), r);
      p[i] = orig - opt.step;
      double fm = weighted(fn().value(), r);
      p[i] = orig;
      double numeric = (fp - fm) / (2 * opt.step);
      double a = g[static_cast<std::size_t>(i)];
      if (!(std::abs(a - numeric) <= opt.atol + opt.rtol * std::abs(numeric))) {
        if (bad++ < 8)
          failures << "\n  input " << k << " " << x.shape().str() << " element " << i
                   << ": analytic " << a << " numeric " << numeric;
      }
    }
  }
  if (bad) return ::testing::AssertionFailure() << bad << " gradient mismatches:" << failures.str();
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult all_close(const Tensor& a, const Tensor& b, double atol, double rtol) {
  if (a.shape() != b.shape())
    return ::testing::AssertionFailure()
           << "shapes differ: " << a.shape().str() << " vs " << b.shape().str();
  std::vector<double> x = a.to_vector(), y = b.to_vector();
  for (std::size_t i = 0; i < x.size(); ++i)
    if (!(std::abs(x[i] - y[i]) <= atol + rtol * std::abs(y[i])))
      return ::testing::AssertionFailure() << "element " << i << ": " << x[i] << " vs " << y[i];
  return ::testing::AssertionSuccess();
}

}  // namespace heed::testing
