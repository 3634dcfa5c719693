#pragma once
// The measures `heed score --metric` computes, and the names they are shown under.
#include <span>
#include <string_view>

#include "heed/base/enum_names.h"

namespace heed::metrics {

using heed::operator<<;  // streams the enums below by name (base/enum_names.h)

enum class ScoreMetric { bleu, chrf, wer, g2p, aer };
inline constexpr EnumName<ScoreMetric> kScoreMetricNames[] = {{ScoreMetric::bleu, "bleu"},
                                                               {ScoreMetric::chrf, "chrf"},
                                                               {ScoreMetric::wer, "wer"},
                                                               {ScoreMetric::g2p, "g2p"},
                                                               {ScoreMetric::aer, "aer"}};
constexpr std::span<const EnumName<ScoreMetric>> enum_names(ScoreMetric) {
  return kScoreMetricNames;
}

// Whether the metric accepts several reference files (one per reference stream).
constexpr bool takes_several_references(ScoreMetric m) {
  return m == ScoreMetric::bleu || m == ScoreMetric::chrf;
}

// The score's short name, in score tables and the "score_name" of --json files: BLEU, chrF2,
// WER (G2P's word error rate too), AER.
constexpr std::string_view score_name(ScoreMetric m) {
  switch (m) {
    case ScoreMetric::bleu: return "BLEU";
    case ScoreMetric::chrf: return "chrF2";
    case ScoreMetric::wer: return "WER";
    case ScoreMetric::g2p: return "WER";
    case ScoreMetric::aer: return "AER";
  }
  return "?";
}

// The title of a chart's score axis: BLEU, chrF2, WER %, G2P WER %, AER %.
constexpr std::string_view chart_title(ScoreMetric m) {
  switch (m) {
    case ScoreMetric::bleu: return "BLEU";
    case ScoreMetric::chrf: return "chrF2";
    case ScoreMetric::wer: return "WER %";
    case ScoreMetric::g2p: return "G2P WER %";
    case ScoreMetric::aer: return "AER %";
  }
  return "?";
}

}  // namespace heed::metrics
