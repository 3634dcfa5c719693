#pragma once
// Training curves from the histories of one or more runs (viz/training_history.h), drawn by
// the cairo line chart (viz/line_chart_picture.h) with a numeric x axis: the loss (dev solid,
// training dashed, one colour per run), the dev metric and the learning rate, each against
// steps and against time. `heed plot --history` writes them as SVG and PNG files and a page;
// `heed serve --watch` serves the same page and redraws it as the histories grow.
#include <string>
#include <vector>

#include "heed/viz/line_chart_svg.h"
#include "heed/viz/training_history.h"

namespace heed::viz {

struct HistoryChart {
  std::string name;  // file stem: "loss_by_step", "metric_by_time", ...
  LineChart chart;
};

// The charts the runs have data for: loss and learning rate always, the dev metric when a
// run records one, the by-time charts when a run records seconds. runs must not be empty.
std::vector<HistoryChart> history_charts(const std::vector<TrainingHistory>& runs);

// The body of the page: a table of the runs (validations, last step, best dev loss and
// metric) and each chart inline as SVG (its ids prefixed by the chart's name). Also what the
// watch page fetches to redraw itself. waiting: directories with no history yet, listed as
// such (the watch page only). file_links: under each chart, links to NAME.svg and NAME.png
// beside the page (what heed plot --history writes).
std::string history_charts_html(const std::vector<TrainingHistory>& runs,
                                const std::vector<std::string>& waiting = {},
                                bool file_links = false);

// A self-contained page around history_charts_html. watch: the page fetches `refresh_path`
// every few seconds and replaces its body with the answer (heed serve --watch); otherwise each
// chart links to its SVG and PNG files. waiting as for history_charts_html.
std::string history_page(const std::vector<TrainingHistory>& runs, bool watch = false,
                         const std::string& refresh_path = "",
                         const std::vector<std::string>& waiting = {});

}  // namespace heed::viz
