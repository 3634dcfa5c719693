#include "heed/metrics/rouge.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <unordered_map>

#include "heed/base/error.h"
#include "heed/base/utf8.h"
#include "heed/metrics/porter_stemmer.h"

namespace heed::metrics {

namespace {

constexpr std::size_t kRow = 10;  // P, R, F1 of each measure, then the segment count

bool is_token_char(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// rouge-score's tokenize(): lowercase, every run of other characters separates, tokens of
// more than 3 characters stemmed. Lowercased text is UTF-8, whose bytes of non-ASCII code
// points are all >= 0x80, so testing bytes tests code points.
std::vector<std::string> tokens_of(std::string_view text, PorterStemmer* stemmer) {
  const std::string lower = to_lower(text);
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < lower.size()) {
    while (i < lower.size() && !is_token_char(lower[i])) ++i;
    const std::size_t start = i;
    while (i < lower.size() && is_token_char(lower[i])) ++i;
    if (i == start) continue;
    std::string token = lower.substr(start, i - start);
    if (stemmer && token.size() > 3) token = stemmer->stem(token);
    out.push_back(std::move(token));
  }
  return out;
}

// F1 of a precision and a recall: rouge-score's scoring.fmeasure.
double f1_of(double precision, double recall) {
  return precision + recall > 0 ? 2 * precision * recall / (precision + recall) : 0.0;
}

// Counts of the n-grams of a token list, keyed by the tokens joined with spaces (tokens
// never hold one).
std::unordered_map<std::string, int> ngram_counts(const std::vector<std::string>& tokens, int n) {
  std::unordered_map<std::string, int> counts;
  const std::size_t len = static_cast<std::size_t>(n);
  for (std::size_t i = 0; i + len <= tokens.size(); ++i) {
    std::string key = tokens[i];
    for (std::size_t k = 1; k < len; ++k) key += ' ' + tokens[i + k];
    ++counts[key];
  }
  return counts;
}

std::size_t lcs_length(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<std::size_t> row(b.size() + 1, 0);  // row[j]: LCS of a[0..i) and b[0..j)
  for (const std::string& x : a) {
    std::size_t diagonal = 0;  // the previous row's row[j - 1]
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = x == b[j - 1] ? diagonal + 1 : std::max(above, row[j - 1]);
      diagonal = above;
    }
  }
  return row.back();
}

std::size_t type_index(RougeType type) { return static_cast<std::size_t>(type); }

std::string percent(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

}  // namespace

std::string_view rouge_name(RougeType type) {
  switch (type) {
    case RougeType::rouge1: return "ROUGE-1";
    case RougeType::rouge2: return "ROUGE-2";
    case RougeType::rougeL: return "ROUGE-L";
  }
  return "?";
}

std::string_view rouge_key(RougeType type) {
  switch (type) {
    case RougeType::rouge1: return "rouge1";
    case RougeType::rouge2: return "rouge2";
    case RougeType::rougeL: return "rougeL";
  }
  return "?";
}

std::vector<std::string> rouge_tokens(std::string_view text, const RougeOptions& options) {
  std::optional<PorterStemmer> stemmer;
  if (options.stem) stemmer.emplace();
  return tokens_of(text, stemmer ? &*stemmer : nullptr);
}

RougeScore rouge_n(const std::vector<std::string>& hypothesis,
                   const std::vector<std::string>& reference, int n) {
  HEED_CHECK(n >= 1, "rouge.cpp: ROUGE-N needs n >= 1, got ", n);
  const auto hyp = ngram_counts(hypothesis, n);
  const auto ref = ngram_counts(reference, n);
  double matches = 0, hyp_total = 0, ref_total = 0;
  for (const auto& [ngram, c] : hyp) {
    hyp_total += c;
    auto it = ref.find(ngram);
    if (it != ref.end()) matches += std::min(c, it->second);
  }
  for (const auto& entry : ref) ref_total += entry.second;
  RougeScore s;
  s.precision = matches / std::max(hyp_total, 1.0);
  s.recall = matches / std::max(ref_total, 1.0);
  s.f1 = f1_of(s.precision, s.recall);
  return s;
}

RougeScore rouge_l(const std::vector<std::string>& hypothesis,
                   const std::vector<std::string>& reference) {
  RougeScore s;
  if (hypothesis.empty() || reference.empty()) return s;
  const double lcs = static_cast<double>(lcs_length(reference, hypothesis));
  s.precision = lcs / static_cast<double>(hypothesis.size());
  s.recall = lcs / static_cast<double>(reference.size());
  s.f1 = f1_of(s.precision, s.recall);
  return s;
}

StatsTable rouge_stats(const std::vector<std::string>& hypotheses,
                       const std::vector<std::vector<std::string>>& references,
                       const RougeOptions& options) {
  HEED_CHECK(hypotheses.size() == references.size(), "ROUGE: ", hypotheses.size(),
             " hypotheses but ", references.size(), " reference segments");
  std::optional<PorterStemmer> stemmer;
  if (options.stem) stemmer.emplace();
  PorterStemmer* stem = stemmer ? &*stemmer : nullptr;

  StatsTable table("ROUGE-1", kRow, [](std::span<const double> sums) {
    return rouge_from_sums(sums, RougeType::rouge1).f1;
  });
  std::vector<double> row(kRow);
  for (std::size_t i = 0; i < hypotheses.size(); ++i) {
    const std::vector<std::string> hyp = tokens_of(hypotheses[i], stem);
    RougeScore best[3];
    bool any = false;
    for (const std::string& ref_text : references[i]) {
      if (ref_text.empty()) continue;
      const std::vector<std::string> ref = tokens_of(ref_text, stem);
      const RougeScore scores[3] = {rouge_n(hyp, ref, 1), rouge_n(hyp, ref, 2), rouge_l(hyp, ref)};
      for (std::size_t t = 0; t < 3; ++t)
        if (!any || scores[t].f1 > best[t].f1) best[t] = scores[t];  // the first on ties
      any = true;
    }
    HEED_CHECK(any, "ROUGE: segment ", i + 1, " has no non-empty reference");
    for (std::size_t t = 0; t < 3; ++t) {
      row[3 * t] = best[t].precision;
      row[3 * t + 1] = best[t].recall;
      row[3 * t + 2] = best[t].f1;
    }
    row[9] = 1;
    table.add_row(row);
  }
  return table;
}

StatsTable rouge_table(const StatsTable& stats, RougeType type) {
  HEED_CHECK(stats.width() == kRow, "ROUGE: expected ", kRow, " statistics a segment, got ",
             stats.width());
  return stats.with_score(std::string(rouge_name(type)), [type](std::span<const double> sums) {
    return rouge_from_sums(sums, type).f1;
  });
}

RougeScore rouge_from_sums(std::span<const double> sums, RougeType type) {
  HEED_CHECK(sums.size() == kRow, "ROUGE: expected ", kRow, " statistics, got ", sums.size());
  RougeScore s;
  const double segments = sums[9];
  if (segments <= 0) return s;
  const std::size_t t = type_index(type);
  s.precision = 100 * sums[3 * t] / segments;
  s.recall = 100 * sums[3 * t + 1] / segments;
  s.f1 = 100 * sums[3 * t + 2] / segments;
  return s;
}

std::string format_rouge(std::span<const double> sums, int refs, const RougeOptions& options) {
  std::string f1, precision, recall;
  for (RougeType type : kRougeTypes) {
    const RougeScore s = rouge_from_sums(sums, type);
    if (type != RougeType::rouge1) {
      f1 += ' ';
      precision += '/';
      recall += '/';
    }
    f1 += std::string(rouge_name(type)) + " = " + percent(s.f1);
    precision += percent(s.precision);
    recall += percent(s.recall);
  }
  return f1 + " (F1; P = " + precision + " R = " + recall +
         "; segments = " + std::to_string(std::llround(sums[9])) +
         " refs = " + std::to_string(refs) + " stem = " + (options.stem ? "porter" : "no") + ")";
}

}  // namespace heed::metrics
