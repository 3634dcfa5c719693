#pragma once
// Viridis, the perceptually uniform sequential colour scale (matplotlib's default), and magma,
// as 11-stop tables with linear interpolation between stops: close enough to the 256-entry
// original that the eye cannot tell, and small enough to read. Also a categorical palette
// for lines in charts.
#include <cstddef>
#include <cstdint>
#include <string>

namespace heed::viz {

struct Rgb {
  std::uint8_t r = 0, g = 0, b = 0;
  bool operator==(const Rgb&) const = default;
};

// t in [0, 1] (clamped; NaN maps to 0): dark purple #440154 at 0, yellow #fde725 at 1.
Rgb viridis(double t);
// Magma, viridis' sibling from black through purple and orange to pale yellow, for what
// viridis would be confused with on one page (a spectrogram under viridis attention rows):
// t in [0, 1] (clamped; NaN maps to 0), #000004 at 0, #fcfdbf at 1.
Rgb magma(double t);
// Colours for lines that must be told apart (one per system in a chart): the Okabe-Ito
// palette, distinguishable by colour-blind readers, without its yellow (too pale on white);
// i cycles through its 7 colours.
Rgb categorical(std::size_t i);
// "#rrggbb"
std::string hex(Rgb c);
// Relative luminance in [0, 1] (sRGB, WCAG); decides black or white text over a colour.
double luminance(Rgb c);

}  // namespace heed::viz
