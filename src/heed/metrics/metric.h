#pragma once
// The measures `heed score --metric` computes, and the names they are shown under.
#include <span>
#include <string_view>

#include "heed/base/enum_names.h"

namespace heed::metrics {

using heed::operator<<;  // streams the enums below by name (base/enum_names.h)

enum class Metric { bleu, chrf, wer, g2p, aer, rouge };
inline constexpr EnumName<Metric> kMetricNames[] = {{Metric::bleu, "bleu"},
                                                     {Metric::chrf, "chrf"},
                                                     {Metric::wer, "wer"},
                                                     {Metric::g2p, "g2p"},
                                                     {Metric::aer, "aer"},
                                                     {Metric::rouge, "rouge"}};
constexpr std::span<const EnumName<Metric>> enum_names(Metric) { return kMetricNames; }

// Whether the metric accepts several reference files (one per reference stream).
constexpr bool takes_several_references(Metric m) {
  return m == Metric::bleu || m == Metric::chrf || m == Metric::rouge;
}

// The score's short name, in score tables and the "score_name" of --json files: BLEU, chrF2,
// WER (G2P's word error rate too), AER, ROUGE-1 (ROUGE's first measure; ROUGE-2 and ROUGE-L
// come beside it).
constexpr std::string_view score_name(Metric m) {
  switch (m) {
    case Metric::bleu: return "BLEU";
    case Metric::chrf: return "chrF2";
    case Metric::wer: return "WER";
    case Metric::g2p: return "WER";
    case Metric::aer: return "AER";
    case Metric::rouge: return "ROUGE-1";
  }
  return "?";
}

// The title of a chart's score axis: BLEU, chrF2, WER %, G2P WER %, AER %, ROUGE-1 F1.
constexpr std::string_view chart_title(Metric m) {
  switch (m) {
    case Metric::bleu: return "BLEU";
    case Metric::chrf: return "chrF2";
    case Metric::wer: return "WER %";
    case Metric::g2p: return "G2P WER %";
    case Metric::aer: return "AER %";
    case Metric::rouge: return "ROUGE-1 F1";
  }
  return "?";
}

}  // namespace heed::metrics
