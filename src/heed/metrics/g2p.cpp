#include "heed/metrics/g2p.h"

#include <algorithm>
#include <cmath>

#include "heed/base/error.h"
#include "heed/metrics/edit_distance.h"
#include "heed/metrics/text.h"

namespace heed::metrics {

StatsTable g2p_stats(const std::vector<std::string>& hypotheses,
                     const std::vector<std::vector<std::string>>& references, G2pMeasure measure) {
  HEED_CHECK(hypotheses.size() == references.size(), "G2P: ", hypotheses.size(),
             " hypotheses but ", references.size(), " reference entries");
  StatsTable table(measure == G2pMeasure::wer ? "G2P-WER" : "PER", 4,
                   [measure](std::span<const double> sums) {
                     G2pScore s = g2p_from_sums(sums);
                     return measure == G2pMeasure::wer ? s.wer : s.per;
                   });
  for (std::size_t i = 0; i < hypotheses.size(); ++i) {
    std::vector<std::string> hyp = split_whitespace(hypotheses[i]);
    bool any = false, exact = false;
    std::size_t best_dist = 0, best_len = 0;
    for (const std::string& ref_text : references[i]) {
      std::vector<std::string> ref = split_whitespace(ref_text);
      if (ref.empty()) continue;
      std::size_t d = edit_distance(hyp, ref);
      exact = exact || d == 0;
      if (!any || d < best_dist) {  // strict: the first of equally close references wins
        best_dist = d;
        best_len = ref.size();
      }
      any = true;
    }
    HEED_CHECK(any, "G2P: entry ", i + 1, " has no non-empty reference pronunciation");
    const double row[4] = {exact ? 0.0 : 1.0, 1.0, static_cast<double>(best_dist),
                           static_cast<double>(best_len)};
    table.add_row(row);
  }
  return table;
}

G2pScore g2p_from_sums(std::span<const double> sums) {
  HEED_CHECK(sums.size() == 4, "G2P: expected 4 statistics, got ", sums.size());
  G2pScore s;
  s.wrong_entries = std::lround(sums[0]);
  s.entries = std::lround(sums[1]);
  s.phone_edits = std::lround(sums[2]);
  s.ref_phones = std::lround(sums[3]);
  s.wer = s.entries ? 100.0 * sums[0] / sums[1] : 0.0;
  s.per = s.ref_phones ? 100.0 * sums[2] / sums[3] : 0.0;
  return s;
}

G2pScore g2p_score(const std::vector<std::string>& hypotheses,
                   const std::vector<std::vector<std::string>>& references) {
  return g2p_from_sums(g2p_stats(hypotheses, references).column_sums());
}

std::vector<std::string> split_g2p_references(const std::string& line) {
  std::vector<std::string> out;
  for (std::string& field : split_on(line, '\t'))
    if (!split_whitespace(field).empty()) out.push_back(std::move(field));
  return out;
}

}  // namespace heed::metrics
