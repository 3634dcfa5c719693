// The public scores (include/heed/metrics.h) over metrics/: each forwards to the function
// `heed score` uses, so the library and the command always agree.
#include "heed/metrics.h"

#include <string>
#include <vector>

#include "heed/base/error.h"
#include "heed/metrics/aer.h"
#include "heed/metrics/bleu.h"
#include "heed/metrics/chrf.h"
#include "heed/metrics/wer.h"

namespace heed {
namespace {

void check_counts(const char* metric, std::size_t hypotheses, std::size_t references) {
  HEED_CHECK(hypotheses == references, "heed::", metric, ": ", hypotheses, " hypotheses but ",
             references, " references; give one reference line per hypothesis");
}

}  // namespace

double bleu(const std::vector<std::string>& hypotheses,
            const std::vector<std::vector<std::string>>& references) {
  HEED_CHECK(!references.empty(), "heed::bleu: no reference stream");
  for (const auto& stream : references) check_counts("bleu", hypotheses.size(), stream.size());
  return metrics::corpus_bleu(hypotheses, metrics::references_per_segment(references)).score;
}

double bleu(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references) {
  return bleu(hypotheses, std::vector<std::vector<std::string>>{references});
}

double chrf(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references,
            int word_order) {
  check_counts("chrf", hypotheses.size(), references.size());
  HEED_CHECK(word_order >= 0 && word_order <= 6, "heed::chrf: word_order ", word_order,
             " is not in 0..6 (0: chrF, 2: chrF++)");
  metrics::ChrfOptions options;
  options.word_order = word_order;
  return metrics::corpus_chrf(hypotheses, metrics::references_per_segment({references}), options);
}

double wer(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references) {
  check_counts("wer", hypotheses.size(), references.size());
  return metrics::corpus_wer(hypotheses, references);
}

AlignmentScores aer(const std::vector<std::string>& hypotheses, const std::vector<std::string>& gold,
                    bool one_based) {
  check_counts("aer", hypotheses.size(), gold.size());
  const metrics::StatsTable table =
      metrics::aer_stats(hypotheses, "hypotheses", one_based, gold, "gold", one_based);
  const std::vector<double> sums = table.column_sums();
  const metrics::AerScore s = metrics::aer_from_sums(sums);
  return {s.precision, s.recall, s.aer};
}

}  // namespace heed
