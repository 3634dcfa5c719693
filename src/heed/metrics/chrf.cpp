#include "heed/metrics/chrf.h"

#include <algorithm>
#include <cstdio>
#include <string_view>
#include <unordered_map>

#include "heed/base/error.h"
#include "heed/base/utf8.h"
#include "heed/metrics/text.h"

namespace heed::metrics {

namespace {

// Counts of n-grams of one order. Character n-grams are keyed by their UTF-8 bytes (a
// sequence of whole code points, so equal bytes mean equal code points); word n-grams
// by the words joined with spaces.
using Counts = std::unordered_map<std::string, int>;

struct SegmentNgrams {
  std::vector<Counts> orders;  // char orders then word orders
};

// sacreBLEU's _remove_punctuation: split off one ASCII punctuation character at the end of
// a word, or else at its start.
std::vector<std::string> words_without_punctuation(const std::string& sent) {
  static const std::string_view puncts = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
  auto is_punct = [](char c) { return puncts.find(c) != std::string_view::npos; };
  std::vector<std::string> out;
  for (const std::string& w : split_whitespace(sent)) {
    if (decode_utf8_escaped(w).size() == 1) {
      out.push_back(w);
    } else if (is_punct(w.back())) {
      out.push_back(w.substr(0, w.size() - 1));
      out.emplace_back(1, w.back());
    } else if (is_punct(w.front())) {
      out.emplace_back(1, w.front());
      out.push_back(w.substr(1));
    } else {
      out.push_back(w);
    }
  }
  return out;
}

SegmentNgrams extract(const std::string& raw, const ChrfOptions& o) {
  const std::string sent = o.lowercase ? to_lower(raw) : raw;
  SegmentNgrams out;
  out.orders.resize(static_cast<std::size_t>(o.char_order + o.word_order));

  const std::string chars = o.whitespace ? sent : remove_whitespace(sent);
  // Byte offsets of every code point, plus the end.
  std::vector<std::size_t> starts;
  {
    char32_t c;
    for (std::size_t at = 0; at < chars.size(); at += decode_utf8_escaped_at(chars, at, c))
      starts.push_back(at);
    starts.push_back(chars.size());
  }
  const std::size_t len = starts.size() - 1;
  for (int n = 1; n <= o.char_order; ++n) {
    Counts& counts = out.orders[static_cast<std::size_t>(n - 1)];
    for (std::size_t i = 0; i + static_cast<std::size_t>(n) <= len; ++i)
      ++counts[chars.substr(starts[i], starts[i + static_cast<std::size_t>(n)] - starts[i])];
  }
  if (o.word_order > 0) {
    std::vector<std::string> words = words_without_punctuation(sent);
    for (int n = 1; n <= o.word_order; ++n) {
      Counts& counts = out.orders[static_cast<std::size_t>(o.char_order + n - 1)];
      for (std::size_t i = 0; i + static_cast<std::size_t>(n) <= words.size(); ++i) {
        std::string key = words[i];
        for (int k = 1; k < n; ++k) key += ' ' + words[i + static_cast<std::size_t>(k)];
        ++counts[key];
      }
    }
  }
  return out;
}

}  // namespace

double chrf_from_sums(std::span<const double> sums, const ChrfOptions& o) {
  const int order = o.char_order + o.word_order;
  HEED_CHECK(sums.size() == static_cast<std::size_t>(3 * order), "chrF: expected ", 3 * order,
             " statistics, got ", sums.size());
  const double eps = 1e-16;
  const double factor = o.beta * o.beta;
  double score = 0.0, avg_prec = 0.0, avg_rec = 0.0;
  int effective_order = 0;
  for (int i = 0; i < order; ++i) {
    const double n_hyp = sums[3 * i], n_ref = sums[3 * i + 1], n_match = sums[3 * i + 2];
    const double prec = n_hyp > 0 ? n_match / n_hyp : eps;
    const double rec = n_ref > 0 ? n_match / n_ref : eps;
    const double denom = factor * prec + rec;
    score += denom > 0 ? (1 + factor) * prec * rec / denom : eps;
    if (n_hyp > 0 && n_ref > 0) {
      avg_prec += prec;
      avg_rec += rec;
      ++effective_order;
    }
  }
  if (o.eps_smoothing) return 100 * score / order;
  if (effective_order == 0) return 0.0;
  avg_prec /= effective_order;
  avg_rec /= effective_order;
  if (avg_prec + avg_rec == 0) return 0.0;
  return 100 * (1 + factor) * avg_prec * avg_rec / (factor * avg_prec + avg_rec);
}

StatsTable chrf_stats(const std::vector<std::string>& hypotheses,
                      const std::vector<std::vector<std::string>>& references, const ChrfOptions& o) {
  HEED_CHECK(o.char_order >= 0 && o.word_order >= 0 && o.char_order + o.word_order > 0,
             "chrF: needs a positive character or word order");
  HEED_CHECK(hypotheses.size() == references.size(), "chrF: ", hypotheses.size(),
             " hypotheses but ", references.size(), " reference segments");
  const std::size_t order = static_cast<std::size_t>(o.char_order + o.word_order);
  StatsTable table("chrF", 3 * order,
                   [o](std::span<const double> sums) { return chrf_from_sums(sums, o); });

  std::vector<double> stats(3 * order), best;
  for (std::size_t s = 0; s < hypotheses.size(); ++s) {
    SegmentNgrams hyp = extract(hypotheses[s], o);
    double best_f = -1.0;
    bool any_ref = false;
    for (const std::string& ref_text : references[s]) {
      if (ref_text.empty()) continue;  // sacreBLEU drops empty references
      any_ref = true;
      SegmentNgrams ref = extract(ref_text, o);
      for (std::size_t k = 0; k < order; ++k) {
        double match = 0, hyp_count = 0, ref_count = 0;
        for (const auto& [ngram, c] : hyp.orders[k]) {
          hyp_count += c;
          auto it = ref.orders[k].find(ngram);
          if (it != ref.orders[k].end()) match += std::min(c, it->second);
        }
        for (const auto& entry : ref.orders[k]) ref_count += entry.second;
        // No hypothesis n-grams count for an order the reference has none of.
        stats[3 * k] = ref.orders[k].empty() ? 0.0 : hyp_count;
        stats[3 * k + 1] = ref_count;
        stats[3 * k + 2] = match;
      }
      double f = chrf_from_sums(stats, o);
      if (f > best_f) {
        best_f = f;
        best = stats;
      }
    }
    HEED_CHECK(any_ref, "chrF: segment ", s + 1, " has no non-empty reference");
    table.add_row(best);
  }
  return table;
}

double corpus_chrf(const std::vector<std::string>& hypotheses,
                   const std::vector<std::vector<std::string>>& references, const ChrfOptions& o) {
  return chrf_from_sums(chrf_stats(hypotheses, references, o).column_sums(), o);
}

double sentence_chrf(const std::string& hypothesis, const std::vector<std::string>& references,
                     const ChrfOptions& o) {
  return corpus_chrf({hypothesis}, {references}, o);
}

std::string format_chrf(double score, const ChrfOptions& o, int width) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", width, score);
  char beta[32];
  std::snprintf(beta, sizeof beta, "%g", o.beta);
  return "chrF" + std::string(beta) + std::string(static_cast<std::size_t>(o.word_order), '+') +
         " = " + buf;
}

}  // namespace heed::metrics
