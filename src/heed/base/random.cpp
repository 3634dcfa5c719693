#include "heed/base/random.h"

#include <cmath>
#include <sstream>

#include "heed/base/error.h"

namespace heed {

// Our own transforms rather than std::*_distribution, whose output differs between
// standard libraries; 53 random bits per double.
double Rng::uniform(double lo, double hi) {
  double u = static_cast<double>(engine_() >> 11) * 0x1.0p-53;
  return lo + (hi - lo) * u;
}

double Rng::normal(double mean, double stddev) {
  double u1 = 0.0;
  while (u1 <= 0.0) u1 = uniform();
  double u2 = uniform();
  return mean + stddev * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

std::uint64_t Rng::below(std::uint64_t n) {
  HEED_CHECK(n > 0, "Rng::below(0)");
  std::uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  std::uint64_t x;
  do x = engine_();
  while (x >= limit);
  return x % n;
}

std::string Rng::state() const {
  std::ostringstream os;
  os << engine_;
  return os.str();
}

void Rng::set_state(const std::string& state) {
  std::istringstream is(state);
  is >> engine_;
  HEED_CHECK(!is.fail(), "corrupt random generator state");
}

}  // namespace heed
