#include "heed/viz/history_charts.h"

#include <cmath>
#include <cstdio>
#include <functional>

#include "heed/base/error.h"
#include "heed/viz/html_page.h"
#include "heed/viz/line_chart_picture.h"
#include "heed/viz/svg_text.h"

namespace heed::viz {
namespace {

std::string metric_title(const std::string& m) {
  if (m == "bleu") return "dev BLEU";
  if (m == "wer") return "dev WER %";
  if (m == "error") return "dev sequence error %";
  return "dev " + m;
}

// Seconds shown in the unit that keeps the ticks readable for the longest run.
struct TimeUnit {
  double divisor;
  const char* title;
};
TimeUnit time_unit(const std::vector<TrainingHistory>& runs) {
  double longest = 0;
  for (const auto& r : runs)
    for (const auto& p : r.points)
      if (std::isfinite(p.seconds)) longest = std::max(longest, p.seconds);
  if (longest > 3 * 3600) return {3600, "time (hours)"};
  if (longest > 300) return {60, "time (minutes)"};
  return {1, "time (seconds)"};
}

using Value = std::function<double(const HistoryPoint&)>;

// One series of a run: its points where both x and y are known.
LineSeries series(const TrainingHistory& run, const std::string& label, const Value& x,
                  const Value& y) {
  LineSeries s;
  s.label = label;
  for (const auto& p : run.points) {
    const double xv = x(p), yv = y(p);
    if (!std::isfinite(xv) || !std::isfinite(yv)) continue;
    s.x.push_back(xv);
    s.y.push_back(yv);
  }
  return s;
}

std::string fmt(const char* f, double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

}  // namespace

std::vector<HistoryChart> history_charts(const std::vector<TrainingHistory>& runs) {
  HEED_CHECK(!runs.empty(), "history charts: no run");
  const TimeUnit unit = time_unit(runs);
  struct Axis {
    const char* suffix;
    std::string title;
    Value x;
  };
  const Axis axes[] = {
      {"by_step", "step", [](const HistoryPoint& p) { return static_cast<double>(p.step); }},
      {"by_time", unit.title, [unit](const HistoryPoint& p) { return p.seconds / unit.divisor; }}};
  std::string metric;  // the runs' metric when they agree; otherwise each label names its own
  bool mixed = false;
  for (const auto& r : runs) {
    if (r.metric.empty()) continue;
    if (!metric.empty() && metric != r.metric) mixed = true;
    if (metric.empty()) metric = r.metric;
  }
  const bool several = runs.size() > 1;
  std::vector<HistoryChart> out;
  for (const Axis& a : axes) {
    auto chart = [&](const std::string& what, const std::string& y_title) {
      LineChart c;
      c.title = what + (std::string(a.suffix) == "by_step" ? " against steps" : " against time");
      c.x_title = a.title;
      c.y_title = y_title;
      return c;
    };
    // Keeps a chart only when some series has a point: a run without seconds has no time axis.
    auto keep = [&](const std::string& stem, LineChart c) {
      std::vector<LineSeries> kept;
      for (auto& s : c.series)
        if (!s.y.empty()) kept.push_back(std::move(s));
      if (kept.empty()) return;
      c.series = std::move(kept);
      out.push_back({stem + "_" + a.suffix, std::move(c)});
    };
    LineChart loss = chart("loss", "loss (nats per token)");
    LineChart lr = chart("learning rate", "learning rate");
    LineChart met = chart(mixed ? std::string("dev metric") : metric_title(metric),
                          mixed ? "dev metric" : metric_title(metric));
    for (std::size_t k = 0; k < runs.size(); ++k) {
      const TrainingHistory& r = runs[k];
      const std::string name = several ? r.dir + ": " : "";
      LineSeries dev = series(r, name + "dev loss", a.x, [](const HistoryPoint& p) { return p.dev_loss; });
      LineSeries train = series(r, name + "training loss", a.x, [](const HistoryPoint& p) { return p.train_loss; });
      train.dashed = true;
      dev.colour = train.colour = static_cast<int>(k);
      loss.series.push_back(std::move(dev));
      loss.series.push_back(std::move(train));
      LineSeries l = series(r, several ? r.dir : "learning rate", a.x, [](const HistoryPoint& p) { return p.lr; });
      l.colour = static_cast<int>(k);
      lr.series.push_back(std::move(l));
      if (!r.metric.empty()) {
        LineSeries m = series(r, (several ? r.dir : std::string("dev")) + (mixed ? " (" + r.metric + ")" : ""),
                              a.x, [](const HistoryPoint& p) { return p.metric; });
        m.colour = static_cast<int>(k);
        met.series.push_back(std::move(m));
      }
    }
    keep("loss", std::move(loss));
    if (!met.series.empty()) keep("metric", std::move(met));
    keep("lr", std::move(lr));
  }
  return out;
}

std::string history_charts_html(const std::vector<TrainingHistory>& runs,
                                const std::vector<std::string>& waiting, bool file_links) {
  std::string s = "<div class=\"runs-box\"><table class=\"runs\">\n<thead><tr><th>run</th><th>validations</th><th>last "
                  "step</th><th>time</th><th>best dev loss</th><th>best metric</th></tr></thead>\n<tbody>\n";
  for (const auto& r : runs) {
    double best_loss = INFINITY, best_metric = NAN;
    const bool higher = r.metric == "bleu";
    for (const auto& p : r.points) {
      best_loss = std::min(best_loss, p.dev_loss);
      if (std::isfinite(p.metric) && (!std::isfinite(best_metric) ||
                                      (higher ? p.metric > best_metric : p.metric < best_metric)))
        best_metric = p.metric;
    }
    const HistoryPoint& last = r.points.back();
    s += "<tr><td class=\"dir\">" + xml_escape(r.dir) + "</td><td>" + std::to_string(r.points.size()) +
         "</td><td>" + std::to_string(last.step) + "</td><td>" +
         (std::isfinite(last.seconds) ? fmt("%.0f s", last.seconds) : "-") + "</td><td>" +
         fmt("%.4f", best_loss) + "</td><td>" +
         (std::isfinite(best_metric) ? xml_escape(r.metric) + " " + fmt("%.2f", best_metric) : "-") +
         "</td></tr>\n";
  }
  for (const auto& w : waiting)
    s += "<tr class=\"waiting\"><td class=\"dir\">" + xml_escape(w) +
         "</td><td colspan=\"5\">no validation yet (no history.jsonl)</td></tr>\n";
  s += "</tbody>\n</table></div>\n<div class=\"charts\">\n";
  if (!runs.empty()) {
    for (const auto& c : history_charts(runs)) {
      std::string svg = line_chart_picture_svg(c.chart, c.name + "-");
      svg.erase(0, svg.find("<svg"));  // inline: no XML declaration
      s += "<figure class=\"chart\" id=\"" + c.name + "\">" + svg;
      if (file_links)
        s += "<figcaption><a href=\"" + c.name + ".svg\">" + c.name + ".svg</a> \xC2\xB7 <a href=\"" +
             c.name + ".png\">" + c.name + ".png</a></figcaption>";
      s += "</figure>\n";
    }
  }
  s += "</div>\n";
  return s;
}

std::string history_page(const std::vector<TrainingHistory>& runs, bool watch,
                         const std::string& refresh_path, const std::vector<std::string>& waiting) {
  std::string s = html_page_start(
      watch ? "heed: training curves (live)" : "heed: training curves",
      "  table.runs { border-collapse: collapse; font-size: .9em; margin: .6em 0 1em; }\n"
      "  table.runs th, table.runs td { padding: .2em .7em; border-bottom: 1px solid #ddd; "
      "text-align: right; }\n"
      "  table.runs td { white-space: nowrap; }\n"
      "  table.runs th:first-child { text-align: left; }\n"
      "  table.runs td.dir { text-align: left; white-space: normal; overflow-wrap: anywhere; min-width: 9em; }\n"
      "  .runs-box { max-width: 100%; overflow-x: auto; }\n"
      "  .charts { display: flex; flex-wrap: wrap; gap: 1em 2em; }\n"
      "  figure.chart { margin: 0; max-width: 100%; overflow-x: auto; }\n"
      "  figure.chart svg { display: block; max-width: 100%; height: auto; }\n"
      "  figure.chart figcaption { font-size: .85em; margin: .2em 0 0 .5em; }\n"
      "  #status { color: #595959; font-size: .9em; }\n"
      "  #status.error { color: #b00; }\n");
  s += "<h1>Training curves</h1>\n<p>Loss (dev solid, training dashed), the dev metric and the "
       "learning rate at each validation, against steps and against time.";
  if (watch) s += " <span id=\"status\">updated every 3 s</span>";
  s += "</p>\n<div id=\"curves\">\n" + history_charts_html(runs, waiting, !watch) + "</div>\n";
  if (watch) {
    // Fetches the fresh body; a failed fetch (the server gone, a history half-copied) says so
    // and keeps the last curves on screen.
    s += "<script>\n\"use strict\";\nasync function refresh() {\n"
         "  const status = document.getElementById(\"status\");\n  try {\n"
         "    const res = await fetch(\"" + refresh_path + "\", {cache: \"no-store\"});\n"
         "    const text = await res.text();\n"
         "    if (!res.ok) throw new Error(text);\n"
         "    document.getElementById(\"curves\").innerHTML = text;\n"
         "    status.className = \"\";\n"
         "    status.textContent = \"updated \" + new Date().toLocaleTimeString();\n"
         "  } catch (e) {\n    status.className = \"error\";\n"
         "    status.textContent = \"not updated: \" + e.message;\n  }\n}\n"
         "setInterval(refresh, 3000);\n</script>\n";
  }
  s += "</body>\n</html>\n";
  return s;
}

}  // namespace heed::viz
