#include "heed/viz/attention_plot.h"

#include <cstdio>

#include "heed/viz/svg_text.h"

namespace heed::viz {
namespace {

std::string join(const std::vector<std::string>& tokens) {
  std::string s;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (i) s += ' ';
    s += tokens[i];
  }
  return s;
}

std::string format_score(double score) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", score);
  return buf;
}

}  // namespace

HeatmapPanel attention_panel(const AttentionRecord& r) {
  HeatmapPanel p;
  p.columns = r.source;
  p.rows = r.output;
  p.values = r.alpha;
  return p;
}

HeatmapOptions attention_plot_options(const AttentionRecord& r, bool show_values) {
  HeatmapOptions o;
  o.title = "Sentence " + std::to_string(r.index);
  if (r.model) o.title += " \xC2\xB7 " + *r.model;
  if (r.score) o.title += " \xC2\xB7 score " + format_score(*r.score);
  o.subtitle = "rows: output tokens, columns: source tokens";
  o.show_values = show_values;
  return o;
}

std::string attention_svg(const AttentionRecord& r, bool show_values) {
  return heatmap_svg(attention_panel(r), attention_plot_options(r, show_values));
}

std::string attention_svg_name(const AttentionRecord& r) {
  return "attention_" + std::to_string(r.index) + ".svg";
}

std::string attention_index_html(const std::vector<AttentionRecord>& records,
                                 const std::string& source_file) {
  std::string s;
  s += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  s += "<title>Attention: " + xml_escape(source_file) + "</title>\n";
  s += "<style>\n"
       "body { font-family: 'DejaVu Sans', Verdana, Arial, sans-serif; margin: 2em; "
       "color: #222; }\n"
       "section { margin-bottom: 2.5em; border-top: 1px solid #ddd; padding-top: 1em; }\n"
       "dl { display: grid; grid-template-columns: max-content auto; gap: 0.2em 1em; }\n"
       "dt { color: #666; } dd { margin: 0; }\n"
       "img { max-width: 100%; height: auto; }\n"
       "</style>\n</head>\n<body>\n";
  s += "<h1>Attention heat maps</h1>\n<p>From <code>" + xml_escape(source_file) + "</code>: " +
       std::to_string(records.size()) + (records.size() == 1 ? " sentence" : " sentences") +
       ". Rows are output tokens, columns source tokens; each row shows where the model looked "
       "while emitting that token. Open an image on its own to see each weight on hover.</p>\n";
  s += "<nav><p>";
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (i) s += " \xC2\xB7 ";
    const std::string id = std::to_string(records[i].index);
    s += "<a href=\"#s" + id + "\">" + id + "</a>";
  }
  s += "</p></nav>\n";
  for (const auto& r : records) {
    const std::string id = std::to_string(r.index);
    const std::string file = attention_svg_name(r);
    s += "<section id=\"s" + id + "\">\n<h2>Sentence " + id + "</h2>\n<dl>\n";
    s += "<dt>source</dt><dd>" + xml_escape(join(r.source)) + "</dd>\n";
    s += "<dt>output</dt><dd>" + xml_escape(join(r.output)) + "</dd>\n";
    if (r.score) s += "<dt>score</dt><dd>" + format_score(*r.score) + "</dd>\n";
    if (r.model) s += "<dt>model</dt><dd>" + xml_escape(*r.model) + "</dd>\n";
    s += "</dl>\n<a href=\"" + file + "\"><img src=\"" + file + "\" alt=\"attention of sentence " +
         id + "\" loading=\"lazy\"></a>\n</section>\n";
  }
  s += "</body>\n</html>";
  return s;
}

}  // namespace heed::viz
