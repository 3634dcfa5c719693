#include "heed/cli/score_command.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "heed/base/error.h"
#include "heed/base/utf8.h"
#include "heed/data/text_file.h"
#include "heed/metrics/bleu.h"
#include "heed/metrics/chrf.h"
#include "heed/metrics/g2p.h"
#include "heed/metrics/wer.h"

namespace heed::cli {
namespace {

// Standard input as lines, validated like a file.
std::vector<std::string> read_stdin_lines() {
  std::vector<std::string> lines;
  std::string line;
  std::size_t n = 0;
  while (std::getline(std::cin, line)) {
    ++n;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::size_t bad = find_invalid_utf8(line);
    HEED_CHECK(bad == std::string::npos, "<stdin>:", n, ":", bad + 1, ": invalid UTF-8");
    lines.push_back(std::move(line));
  }
  return lines;
}

class ScoreCommand : public Command {
 public:
  std::string name() const override { return "score"; }
  std::string description() const override {
    return "Score hypotheses against references: BLEU, chrF (sacreBLEU-equal), WER, G2P WER/PER";
  }

  void setup(CLI::App& app) override {
    app.add_option("--metric,-m", metric_, "bleu | chrf | wer | g2p")
        ->required()
        ->check(CLI::IsMember({"bleu", "chrf", "wer", "g2p"}));
    app.add_option("--ref,-r", refs_,
                   "reference file (repeat for several references with bleu/chrf; for g2p a line "
                   "holds tab-separated alternative pronunciations)")
        ->required()
        ->check(CLI::ExistingFile);
    app.add_option("--hyp", hyp_, "hypothesis file (default: standard input)")
        ->check(CLI::ExistingFile);
    app.add_flag("--lowercase,--lc", lowercase_, "compare lowercased text (bleu, chrf, wer)");
    app.add_flag("--score-only,-b", score_only_, "print only the number(s)");
    app.footer(
        "Output: one line as sacreBLEU prints it (BLEU = 42.73 75.0/... (BP = ...)), or just the\n"
        "number with --score-only. g2p prints WER (entries matching no reference) and PER\n"
        "(phone edits to the closest reference over its length), both in percent.");
  }

  int run() override {
    std::vector<std::string> hyps = hyp_.empty() ? read_stdin_lines() : read_lines(hyp_);
    std::vector<std::vector<std::string>> streams;
    for (auto& r : refs_) {
      streams.push_back(read_lines(r));
      HEED_CHECK(streams.back().size() == hyps.size(), r, " has ", streams.back().size(),
                 " lines but the hypotheses (", hyp_.empty() ? "<stdin>" : hyp_, ") have ",
                 hyps.size());
    }
    HEED_CHECK(metric_ == "bleu" || metric_ == "chrf" || refs_.size() == 1,
               "--metric ", metric_, " takes exactly one --ref file");
    if (metric_ == "bleu") {
      metrics::BleuOptions o;
      o.lowercase = lowercase_;
      auto s = metrics::corpus_bleu(hyps, metrics::references_per_segment(streams), o);
      print(s.score, s.format());
    } else if (metric_ == "chrf") {
      metrics::ChrfOptions o;
      o.lowercase = lowercase_;
      double s = metrics::corpus_chrf(hyps, metrics::references_per_segment(streams), o);
      print(s, metrics::format_chrf(s, o));
    } else if (metric_ == "wer") {
      metrics::WerOptions o;
      o.lowercase = lowercase_;
      double s = metrics::corpus_wer(hyps, streams[0], o);
      char buf[64];
      std::snprintf(buf, sizeof buf, "WER = %.2f", s);
      print(s, buf);
    } else {
      std::vector<std::vector<std::string>> refs;
      for (auto& line : streams[0]) refs.push_back(metrics::split_g2p_references(line));
      auto s = metrics::g2p_score(hyps, refs);
      char buf[160];
      if (score_only_) {
        std::snprintf(buf, sizeof buf, "%.2f %.2f", s.wer, s.per);
      } else {
        std::snprintf(buf, sizeof buf,
                      "WER = %.2f PER = %.2f (entries = %ld wrong = %ld phone edits = %ld "
                      "ref phones = %ld)",
                      s.wer, s.per, s.entries, s.wrong_entries, s.phone_edits, s.ref_phones);
      }
      std::cout << buf << "\n";
    }
    return 0;
  }

 private:
  void print(double score, const std::string& full) const {
    if (score_only_) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.2f", score);
      std::cout << buf << "\n";
    } else {
      std::cout << full << "\n";
    }
  }

  std::string metric_, hyp_;
  std::vector<std::string> refs_;
  bool lowercase_ = false, score_only_ = false;
};

}  // namespace

std::unique_ptr<Command> make_score_command() { return std::make_unique<ScoreCommand>(); }

}  // namespace heed::cli
