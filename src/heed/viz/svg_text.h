#pragma once
// Text for SVG and HTML: escaping that always yields well-formed XML, and a width estimate
// for laying out labels without font metrics (a renderer's sans-serif within ~15%).
#include <cstddef>
#include <string>
#include <string_view>

namespace heed::viz {

// Escapes & < > " ' as entities. Invalid UTF-8 bytes and the control characters XML 1.0
// forbids become U+FFFD, so any token, even a broken one, gives a parseable document.
std::string xml_escape(std::string_view text);

// Estimated advance width in px of text at font_size px in a sans-serif font: per code
// point, narrow Latin letters ~0.35 em, most ~0.6 em, wide ones ~0.9 em, East Asian wide
// characters and emoji 1 em, combining marks 0.
double text_width(std::string_view text, double font_size);

// A token as a label: at most max_code_points code points (longer ones end in "…"),
// the empty token as "∅" and an all-whitespace token as "␣".
std::string label_text(std::string_view token, std::size_t max_code_points);

// A coordinate or length with at most one decimal ("12", "3.5", never "-0"): plenty at
// screen resolution, and short files.
std::string svg_number(double v);

}  // namespace heed::viz
