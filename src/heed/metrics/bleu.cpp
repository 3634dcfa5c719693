#include "heed/metrics/bleu.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <unordered_map>

#include "heed/base/error.h"
#include "heed/base/utf8.h"
#include "heed/metrics/text.h"
#include "heed/metrics/tokenizer_13a.h"

namespace heed::metrics {

namespace {

using NgramCounts = std::vector<std::unordered_map<std::string, int>>;  // one map per order

// All n-grams of orders 1..max_order; tokens never hold a space, so joining by one is
// unambiguous.
NgramCounts count_ngrams(const std::vector<std::string>& tokens, int max_order) {
  NgramCounts counts(static_cast<std::size_t>(max_order));
  for (int n = 1; n <= max_order; ++n) {
    auto& map = counts[static_cast<std::size_t>(n - 1)];
    for (std::size_t i = 0; i + static_cast<std::size_t>(n) <= tokens.size(); ++i) {
      std::string key = tokens[i];
      for (int k = 1; k < n; ++k) {
        key += ' ';
        key += tokens[i + static_cast<std::size_t>(k)];
      }
      ++map[key];
    }
  }
  return counts;
}

// sacreBLEU's utils.my_log: log(0) is a large negative number, not -inf.
double my_log(double x) { return x == 0.0 ? -9999999999.0 : std::log(x); }

double default_smooth_value(const BleuOptions& o) {
  if (o.smooth_value >= 0) return o.smooth_value;
  if (o.smooth == BleuSmooth::floor) return 0.1;
  if (o.smooth == BleuSmooth::add_k) return 1.0;
  return 0.0;
}

// The closest reference length; among equally close ones the shortest.
long closest_ref_len(long hyp_len, const std::vector<long>& ref_lens) {
  long closest_diff = -1, closest_len = -1;
  for (long len : ref_lens) {
    long diff = std::labs(hyp_len - len);
    if (closest_diff == -1 || diff < closest_diff) {
      closest_diff = diff;
      closest_len = len;
    } else if (diff == closest_diff && len < closest_len) {
      closest_len = len;
    }
  }
  return closest_len;
}

std::string fixed(double x, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

}  // namespace

std::string BleuScore::format(int width) const {
  std::string out = "BLEU = " + fixed(score, width) + " ";
  for (std::size_t i = 0; i < precisions.size(); ++i) {
    if (i) out += '/';
    out += fixed(precisions[i], 1);
  }
  out += " (BP = " + fixed(bp, 3) + " ratio = " + fixed(ratio, 3) +
         " hyp_len = " + std::to_string(hyp_len) + " ref_len = " + std::to_string(ref_len) + ")";
  return out;
}

BleuScore compute_bleu(std::vector<double> correct, std::vector<double> total, long hyp_len,
                       long ref_len, const BleuOptions& options) {
  const int max_order = options.max_order;
  HEED_CHECK(max_order >= 1, "BLEU: max n-gram order must be at least 1, got ", max_order);
  HEED_CHECK(correct.size() == static_cast<std::size_t>(max_order) && total.size() == correct.size(),
             "BLEU: expected ", max_order, " matched and total counts");
  const double smooth_value = default_smooth_value(options);

  BleuScore s;
  s.hyp_len = hyp_len;
  s.ref_len = ref_len;
  s.ratio = ref_len ? static_cast<double>(hyp_len) / static_cast<double>(ref_len) : 0.0;
  if (hyp_len < ref_len)
    s.bp = hyp_len > 0 ? std::exp(1.0 - static_cast<double>(ref_len) / static_cast<double>(hyp_len))
                       : 0.0;
  else
    s.bp = 1.0;
  s.precisions.assign(static_cast<std::size_t>(max_order), 0.0);

  bool any_correct = false;
  for (double c : correct) any_correct = any_correct || c != 0.0;
  if (!any_correct) {  // no match at all: 0, whatever the smoothing
    s.counts = std::move(correct);
    s.totals = std::move(total);
    s.score = 0.0;
    return s;
  }

  double smooth_mteval = 1.0;
  int eff_order = max_order;
  for (int n = 1; n <= max_order; ++n) {
    const std::size_t k = static_cast<std::size_t>(n - 1);
    if (options.smooth == BleuSmooth::add_k && n > 1) {
      correct[k] += smooth_value;
      total[k] += smooth_value;
    }
    if (total[k] == 0) break;
    if (options.effective_order) eff_order = n;
    if (correct[k] == 0) {
      if (options.smooth == BleuSmooth::exp) {
        smooth_mteval *= 2;
        s.precisions[k] = 100.0 / (smooth_mteval * total[k]);
      } else if (options.smooth == BleuSmooth::floor) {
        s.precisions[k] = 100.0 * smooth_value / total[k];
      }
    } else {
      s.precisions[k] = 100.0 * correct[k] / total[k];
    }
  }
  double log_sum = 0.0;
  for (int n = 0; n < eff_order; ++n) log_sum += my_log(s.precisions[static_cast<std::size_t>(n)]);
  s.score = s.bp * std::exp(log_sum / eff_order);
  s.counts = std::move(correct);
  s.totals = std::move(total);
  return s;
}

std::vector<std::string> bleu_tokens(const std::string& line, const BleuOptions& options) {
  std::string s = options.lowercase ? to_lower(line) : line;
  s = rstrip(s);
  if (options.tokenize == BleuTokenize::k13a) s = tokenize_13a(s);
  return split_whitespace(s);
}

StatsTable bleu_stats(const std::vector<std::string>& hypotheses,
                      const std::vector<std::vector<std::string>>& references,
                      const BleuOptions& options) {
  HEED_CHECK(hypotheses.size() == references.size(), "BLEU: ", hypotheses.size(),
             " hypotheses but ", references.size(), " reference segments");
  const int max_order = options.max_order;
  HEED_CHECK(max_order >= 1, "BLEU: max n-gram order must be at least 1, got ", max_order);
  const std::size_t orders = static_cast<std::size_t>(max_order);
  StatsTable table("BLEU", 2 + 2 * orders,
                   [options](std::span<const double> sums) { return bleu_from_sums(sums, options).score; });

  std::vector<double> row(2 + 2 * orders);
  for (std::size_t i = 0; i < hypotheses.size(); ++i) {
    // References: n-gram counts are the maximum over the references.
    NgramCounts ref_counts(orders);
    std::vector<long> ref_lens;
    for (const std::string& ref : references[i]) {
      if (ref.empty()) continue;
      std::vector<std::string> tokens = bleu_tokens(ref, options);
      ref_lens.push_back(static_cast<long>(tokens.size()));
      NgramCounts counts = count_ngrams(tokens, max_order);
      for (std::size_t n = 0; n < orders; ++n)
        for (const auto& [ngram, c] : counts[n]) {
          int& best = ref_counts[n][ngram];
          if (c > best) best = c;
        }
    }
    HEED_CHECK(!ref_lens.empty(), "BLEU: segment ", i + 1, " has no non-empty reference");

    std::vector<std::string> hyp_tokens = bleu_tokens(hypotheses[i], options);
    const long hyp_len = static_cast<long>(hyp_tokens.size());
    NgramCounts hyp_counts = count_ngrams(hyp_tokens, max_order);
    std::fill(row.begin(), row.end(), 0.0);
    row[0] = static_cast<double>(hyp_len);
    row[1] = static_cast<double>(closest_ref_len(hyp_len, ref_lens));
    for (std::size_t n = 0; n < orders; ++n) {
      for (const auto& [ngram, c] : hyp_counts[n]) {
        row[2 + orders + n] += c;
        auto it = ref_counts[n].find(ngram);
        if (it != ref_counts[n].end()) row[2 + n] += std::min(c, it->second);
      }
    }
    table.add_row(row);
  }
  return table;
}

BleuScore bleu_from_sums(std::span<const double> sums, const BleuOptions& options) {
  const std::size_t orders = static_cast<std::size_t>(options.max_order);
  HEED_CHECK(sums.size() == 2 + 2 * orders, "BLEU: expected ", 2 + 2 * orders, " statistics, got ",
             sums.size());
  std::vector<double> correct(sums.begin() + 2, sums.begin() + 2 + static_cast<long>(orders));
  std::vector<double> total(sums.begin() + 2 + static_cast<long>(orders), sums.end());
  return compute_bleu(std::move(correct), std::move(total), std::lround(sums[0]), std::lround(sums[1]),
                      options);
}

BleuScore corpus_bleu(const std::vector<std::string>& hypotheses,
                      const std::vector<std::vector<std::string>>& references,
                      const BleuOptions& options) {
  return bleu_from_sums(bleu_stats(hypotheses, references, options).column_sums(), options);
}

BleuScore sentence_bleu(const std::string& hypothesis, const std::vector<std::string>& references,
                        const BleuOptions& options) {
  return corpus_bleu({hypothesis}, {references}, options);
}

std::string bleu_signature(const BleuOptions& options, int num_refs) {
  std::string smooth;
  switch (options.smooth) {
    case BleuSmooth::none: smooth = "none"; break;
    case BleuSmooth::exp: smooth = "exp"; break;
    case BleuSmooth::floor: smooth = "floor[" + fixed(default_smooth_value(options), 2) + "]"; break;
    case BleuSmooth::add_k: smooth = "add-k[" + fixed(default_smooth_value(options), 2) + "]"; break;
  }
  return "nrefs:" + (num_refs < 0 ? std::string("var") : std::to_string(num_refs)) +
         "|case:" + (options.lowercase ? "lc" : "mixed") + "|eff:" + (options.effective_order ? "yes" : "no") +
         "|tok:" + (options.tokenize == BleuTokenize::k13a ? "13a" : "none") + "|smooth:" + smooth;
}

std::vector<std::vector<std::string>> references_per_segment(
    const std::vector<std::vector<std::string>>& streams) {
  HEED_CHECK(!streams.empty(), "no reference streams given");
  const std::size_t n = streams[0].size();
  for (std::size_t r = 1; r < streams.size(); ++r)
    HEED_CHECK(streams[r].size() == n, "reference stream ", r + 1, " has ", streams[r].size(),
               " lines, the first has ", n);
  std::vector<std::vector<std::string>> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    out[i].reserve(streams.size());
    for (const auto& stream : streams) out[i].push_back(stream[i]);
  }
  return out;
}

}  // namespace heed::metrics
