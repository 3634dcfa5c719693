#include "heed/cli/score_command.h"

#include <CLI/CLI.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "heed/base/atomic_file.h"
#include "heed/base/error.h"
#include "heed/cli/validators.h"
#include "heed/base/utf8.h"
#include "heed/cli/enum_option.h"
#include "heed/cli/stdin_lines.h"
#include "heed/data/text_file.h"
#include "heed/metrics/aer.h"
#include "heed/metrics/bleu.h"
#include "heed/metrics/bootstrap.h"
#include "heed/metrics/chrf.h"
#include "heed/metrics/g2p.h"
#include "heed/metrics/length_buckets.h"
#include "heed/metrics/metric.h"
#include "heed/metrics/rouge.h"
#include "heed/metrics/wer.h"

namespace heed::cli {
namespace {

namespace fs = std::filesystem;

// A number for the JSON output: 4 decimals (beyond any meaningful precision of a
// bootstrap), NaN (an empty bucket) as null.
nlohmann::json json_number(double v) {
  if (!std::isfinite(v)) return nullptr;
  return std::round(v * 1e4) / 1e4;
}

std::string fmt2(double v) {
  if (!std::isfinite(v)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

std::string interval_text(double lower, double upper) {
  if (!std::isfinite(lower)) return "-";
  return "[" + fmt2(lower) + ", " + fmt2(upper) + "]";
}

std::string pad(std::string s, std::size_t width, bool right_align) {
  if (s.size() >= width) return s;
  return right_align ? std::string(width - s.size(), ' ') + s
                     : s + std::string(width - s.size(), ' ');
}

// A measure reported beside the headline one from the same rows (G2P's PER, ROUGE-2 and
// ROUGE-L), so that every interval comes from the same resamples.
struct Beside {
  std::string name;      // in the lines and the table: PER, ROUGE-2
  std::string json_key;  // in the JSON: per, per_lower, per_upper
  metrics::StatsTable table;
};

// The corpus metric as a StatsTable (its score is the headline number) plus the usual line.
struct Scored {
  std::optional<metrics::StatsTable> table;
  std::vector<Beside> beside;
  std::string line, score_only;
};

using Intervals = std::vector<metrics::ConfidenceInterval>;     // one per Beside
using Breakdowns = std::vector<metrics::LengthBreakdown>;       // one per Beside

class ScoreCommand : public Command {
 public:
  std::string name() const override { return "score"; }
  std::string description() const override {
    return "Score hypotheses against references: BLEU, chrF (sacreBLEU-equal), WER, G2P WER/PER, "
           "AER, ROUGE (rouge-score-equal); bootstrap intervals and scores by source length";
  }

  void setup(CLI::App& app) override {
    add_enum_option(app, "--metric,-m", metric_, "what to compute", false)->required();
    app.add_option("--ref,-r", refs_,
                   "reference file (repeat for several references with bleu/chrf/rouge; for g2p a "
                   "line holds tab-separated alternative pronunciations)")
        ->required()
        ->check(CLI::ExistingFile);
    app.add_option("--hyp", hyp_, "hypothesis file (default: standard input)")
        ->check(CLI::ExistingFile);
    app.add_flag("--lowercase,--lc", lowercase_,
                 "compare lowercased text (bleu, chrf, wer; rouge always lowercases)");
    app.add_flag("--stem", stem_,
                 "rouge: Porter-stem words longer than 3 characters (rouge-score's use_stemmer)");
    app.add_flag("--ref-one-based", ref_one_based_,
                 "aer: the reference's link positions count from 1 (default 0)");
    app.add_flag("--hyp-one-based", hyp_one_based_,
                 "aer: the hypothesis' link positions count from 1 (default 0, as heed writes)");
    app.add_flag("--score-only,-b", score_only_, "print only the number(s)");
    bootstrap_opt_ = app.add_option("--bootstrap", samples_,
                                    "bootstrap resamples for 95% confidence intervals (default "
                                    "1000 with --by-length, else no interval)")
                         ->check(int_range(1, 1000000));
    app.add_option("--seed", seed_, "seed of the bootstrap draws (default 12345)");
    auto by_length = app.add_option("--by-length", source_,
                                    "source file (line i = segment i): also score the segments "
                                    "grouped by source length")
                         ->check(CLI::ExistingFile);
    add_enum_option(app, "--length-unit", unit_,
                    "words: whitespace tokens; chars: code points, whitespace not counted")
        ->needs(by_length);
    auto buckets = app.add_option("--buckets", buckets_,
                                  "length buckets: upper edges (10,20,30 = 1-10, 11-20, 21-30, "
                                  "31+) or ranges (1-10,11-20,21-)")
                       ->needs(by_length);
    app.add_option("--bucket-width", bucket_width_,
                   "automatic buckets of this width, the last open-ended (default 10)")
        ->check(int_range(1, 1000000))
        ->needs(by_length)
        ->excludes(buckets);
    app.add_option("--label", label_,
                   "system name in the table and the JSON (default: the "
                   "hypothesis file's name)");
    app.add_option("--json", json_, "write the scores by length as one JSON object to this file")
        ->needs(by_length);
    app.footer(
        "Output: one line as sacreBLEU prints it (BLEU = 42.73 75.0/... (BP = ...)), or just the\n"
        "number with --score-only. g2p prints WER (entries matching no reference) and PER\n"
        "(phone edits to the closest reference over its length), both in percent. aer reads\n"
        "Pharaoh alignments (i-j sure, i?j or i-j-P possible) and prints AER, precision and\n"
        "recall in percent. rouge prints the F1 of ROUGE-1, ROUGE-2 and ROUGE-L (means over the\n"
        "segments, the best reference of each), then their precisions and recalls.\n"
        "--bootstrap adds a line with the 95% interval; --by-length adds a table of the score\n"
        "per source-length bucket with intervals (or writes it with --json, for heed plot).");
  }

  int run() override {
    if (stem_ && metric_ != metrics::Metric::rouge)
      throw UsageError("--stem applies to --metric rouge only, not " +
                       std::string(enum_name(metric_)));
    std::vector<std::string> hyps = hyp_.empty() ? read_stdin_lines() : read_lines(hyp_);
    const std::string hyp_name = hyp_.empty() ? "<stdin>" : hyp_;
    std::vector<std::vector<std::string>> streams;
    for (auto& r : refs_) {
      streams.push_back(read_lines(r));
      HEED_CHECK(streams.back().size() == hyps.size(), r, " has ", streams.back().size(),
                 " lines but the hypotheses (", hyp_name, ") have ", hyps.size());
    }
    HEED_CHECK(metrics::takes_several_references(metric_) || refs_.size() == 1,
               "--metric ", enum_name(metric_), " takes exactly one --ref file");
    std::vector<std::string> sources;
    if (!source_.empty()) {  // checked before any scoring: a mistake is reported at once
      sources = read_lines(source_);
      HEED_CHECK(sources.size() == hyps.size(), "--by-length: ", source_, " has ", sources.size(),
                 " lines but the hypotheses (", hyp_name, ") have ", hyps.size(),
                 "; line i of the source must be the source of segment i");
    }
    std::vector<metrics::LengthRange> ranges;
    if (!buckets_.empty()) ranges = metrics::parse_length_buckets(buckets_);

    Scored s = score(hyps, streams);
    std::cout << (score_only_ ? s.score_only : s.line) << "\n";
    if (!bootstrap_opt_->count() && source_.empty()) return 0;

    HEED_CHECK(!hyps.empty(), "--bootstrap: ", hyp_name, " has no segments to resample");
    const auto ci = metrics::bootstrap_ci(*s.table, samples_, seed_);
    Intervals beside_ci;
    for (const Beside& b : s.beside) beside_ci.push_back(metrics::bootstrap_ci(b.table, samples_, seed_));
    print_corpus_interval(ci, s.beside, beside_ci);
    if (source_.empty()) return 0;

    const metrics::LengthUnit unit = unit_;
    std::vector<std::size_t> lengths;
    std::size_t max_length = 0;
    for (const auto& line : sources) {
      lengths.push_back(metrics::source_length(line, unit));
      max_length = std::max(max_length, lengths.back());
    }
    if (ranges.empty()) ranges = metrics::width_buckets(bucket_width_, max_length);
    const auto by_length = metrics::score_by_length(*s.table, lengths, ranges, samples_, seed_);
    Breakdowns beside_by_length;
    for (const Beside& b : s.beside)
      beside_by_length.push_back(metrics::score_by_length(b.table, lengths, ranges, samples_, seed_));

    const std::string label =
        label_.empty() ? (hyp_.empty() ? "stdin" : fs::path(hyp_).filename().string()) : label_;
    if (!json_.empty()) {
      write_json(label, unit, hyps.size(), ci, s.beside, beside_ci, by_length, beside_by_length);
      if (!score_only_)
        std::cout << "wrote " << json_ << " (" << ranges.size() << " length buckets)\n";
    } else {
      print_table(unit, by_length, s.beside, beside_by_length);
    }
    return 0;
  }

 private:
  Scored score(const std::vector<std::string>& hyps,
               const std::vector<std::vector<std::string>>& streams) const {
    Scored s;
    char buf[200];
    if (metric_ == metrics::Metric::bleu) {
      metrics::BleuOptions o;
      o.lowercase = lowercase_;
      s.table = metrics::bleu_stats(hyps, metrics::references_per_segment(streams), o);
      auto b = metrics::bleu_from_sums(s.table->column_sums(), o);
      s.line = b.format();
      s.score_only = fmt2(b.score);
    } else if (metric_ == metrics::Metric::chrf) {
      metrics::ChrfOptions o;
      o.lowercase = lowercase_;
      s.table = metrics::chrf_stats(hyps, metrics::references_per_segment(streams), o);
      const double v = s.table->score();
      s.line = metrics::format_chrf(v, o);
      s.score_only = fmt2(v);
    } else if (metric_ == metrics::Metric::wer) {
      metrics::WerOptions o;
      o.lowercase = lowercase_;
      s.table = metrics::wer_stats(hyps, streams[0], o);
      const double v = s.table->score();
      s.line = "WER = " + fmt2(v);
      s.score_only = fmt2(v);
    } else if (metric_ == metrics::Metric::aer) {
      s.table = metrics::aer_stats(hyps, hyp_.empty() ? "<stdin>" : hyp_, hyp_one_based_,
                                   streams[0], refs_[0], ref_one_based_);
      const auto sums = s.table->column_sums();
      const auto a = metrics::aer_from_sums(sums);
      std::snprintf(buf, sizeof buf,
                    "AER = %.2f precision = %.2f recall = %.2f (links = %.0f sure = %.0f "
                    "linked sure = %.0f linked possible = %.0f)",
                    100 * a.aer, 100 * a.precision, 100 * a.recall, sums[0], sums[1], sums[2],
                    sums[3]);
      s.line = buf;
      s.score_only = fmt2(100 * a.aer);
    } else if (metric_ == metrics::Metric::rouge) {
      metrics::RougeOptions o;
      o.stem = stem_;
      s.table = metrics::rouge_stats(hyps, metrics::references_per_segment(streams), o);
      for (metrics::RougeType t : metrics::kRougeTypes) {
        if (t == metrics::RougeType::rouge1) continue;  // the headline, s.table's own score
        s.beside.push_back({std::string(metrics::rouge_name(t)), std::string(metrics::rouge_key(t)),
                            metrics::rouge_table(*s.table, t)});
      }
      const auto sums = s.table->column_sums();
      s.line = metrics::format_rouge(sums, static_cast<int>(streams.size()), o);
      for (metrics::RougeType t : metrics::kRougeTypes)
        s.score_only += (s.score_only.empty() ? "" : " ") + fmt2(metrics::rouge_from_sums(sums, t).f1);
    } else {
      std::vector<std::vector<std::string>> refs;
      for (auto& line : streams[0]) refs.push_back(metrics::split_g2p_references(line));
      s.table = metrics::g2p_stats(hyps, refs, metrics::G2pMeasure::wer);
      // PER from the same rows, so both measures are resampled with the same draws.
      s.beside.push_back({"PER", "per", s.table->with_score("g2p-per", [](std::span<const double> sums) {
                            return metrics::g2p_from_sums(sums).per;
                          })});
      auto g = metrics::g2p_from_sums(s.table->column_sums());
      std::snprintf(buf, sizeof buf,
                    "WER = %.2f PER = %.2f (entries = %ld wrong = %ld phone edits = %ld "
                    "ref phones = %ld)",
                    g.wer, g.per, g.entries, g.wrong_entries, g.phone_edits, g.ref_phones);
      s.line = buf;
      s.score_only = fmt2(g.wer) + " " + fmt2(g.per);
    }
    return s;
  }

  void print_corpus_interval(const metrics::ConfidenceInterval& ci, const std::vector<Beside>& beside,
                             const Intervals& beside_ci) const {
    if (score_only_) {
      std::cout << fmt2(ci.lower) << " " << fmt2(ci.upper);
      for (const auto& c : beside_ci) std::cout << " " << fmt2(c.lower) << " " << fmt2(c.upper);
      std::cout << "\n";
      return;
    }
    std::cout << "95% CI: ";
    if (!beside.empty()) std::cout << metrics::score_name(metric_) << " ";
    std::cout << interval_text(ci.lower, ci.upper);
    for (std::size_t k = 0; k < beside.size(); ++k)
      std::cout << " " << beside[k].name << " " << interval_text(beside_ci[k].lower, beside_ci[k].upper);
    std::cout << " (bootstrap, " << samples_ << " resamples, seed " << seed_ << ")\n";
  }

  void print_table(metrics::LengthUnit unit, const metrics::LengthBreakdown& b,
                   const std::vector<Beside>& beside, const Breakdowns& beside_b) const {
    std::size_t w = 6;  // the length column
    for (const auto& r : b.buckets) w = std::max(w, r.range.label().size());
    constexpr std::size_t kColumn = 9 + 2 + 16;  // a score, its gap and its interval
    if (!score_only_) {
      std::string names(metrics::score_name(metric_));
      for (std::size_t k = 0; k < beside.size(); ++k)
        names += (k + 1 == beside.size() ? " and " : ", ") + beside[k].name;
      std::cout << "\n" << names << " by source length (" << enum_name(unit)
                << "), 95% bootstrap CI:\n";
      std::string header =
          pad("length", w, false) + pad("n", 8, true) + pad(std::string(metrics::score_name(metric_)), 9, true) + "  95% CI";
      for (std::size_t k = 0; k < beside.size(); ++k)
        header = pad(header, w + 8 + (k + 1) * kColumn, false) + pad(beside[k].name, 9, true) +
                 "  95% CI";
      std::cout << header << "\n";
    }
    for (std::size_t i = 0; i < b.buckets.size(); ++i) {
      const auto& r = b.buckets[i];
      if (score_only_) {  // machine-readable rows: label n score lower upper [beside's the same]
        std::cout << r.range.label() << " " << r.n << " " << fmt2(r.score) << " " << fmt2(r.lower)
                  << " " << fmt2(r.upper);
        for (const auto& other : beside_b) {
          const auto& p = other.buckets[i];
          std::cout << " " << fmt2(p.score) << " " << fmt2(p.lower) << " " << fmt2(p.upper);
        }
        std::cout << "\n";
        continue;
      }
      std::string row = pad(r.range.label(), w, false) + pad(std::to_string(r.n), 8, true) +
                        pad(fmt2(r.score), 9, true) + "  ";
      std::string interval = interval_text(r.lower, r.upper);
      for (const auto& other : beside_b) {
        const auto& p = other.buckets[i];
        row += pad(interval, 16, false) + pad(fmt2(p.score), 9, true) + "  ";
        interval = interval_text(p.lower, p.upper);
      }
      row += interval;
      while (!row.empty() && row.back() == ' ') row.pop_back();
      std::cout << row << "\n";
    }
    if (b.outside > 0 && !score_only_) {
      std::cout << "(" << b.outside << (b.outside == 1 ? " segment is" : " segments are")
                << " in no bucket, e.g. an empty source line)\n";
    }
  }

  void write_json(const std::string& label, metrics::LengthUnit unit, std::size_t segments,
                  const metrics::ConfidenceInterval& ci, const std::vector<Beside>& beside,
                  const Intervals& beside_ci, const metrics::LengthBreakdown& b,
                  const Breakdowns& beside_b) const {
    nlohmann::ordered_json j;
    j["metric"] = enum_name(metric_);
    j["score_name"] = metrics::score_name(metric_);
    j["label"] = label;
    j["lowercase"] = lowercase_;
    if (metric_ == metrics::Metric::rouge) j["stem"] = stem_;
    j["length_unit"] = enum_name(unit);
    j["bootstrap"] = samples_;
    j["seed"] = seed_;
    nlohmann::ordered_json corpus;
    corpus["n"] = segments;
    corpus["score"] = json_number(ci.score);
    corpus["lower"] = json_number(ci.lower);
    corpus["upper"] = json_number(ci.upper);
    for (std::size_t k = 0; k < beside.size(); ++k) {
      const std::string& key = beside[k].json_key;
      corpus[key] = json_number(beside_ci[k].score);
      corpus[key + "_lower"] = json_number(beside_ci[k].lower);
      corpus[key + "_upper"] = json_number(beside_ci[k].upper);
    }
    j["corpus"] = corpus;
    j["buckets"] = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < b.buckets.size(); ++i) {
      const auto& r = b.buckets[i];
      nlohmann::ordered_json o;
      o["lo"] = r.range.lo;
      o["hi"] = r.range.hi ? nlohmann::ordered_json(*r.range.hi) : nlohmann::ordered_json(nullptr);
      o["n"] = r.n;
      o["score"] = json_number(r.score);
      o["lower"] = json_number(r.lower);
      o["upper"] = json_number(r.upper);
      for (std::size_t k = 0; k < beside.size(); ++k) {
        const std::string& key = beside[k].json_key;
        const auto& p = beside_b[k].buckets[i];
        o[key] = json_number(p.score);
        o[key + "_lower"] = json_number(p.lower);
        o[key + "_upper"] = json_number(p.upper);
      }
      j["buckets"].push_back(o);
    }
    j["outside"] = b.outside;
    write_file_atomically(json_, j.dump(2) + "\n");
  }

  metrics::Metric metric_ = metrics::Metric::bleu;
  metrics::LengthUnit unit_ = metrics::LengthUnit::words;
  std::string hyp_, source_, buckets_, label_, json_;
  std::vector<std::string> refs_;
  bool lowercase_ = false, score_only_ = false, ref_one_based_ = false, hyp_one_based_ = false,
       stem_ = false;
  std::size_t samples_ = 1000, bucket_width_ = 10;
  std::uint64_t seed_ = 12345;
  CLI::Option* bootstrap_opt_ = nullptr;
};

}  // namespace

std::unique_ptr<Command> make_score_command() { return std::make_unique<ScoreCommand>(); }

}  // namespace heed::cli
