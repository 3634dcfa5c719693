#pragma once
// The look the heat maps share, whether written as SVG text (heatmap_svg.h) or drawn with
// cairo (attention_picture.h): sizes in px, label lengths, and the colour bar's tick labels.
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <string>

namespace heed::viz::heatmap_style {

inline constexpr double kMargin = 16.0;
inline constexpr double kTitleFont = 15.0;
inline constexpr double kSubtitleFont = 11.5;
inline constexpr double kPanelTitleFont = 13.0;
inline constexpr double kTickFont = 10.0;
inline constexpr double kBarWidth = 14.0;
inline constexpr double kBarMinHeight = 110.0;
inline constexpr double kPanelGap = 36.0;
inline constexpr std::size_t kMaxLabel = 24;   // code points in a token label
inline constexpr std::size_t kMaxTitle = 140;  // code points in the title and subtitle

// A colour bar tick: 3 significant digits ("0.25", "1.61"), never "-0".
inline std::string tick_value(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", std::abs(v) < 1e-12 ? 0.0 : v);
  return buf;
}

}  // namespace heed::viz::heatmap_style
