#include "heed/viz/speech_report_html.h"

#include <cstdio>
#include <string_view>

#include "heed/viz/html_page.h"
#include "heed/viz/svg_text.h"

namespace heed::viz {
namespace {

// The page's style, after html_page_start's.
constexpr std::string_view kStyle = R"css(  .meta { color: #555; font-size: .9em; margin: .1em 0; }
  .score { font-size: 1.05em; margin: .6em 0 1em; }
  figure { margin: 0 0 1.2em; border: 1px solid #ddd; border-radius: 4px; padding: .5em; }
  figure.wrong { border-color: #c0392b; background: #fdf2f1; }
  figure.right { border-color: #9bc7a4; }
  figure img { max-width: 100%; height: auto; display: block; }
  figcaption { font-size: .95em; margin-bottom: .4em; }
  .transcript { font-family: monospace; font-size: 1.1em; }
  .verdict { font-weight: bold; }
  .right .verdict { color: #1a7f37; }
  .wrong .verdict { color: #b3261e; }
)css";

}  // namespace

std::string speech_report_html(const SpeechReportInfo& info,
                               const std::vector<SpeechReportItem>& items) {
  std::string s = html_page_start(info.title, kStyle);
  s += "<h1>" + xml_escape(info.title) + "</h1>\n";
  for (const auto& f : info.facts) s += "<p class=\"meta\">" + xml_escape(f) + "</p>\n";
  std::size_t known = 0, wrong = 0;
  for (const auto& it : items) {
    if (it.reference.empty()) continue;
    ++known;
    wrong += it.transcript != it.reference;
  }
  s += "<p class=\"score\">";
  const std::string n = std::to_string(items.size()) +
                        (items.size() == 1 ? " utterance" : " utterances");
  if (known == 0) {
    s += xml_escape(n + ", no reference transcripts (give a manifest): no error to give");
  } else {
    char error[32];
    std::snprintf(error, sizeof error, "%.2f",
                  100.0 * static_cast<double>(wrong) / static_cast<double>(known));
    s += "<b>" + std::to_string(wrong) + " of " + std::to_string(known) +
         " transcripts wrong: string error " + error + "%</b> (" + xml_escape(n) + " shown)";
  }
  s += "</p>\n";
  for (const auto& it : items) {
    const bool has_ref = !it.reference.empty();
    const bool right = has_ref && it.transcript == it.reference;
    s += "<figure";
    if (has_ref) s += right ? " class=\"right\"" : " class=\"wrong\"";
    s += "><figcaption><b>" + xml_escape(it.name) + "</b><br>transcript <span class=\"transcript\">" +
         xml_escape(it.transcript.empty() ? "(nothing)" : it.transcript) + "</span>";
    if (has_ref)
      s += " \xC2\xB7 reference <span class=\"transcript\">" + xml_escape(it.reference) +
           "</span> <span class=\"verdict\">" +
           (right ? "\xE2\x9C\x93 right" : "\xE2\x9C\x97 wrong") + "</span>";
    s += "</figcaption>\n<a href=\"" + xml_escape(it.svg.empty() ? it.png : it.svg) +
         "\"><img src=\"" + xml_escape(it.png) + "\" alt=\"" + xml_escape(it.name) +
         "\" loading=\"lazy\"></a></figure>\n";
  }
  s += "</body>\n</html>\n";
  return s;
}

}  // namespace heed::viz
