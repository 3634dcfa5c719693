#include "heed/audio/noise.h"

#include <array>
#include <bit>
#include <cmath>

namespace heed {
namespace {

constexpr int kPinkRows = 16;

}  // namespace

std::vector<double> make_noise(NoiseKind kind, std::size_t n, Rng& rng) {
  std::vector<double> out(n);
  if (kind == NoiseKind::white) {
    for (double& x : out) x = rng.normal();
  } else {
    std::array<double, kPinkRows> rows{};
    double sum = 0;
    for (double& r : rows) sum += (r = rng.normal());
    for (std::size_t i = 0; i < n; ++i) {
      if (i > 0) {
        // Row r changes at every sample whose index has r trailing zero bits: every 2^r.
        const int r = std::countr_zero(static_cast<std::uint64_t>(i));
        if (r < kPinkRows) {
          sum -= rows[r];
          sum += (rows[r] = rng.normal());
        }
      }
      out[i] = sum + rng.normal();
    }
  }
  if (n == 0) return out;
  double mean = 0;
  for (double x : out) mean += x;
  mean /= static_cast<double>(n);
  double power = 0;
  for (double& x : out) {
    x -= mean;
    power += x * x;
  }
  power /= static_cast<double>(n);
  const double scale = power > 0 ? 1.0 / std::sqrt(power) : 0.0;
  for (double& x : out) x *= scale;
  return out;
}

}  // namespace heed
