#pragma once
// Scores by source length, as `heed score --by-length ... --json FILE` writes them
// (docs/cli/score.md), read back and turned into one line chart: the figure of Bahdanau et
// al. (2015), score against sentence length, one line per system.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "heed/viz/line_chart_svg.h"

#include "heed/metrics/length_buckets.h"
#include "heed/metrics/metric.h"

namespace heed::viz {

struct LengthBucketRow {
  std::size_t lo = 1;
  std::optional<std::size_t> hi;  // none: open-ended
  std::size_t n = 0;
  double score = 0, lower = 0, upper = 0;  // NaN where the file has null (an empty bucket)
  std::string label() const;               // "1-10", "7", "51+"
};

struct LengthScores {
  std::string path;  // for messages
  metrics::Metric metric = metrics::Metric::bleu;
  std::string score_name, label;
  metrics::LengthUnit length_unit = metrics::LengthUnit::words;
  bool lowercase = false;
  std::vector<LengthBucketRow> buckets;
};

// Throws heed::Error naming the file (and the bucket) when it is not such an object.
LengthScores read_length_scores(const std::string& path);

// One series per file, in order. The files must agree on metric, length unit, lowercasing
// and buckets (scores of different things are not drawn on one axis): otherwise
// heed::Error names the two files and what differs. An empty title gets a default
// ("BLEU by source length").
LineChart length_chart(const std::vector<LengthScores>& files, const std::string& title = "");


}  // namespace heed::viz
