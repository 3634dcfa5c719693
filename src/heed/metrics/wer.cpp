#include "heed/metrics/wer.h"

#include <algorithm>

#include "heed/base/error.h"
#include "heed/base/utf8.h"
#include "heed/metrics/edit_distance.h"
#include "heed/metrics/text.h"

namespace heed::metrics {

StatsTable wer_stats(const std::vector<std::string>& hypotheses,
                     const std::vector<std::string>& references, const WerOptions& options) {
  HEED_CHECK(hypotheses.size() == references.size(), "WER: ", hypotheses.size(),
             " hypotheses but ", references.size(), " references");
  StatsTable table("WER", 2, wer_from_sums);
  double ref_tokens = 0;
  for (std::size_t i = 0; i < hypotheses.size(); ++i) {
    auto tokens = [&](const std::string& s) {
      return split_whitespace(options.lowercase ? to_lower(s) : s);
    };
    std::vector<std::string> hyp = tokens(hypotheses[i]), ref = tokens(references[i]);
    const double row[2] = {static_cast<double>(edit_distance(hyp, ref)), static_cast<double>(ref.size())};
    ref_tokens += row[1];
    table.add_row(row);
  }
  HEED_CHECK(hypotheses.empty() || ref_tokens > 0, "WER: the references hold no token");
  return table;
}

double wer_from_sums(std::span<const double> sums) {
  HEED_CHECK(sums.size() == 2, "WER: expected 2 statistics, got ", sums.size());
  return 100.0 * sums[0] / std::max(sums[1], 1.0);
}

double corpus_wer(const std::vector<std::string>& hypotheses,
                  const std::vector<std::string>& references, const WerOptions& options) {
  return wer_stats(hypotheses, references, options).score();
}

}  // namespace heed::metrics
