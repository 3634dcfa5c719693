#include "heed/viz/memory_hops_picture.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "heed/base/error.h"
#include "heed/base/utf8.h"
#include "heed/viz/cairo_drawing.h"
#include "heed/viz/colormap.h"
#include "heed/viz/heatmap_style.h"
#include "heed/viz/svg_text.h"

namespace heed::viz {

namespace {

using namespace cairo_drawing;
using namespace heatmap_style;

constexpr double kRowHeight = 22.0;
constexpr double kCellWidth = 52.0;
constexpr double kTextFont = 12.0;
constexpr double kMark = 18.0;  // the column of the supporting-fact marks
constexpr std::size_t kMaxStatement = 64;  // code points of a statement shown
constexpr const char* kFooter =
    "\xE2\x97\x86 supporting fact  \xC2\xB7  statements numbered in story order, questions left out"
    "  \xC2\xB7  cells: each hop's attention";

// Where everything goes, measured once for both surfaces.
struct Layout {
  std::string title, question, answer_line;
  std::vector<std::string> numbers, statements;
  double number_w = 0, text_w = 0, width = 0, height = 0;
  double title_y = 0, question_y = 0, answer_y = 0, header_y = 0, top = 0, cells_x = 0, bar_x = 0;
  double weight_max = 1.0;  // the colour scale's top: 1, or the largest weight (linear start)
};

std::string two_digits(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

Layout layout(const MemoryHopsPicture& p) {
  Measure m;
  cairo_t* cr = m.get();
  Layout L;
  L.title = label_text(p.title, kMaxTitle);
  L.question = label_text("Q: " + p.question, kMaxTitle);
  std::string a = "A: " + p.answer + "  (p = " + two_digits(p.probability) + ")";
  if (!p.expected.empty())
    a += p.expected == p.answer ? "  \xE2\x9C\x93 correct" : "  \xE2\x9C\x97 expected " + p.expected;
  L.answer_line = label_text(a, kMaxTitle);
  for (std::size_t i = 0; i < p.statements.size(); ++i) {
    L.numbers.push_back(std::to_string(p.first_number + i));
    L.statements.push_back(label_text(p.statements[i], kMaxStatement));
    L.number_w = std::max(L.number_w, advance(cr, L.numbers.back(), kTextFont));
    const bool bold = i < p.supporting.size() && p.supporting[i];  // supporting facts: bold
    L.text_w = std::max(L.text_w, advance(cr, L.statements.back(), kTextFont, bold));
  }
  for (const auto& hop : p.hops)
    for (double w : hop) L.weight_max = std::max(L.weight_max, w);
  L.title_y = kMargin + kTitleFont;
  L.question_y = L.title_y + 10.0 + kSubtitleFont + 2.0;
  L.answer_y = L.question_y + kSubtitleFont + 8.0;
  L.header_y = L.answer_y + 22.0;
  L.top = L.header_y + 8.0;
  L.cells_x = kMargin + kMark + L.number_w + 8.0 + L.text_w + 12.0;
  const double cells_w = kCellWidth * static_cast<double>(p.hops.size());
  L.bar_x = L.cells_x + cells_w + 18.0;
  const double rows_h = kRowHeight * static_cast<double>(std::max<std::size_t>(p.statements.size(), 1));
  const double right = L.bar_x + kBarWidth + colour_bar_labels_width(cr, L.weight_max);
  L.width = std::ceil(std::max({right, kMargin + advance(cr, L.title, kTitleFont, true),
                                kMargin + advance(cr, L.question, kSubtitleFont),
                                kMargin + advance(cr, L.answer_line, kSubtitleFont, true),
                                kMargin + advance(cr, kFooter, kTickFont)}) +
                      kMargin);
  L.height = std::ceil(L.top + std::max(rows_h, kBarMinHeight) + kMargin + 14.0);
  return L;
}

void draw(cairo_t* cr, const MemoryHopsPicture& p, const Layout& L) {
  set_rgb(cr, {255, 255, 255});
  cairo_paint(cr);
  set_rgb(cr, {20, 20, 20});
  text_at(cr, kMargin, L.title_y, L.title, kTitleFont, true);
  text_at(cr, kMargin, L.question_y, L.question, kSubtitleFont);
  const bool wrong = !p.expected.empty() && p.expected != p.answer;
  set_rgb(cr, wrong ? Rgb{180, 30, 30} : Rgb{20, 110, 40});
  text_at(cr, kMargin, L.answer_y, L.answer_line, kSubtitleFont, true);
  set_rgb(cr, {20, 20, 20});
  for (std::size_t k = 0; k < p.hops.size(); ++k) {
    const std::string h = "hop " + std::to_string(k + 1);
    const double cx = L.cells_x + kCellWidth * (static_cast<double>(k) + 0.5);
    text_at(cr, cx - advance(cr, h, kTickFont, true) / 2, L.header_y, h, kTickFont, true);
  }
  for (std::size_t i = 0; i < p.statements.size(); ++i) {
    const double y = L.top + kRowHeight * static_cast<double>(i);
    const double base = y + kRowHeight / 2 + kTextFont * 0.35;
    const bool support = i < p.supporting.size() && p.supporting[i];
    if (support) {  // a supporting fact: a mark and its text in bold
      set_rgb(cr, {200, 60, 20});
      text_at(cr, kMargin, base, "\xE2\x97\x86", kTextFont, true);
    }
    set_rgb(cr, {110, 110, 110});
    text_at(cr, kMargin + kMark + L.number_w - advance(cr, L.numbers[i], kTextFont), base,
            L.numbers[i], kTextFont);
    set_rgb(cr, {20, 20, 20});
    text_at(cr, kMargin + kMark + L.number_w + 8.0, base, L.statements[i], kTextFont, support);
    for (std::size_t k = 0; k < p.hops.size(); ++k) {
      const double w = p.hops[k][i];
      const Rgb c = viridis(std::clamp(w / L.weight_max, 0.0, 1.0));
      const double x = L.cells_x + kCellWidth * static_cast<double>(k);
      set_rgb(cr, c);
      cairo_rectangle(cr, x + 1, y + 1, kCellWidth - 2, kRowHeight - 2);
      cairo_fill(cr);
      const std::string v = two_digits(w);
      set_rgb(cr, luminance(c) > 0.5 ? Rgb{20, 20, 20} : Rgb{245, 245, 245});
      text_at(cr, x + kCellWidth / 2 - advance(cr, v, kTickFont) / 2, base, v, kTickFont);
    }
  }
  colour_bar(cr, L.bar_x, L.top,
             std::max(kRowHeight * static_cast<double>(p.statements.size()), kBarMinHeight),
             L.weight_max);
  set_rgb(cr, {110, 110, 110});
  text_at(cr, kMargin, L.height - kMargin + 4.0,
          kFooter, kTickFont);
}

}  // namespace

void check_memory_hops_picture(const MemoryHopsPicture& p) {
  HEED_CHECK(p.supporting.empty() || p.supporting.size() == p.statements.size(),
             "memory hops picture: ", p.supporting.size(), " supporting marks for ",
             p.statements.size(), " statements");
  for (std::size_t k = 0; k < p.hops.size(); ++k) {
    HEED_CHECK(p.hops[k].size() == p.statements.size(), "memory hops picture: hop ", k + 1,
               " has ", p.hops[k].size(), " weights for ", p.statements.size(), " statements");
    for (double w : p.hops[k])
      HEED_CHECK(std::isfinite(w), "memory hops picture: hop ", k + 1, " has a weight that is "
                 "not finite");
  }
}

std::string memory_hops_svg(const MemoryHopsPicture& p, const std::string& id_prefix) {
  check_memory_hops_picture(p);
  const Layout L = layout(p);
  return render_svg(L.width, L.height, [&](cairo_t* cr) { draw(cr, p, L); }, p.title,
                    "Q: " + p.question + " A: " + p.answer, id_prefix);
}

std::string memory_hops_png(const MemoryHopsPicture& p, double scale) {
  check_memory_hops_picture(p);
  const Layout L = layout(p);
  return render_png(L.width, L.height, scale, [&](cairo_t* cr) { draw(cr, p, L); });
}

}  // namespace heed::viz
