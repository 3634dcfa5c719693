#include "support/golden.h"

#include <algorithm>
#include <cmath>

namespace heed::testing {

SafeTensorsFile load_golden(const std::string& name) {
  return load_safetensors(std::string(HEED_GOLDEN_DIR) + "/" + name + ".safetensors");
}

NamedTensors golden_group(const SafeTensorsFile& golden, const std::string& prefix) {
  NamedTensors out;
  for (const auto& [name, t] : golden.tensors)
    if (name.rfind(prefix, 0) == 0) out.emplace_back(name.substr(prefix.size()), t);
  return out;
}

::testing::AssertionResult close_to_golden(const Tensor& actual, const Tensor& ref,
                                           const std::string& name, double tol) {
  if (!actual.defined()) return ::testing::AssertionFailure() << name << ": undefined tensor";
  if (actual.shape() != ref.shape())
    return ::testing::AssertionFailure() << name << ": shape " << actual.shape().str()
                                         << ", golden " << ref.shape().str();
  const auto a = actual.to_vector();
  const auto b = ref.to_vector();
  double ref_max = 0.0;
  for (double v : b) ref_max = std::max(ref_max, std::abs(v));
  const double bound = tol * (1.0 + ref_max);
  double worst = 0.0;
  std::size_t worst_i = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double d = std::abs(a[i] - b[i]);
    if (!(d <= worst)) {  // NaN counts as the worst
      worst = d;
      worst_i = i;
    }
  }
  if (worst <= bound) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << name << ": max |actual - golden| = " << worst << " > " << bound << " at flat index "
         << worst_i << " (actual " << a[worst_i] << ", golden " << b[worst_i] << ")";
}

void expect_close_to_golden(const Tensor& actual, const Tensor& ref, const std::string& name,
                            double tol) {
  EXPECT_TRUE(close_to_golden(actual, ref, name, tol));
}

}  // namespace heed::testing
