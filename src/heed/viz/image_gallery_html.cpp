#include "heed/viz/image_gallery_html.h"

#include <cstdio>
#include <string_view>

#include "heed/viz/html_page.h"
#include "heed/viz/svg_text.h"

namespace heed::viz {
namespace {

// The page's style, after html_page_start's.
constexpr std::string_view kStyle = R"css(  .meta { color: #555; font-size: .9em; margin: .1em 0; }
  .score { font-size: 1.05em; margin: .6em 0 1em; }
  .grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(250px, 1fr)); gap: 1em; }
  figure { margin: 0; border: 1px solid #ddd; border-radius: 4px; padding: .5em; }
  figure.wrong { border-color: #c0392b; background: #fdf2f1; }
  figure.right { border-color: #9bc7a4; }
  figure img { width: 100%; height: auto; display: block; }
  figcaption { font-size: .9em; margin-top: .3em; }
  .verdict { font-weight: bold; }
  .right .verdict { color: #1a7f37; }
  .wrong .verdict { color: #b3261e; }
)css";

std::string percent(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

}  // namespace

std::string gallery_html(const GalleryInfo& info, const std::vector<GalleryImage>& images) {
  std::string s = html_page_start(info.title, kStyle);
  s += "<h1>" + xml_escape(info.title) + "</h1>\n";
  for (const auto& f : info.facts) s += "<p class=\"meta\">" + xml_escape(f) + "</p>\n";
  std::size_t labelled = 0, wrong = 0;
  for (const auto& im : images) {
    if (im.label.empty()) continue;
    ++labelled;
    wrong += im.prediction != im.label;
  }
  s += "<p class=\"score\">";
  if (labelled == 0) {
    s += xml_escape(std::to_string(images.size()) + (images.size() == 1 ? " image" : " images") +
                    ", no labels: no error to give");
  } else {
    s += "<b>" + std::to_string(wrong) + " of " + std::to_string(labelled) +
         " wrong: error " + percent(100.0 * static_cast<double>(wrong) /
                                    static_cast<double>(labelled)) +
         "%</b> on the images shown";
  }
  s += "</p>\n<div class=\"grid\">\n";
  for (const auto& im : images) {
    const bool known = !im.label.empty();
    const bool right = known && im.prediction == im.label;
    s += "<figure";
    if (known) s += right ? " class=\"right\"" : " class=\"wrong\"";
    s += "><a href=\"" + xml_escape(im.svg.empty() ? im.png : im.svg) + "\"><img src=\"" +
         xml_escape(im.png) + "\" alt=\"" + xml_escape(im.name) + "\" loading=\"lazy\"></a>\n";
    s += "<figcaption><b>" + xml_escape(im.name) + "</b>";
    if (known) s += " \xC2\xB7 label " + xml_escape(im.label);
    s += " \xC2\xB7 predicted " + xml_escape(im.prediction);
    if (known) s += std::string(" <span class=\"verdict\">") + (right ? "\xE2\x9C\x93 right" : "\xE2\x9C\x97 wrong") + "</span>";
    s += "</figcaption></figure>\n";
  }
  s += "</div>\n</body>\n</html>\n";
  return s;
}

}  // namespace heed::viz
