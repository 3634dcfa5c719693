#include "heed/cli/shortlist_command.h"

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "heed/base/error.h"
#include "heed/cli/enum_option.h"
#include "heed/cli/model_options.h"
#include "heed/cli/validators.h"
#include "heed/data/text_file.h"
#include "heed/translate/line_translator.h"
#include "heed/translate/shortlist.h"

namespace heed::cli {
namespace {

// "heed shortlist: aligned 1200/5000 pairs", at most every 2 seconds, once a run has taken
// more than 2 seconds.
class Progress {
 public:
  void update(std::size_t done, std::size_t total) {
    const auto now = Clock::now();
    if (now - last_ < std::chrono::seconds(2)) return;
    last_ = now;
    std::fprintf(stderr, "heed shortlist: aligned %zu/%zu pairs\n", done, total);
  }

 private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point last_ = Clock::now();
};

class ShortlistCommand : public Command {
 public:
  std::string name() const override { return "shortlist"; }
  std::string description() const override {
    return "Learn a vocabulary shortlist from a parallel text (the model's own attention, or "
           "co-occurrence counts) for translate --shortlist";
  }

  void setup(CLI::App& app) override {
    add_model_options(app, model_);
    app.add_option("--source,-s", source_, "source file, one sentence per line")
        ->required()
        ->check(CLI::ExistingFile);
    app.add_option("--target,-t", target_, "target file, line i the translation of source line i")
        ->required()
        ->check(CLI::ExistingFile);
    app.add_option("--out,-o", out_, "the shortlist file to write (atomically)")->required();
    app.add_option("--top-k", top_k_, "target pieces kept per source piece")
        ->capture_default_str()
        ->check(int_range(1, 100000));
    app.add_option("--frequent", frequent_, "most frequent target pieces always in the shortlist")
        ->capture_default_str()
        ->check(int_range(0, 10000000));
    add_enum_option(app, "--from", from_,
                    "what links a source piece to target pieces: attention (forced decoding with "
                    "the model, each target piece linked to its most attended source piece, the "
                    "links counted), cooccurrence (pieces in the same sentence pair, ranked by "
                    "Dice 2c(s,t)/(c(s)+c(t)); no decoding)");
    app.add_option("--batch-size,-b", batch_size_, "sentence pairs per batch (sorted by length)")
        ->capture_default_str()
        ->check(int_range(1, 100000));
    app.footer(
        "Both sides are cut into pieces by the model's own tokenisers. Write the shortlist\n"
        "with --out and decode with heed translate --shortlist FILE. Exit codes: 0 done,\n"
        "1 runtime error, 2 bad command line.");
  }

  int run() override {
    const ParallelText text = read_parallel(source_, target_);
    const LineTranslator translator = LineTranslator::load(model_.specs());
    const LoadedModel& m = translator.model(0);
    ShortlistBuilder builder;
    std::size_t links = 0;
    if (from_ == ShortlistSource::attention) {
      HEED_CHECK(translator.has_attention(),
                 "shortlist --from attention needs a model with "
                 "attention (",
                 model_.label(), " has none); use --from cooccurrence");
      Progress progress;
      const std::vector<ForcedAlignment> forced = translator.align(
          text.source, text.target, batch_size_, false,
          [&](std::size_t done, std::size_t total) { progress.update(done, total); });
      for (const ForcedAlignment& f : forced) {
        if (f.source.empty()) continue;
        const std::size_t ns = f.source.size() - 1, nt = f.target.size() - 1;  // EOS left out
        builder.add_pair({f.source.begin(), f.source.begin() + static_cast<std::ptrdiff_t>(ns)},
                         {f.target.begin(), f.target.begin() + static_cast<std::ptrdiff_t>(nt)});
        for (std::size_t t = 0; t < nt; ++t) {
          const float* row = f.attention.data() + t * f.source.size();
          std::size_t best = 0;
          for (std::size_t j = 1; j < f.source.size(); ++j)
            if (row[j] > row[best]) best = j;
          if (best == ns) continue;  // attended most to the source's EOS: no source piece
          builder.add_link(f.source[best], f.target[t]);
          ++links;
        }
      }
    } else {
      for (std::size_t i = 0; i < text.source.size(); ++i)
        builder.add_pair(m.src_tokenizer->encode(text.source[i]),
                         m.tgt_tokenizer->encode(text.target[i]));
    }
    const Shortlist s =
        builder.build(from_, static_cast<std::size_t>(top_k_), static_cast<std::size_t>(frequent_));
    write_shortlist(out_, s);
    std::size_t listed = 0;
    for (const auto& l : s.lists) listed += l.second.size();
    std::fprintf(
        stderr,
        "heed shortlist: %zu pairs%s, %zu source pieces with %.1f targets each on "
        "average, %zu frequent targets -> %s\n",
        text.source.size(),
        from_ == ShortlistSource::attention
            ? (", " + std::to_string(links) + " attention links").c_str()
            : "",
        s.lists.size(),
        s.lists.empty() ? 0.0 : static_cast<double>(listed) / static_cast<double>(s.lists.size()),
        s.frequent.size(), out_.c_str());
    if (builder.unlistable() > 0)
      std::fprintf(stderr,
                   "heed shortlist: left out %zu distinct pieces with a TAB or line break inside "
                   "(the text has TABs within its lines; no vocabulary holds such a piece)\n",
                   builder.unlistable());
    return 0;
  }

 private:
  ModelFlags model_;
  std::string source_, target_, out_;
  int top_k_ = 10, frequent_ = 100;
  ShortlistSource from_ = ShortlistSource::attention;
  std::size_t batch_size_ = 32;
};

}  // namespace

std::unique_ptr<Command> make_shortlist_command() { return std::make_unique<ShortlistCommand>(); }

}  // namespace heed::cli
