#include "heed/viz/colormap.h"

#include <array>
#include <cmath>
#include <cstdio>

namespace heed::viz {
namespace {

// viridis at t = 0, 0.1, ..., 1 (the d3 / R viridis(11) values).
constexpr std::array<std::uint32_t, 11> kViridis = {0x440154, 0x482475, 0x414487, 0x355f8d,
                                                    0x2a788e, 0x21918c, 0x22a884, 0x44bf70,
                                                    0x7ad151, 0xbddf26, 0xfde725};

// magma at t = 0, 0.1, ..., 1 (the d3 / R magma(11) values).
constexpr std::array<std::uint32_t, 11> kMagma = {0x000004, 0x140e36, 0x3b0f70, 0x641a80,
                                                  0x8c2981, 0xb73779, 0xde4968, 0xf7705c,
                                                  0xfe9f6d, 0xfecf92, 0xfcfdbf};

// Okabe & Ito (2008): blue, vermillion, bluish green, reddish purple, orange, sky blue, black.
constexpr std::array<std::uint32_t, 7> kCategorical = {0x0072b2, 0xd55e00, 0x009e73, 0xcc79a7,
                                                       0xe69f00, 0x56b4e9, 0x000000};

double channel(std::uint32_t rgb, int shift) { return static_cast<double>((rgb >> shift) & 0xff); }

double linear(double c8) {
  const double c = c8 / 255.0;
  return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}

// t in [0, 1] (clamped, NaN as 0) interpolated linearly between the stops of a table.
Rgb interpolate(const std::array<std::uint32_t, 11>& stops, double t) {
  if (!(t > 0.0)) t = 0.0;  // also catches NaN
  if (t > 1.0) t = 1.0;
  const double pos = t * static_cast<double>(stops.size() - 1);
  std::size_t i = static_cast<std::size_t>(pos);
  if (i >= stops.size() - 1) i = stops.size() - 2;
  const double f = pos - static_cast<double>(i);
  auto mix = [&](int shift) {
    const double v = channel(stops[i], shift) * (1.0 - f) + channel(stops[i + 1], shift) * f;
    return static_cast<std::uint8_t>(std::lround(v));
  };
  return Rgb{mix(16), mix(8), mix(0)};
}

}  // namespace

Rgb viridis(double t) { return interpolate(kViridis, t); }

Rgb magma(double t) { return interpolate(kMagma, t); }

Rgb categorical(std::size_t i) {
  const std::uint32_t c = kCategorical[i % kCategorical.size()];
  return Rgb{static_cast<std::uint8_t>(c >> 16), static_cast<std::uint8_t>(c >> 8),
             static_cast<std::uint8_t>(c)};
}

std::string hex(Rgb c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c.r, c.g, c.b);
  return buf;
}

double luminance(Rgb c) {
  return 0.2126 * linear(c.r) + 0.7152 * linear(c.g) + 0.0722 * linear(c.b);
}

}  // namespace heed::viz
