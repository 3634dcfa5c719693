#include "heed/cli/translate_command.h"

#include <CLI/CLI.hpp>
#include <unistd.h>

#include <charconv>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "heed/base/error.h"
#include "heed/base/utf8.h"
#include "heed/cli/alignment_options.h"
#include "heed/cli/attention_window_option.h"
#include "heed/cli/enum_option.h"
#include "heed/cli/model_options.h"
#include "heed/cli/output_lines.h"
#include "heed/cli/shortlist_option.h"
#include "heed/cli/stdin_lines.h"
#include "heed/cli/validators.h"
#include "heed/data/text_file.h"
#include "heed/kernels/gemm.h"
#include "heed/translate/alignment.h"
#include "heed/translate/line_translator.h"
#include "heed/viz/attention_record.h"

namespace heed::cli {
namespace {

// "translated 1200/5000 sentences (340.2 sent/s)", redrawn in place at most 5 times a second
// once a run has taken more than a second; only when stderr is a terminal.
class ProgressLine {
 public:
  ProgressLine() : enabled_(isatty(STDERR_FILENO) != 0), start_(Clock::now()), last_(start_) {}
  void update(std::size_t done, std::size_t total) {
    if (!enabled_) return;
    const auto now = Clock::now();
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    if (elapsed < 1.0 || (done < total && now - last_ < std::chrono::milliseconds(200))) return;
    last_ = now;
    std::fprintf(stderr, "\rtranslated %zu/%zu sentences (%.1f sent/s)", done, total,
                 static_cast<double>(done) / elapsed);
    std::fflush(stderr);
    drawn_ = true;
  }
  ~ProgressLine() {
    if (drawn_) std::fputc('\n', stderr);
  }

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_, drawn_ = false;
  Clock::time_point start_, last_;
};

std::string format_score(double score) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6f", score);
  return buf;
}

class TranslateCommand : public Command {
 public:
  std::string name() const override { return "translate"; }
  std::string description() const override {
    return "Translate sentences (stdin or a file) with a trained model or an ensemble: greedy "
           "or beam search, n-best lists, attention output";
  }

  void setup(CLI::App& app) override {
    add_model_options(app, model_);
    add_attention_options(app, model_);
    app.add_option("--beam,-k", beam_, "beam width; 1 = greedy decoding")
        ->capture_default_str()
        ->check(int_range(1, 1000));
    app.add_option("--nbest,-n", nbest_,
                   "hypotheses per sentence (at most --beam); above 1 writes INDEX ||| text ||| score")
        ->capture_default_str()
        ->check(int_range(1, 1000));
    app.add_option("--alpha", alpha_, "length-normalisation exponent (0: raw log-probability)")
        ->capture_default_str();
    add_enum_option(app, "--norm", norm_,
                    "length penalty: length is |y|^alpha, gnmt ((5+|y|)/6)^alpha");
    app.add_option("--max-len-a", len_a_,
                   "at most a * source length + b output tokens, per sentence: a")
        ->capture_default_str()
        ->check(real_range(0, 1000));
    app.add_option("--max-len-b", len_b_,
                   "at most a * source length + b output tokens, per sentence: b")
        ->capture_default_str()
        ->check(real_range(0, 1000000));
    app.add_option("--max-input-len", max_input_len_,
                   "longest input line decoded, in source tokens with EOS (0: no limit but the "
                   "model's); longer lines are skipped with a warning and give an empty line")
        ->capture_default_str()
        ->check(int_range(0, 100000000));
    app.add_flag("--strict", strict_,
                 "refuse the whole input, before decoding, if a line is longer than the limit");
    add_attention_window_option(app, window_, "source positions");
    app.add_option("--batch-size,-b", batch_size_, "sentences per batch (sorted by length)")
        ->capture_default_str()
        ->check(int_range(1, 100000));
    app.add_option("--attention,-a", attention_,
                   "write the best output's attention of every sentence to this JSON Lines file "
                   "(docs/ATTENTION_JSON.md; draw it with heed plot)");
    add_alignment_options(app, alignment_,
                          "append each output's alignment to the source after ' ||| '");
    app.add_option("--input,-i", input_, "input file, one sentence per line (default: stdin)")
        ->check(CLI::ExistingFile);
    app.add_option("--output,-o", output_, "output file, written atomically (default: stdout)");
    app.add_flag("--replace-unk", replace_unk_,
                 "replace each output <unk> by the source piece it attended to most");
    precision_option_ = add_enum_option(app, "--precision", precision_,
                    "products with the weights: bf16 rounds inputs and weights to bfloat16 and "
                    "sums in fp32, about twice as fast on CPUs with AVX-512 BF16 or AMX; int8 "
                    "quantises weights per output channel and inputs per row, integer sums; a "
                    "model written by heed quantize decodes at int8 unless this is given");
    app.add_option("--shortlist", shortlist_,
                   "a vocabulary shortlist (made by heed shortlist): each batch scores only the "
                   "frequent target pieces and its source pieces' lists "
                   "(docs/DECODING.md#vocabulary-shortlists)")
        ->check(CLI::ExistingFile);
    app.add_option("--threads,-t", threads_, "batches decoded in parallel (0: one per hardware thread)")
        ->capture_default_str()
        ->check(int_range(0, 4096));
    app.footer(
        "Reads raw text, tokenises it with the model's own tokeniser and writes one detokenised\n"
        "line per input line, in input order (an empty line gives an empty line). With --nbest\n"
        "N > 1, N lines per sentence: INDEX ||| hypothesis ||| score (INDEX 0-based, score the\n"
        "length-normalised log-probability, best first). --alignment appends ' ||| ' and the\n"
        "alignment to each line (0-based source-target positions, EOS left out). A line longer\n"
        "than --max-input-len\n"
        "tokens (or the model's maximum source length) gives an empty line and one warning\n"
        "counts them; --strict makes it an error. Exit codes: 0 done, 1 runtime error, 2 bad\n"
        "command line.");
  }

  int run() override {
    if (nbest_ > beam_)
      throw UsageError(detail::concat("--nbest ", nbest_, " is larger than --beam ", beam_,
                                      "; a beam of k keeps at most k hypotheses"));
    // Parallel work is whole batches (TranslateOptions::threads); the kernels run
    // single-threaded, which is faster for the small GEMMs of decoding steps.
    kernels::set_num_threads(1);

    const LineTranslator translator = LineTranslator::load(
        model_.specs(), precision_option_->count() ? std::optional(precision_) : std::nullopt);

    TranslateOptions options;
    options.decode.beam = beam_;
    options.decode.n_best = nbest_;
    options.decode.alpha = alpha_;
    options.decode.norm = norm_;
    options.decode.len_a = len_a_;
    options.decode.len_b = len_b_;
    options.decode.window = parse_attention_window(window_);
    options.batch_size = batch_size_;
    options.replace_unk = replace_unk_;
    options.keep_attention = !attention_.empty() || !alignment_.mode.empty();
    if (alignment_.words && alignment_.mode.empty())
      throw UsageError("--alignment-words needs --alignment");
    const AlignmentOptions align = alignment_.options();
    options.threads = static_cast<std::size_t>(threads_);
    options.max_input_tokens = static_cast<std::size_t>(max_input_len_);
    options.strict = strict_;
    options.shortlist = load_shortlist_option(shortlist_, translator.model(0), "translate");

    // An empty input file is no sentences (read_lines refuses it, as training data must not be).
    const std::vector<std::string> lines =
        input_.empty()                    ? read_stdin_lines()
        : std::filesystem::is_regular_file(input_) && std::filesystem::file_size(input_) == 0
            ? std::vector<std::string>{}
            : read_lines(input_);
    std::vector<Translation> result;
    {
      ProgressLine progress;
      result = translator.translate(lines, options, [&](std::size_t done, std::size_t total) {
        progress.update(done, total);
      });
    }

    warn_skipped(result, translator.max_source_length());
    warn_unknown(result, translator.model(0));
    if (options.shortlist) report_shortlist(result, options.shortlist->target_vocab());

    std::vector<std::string> out;
    out.reserve(lines.size() * static_cast<std::size_t>(nbest_));
    for (std::size_t i = 0; i < result.size(); ++i) {
      const Translation& t = result[i];
      // " ||| alignment" after a hypothesis (empty for a line without one).
      auto aligned = [&](const TranslatedHypothesis* h) {
        if (alignment_.mode.empty()) return std::string();
        if (!h) return std::string(" ||| ");
        return " ||| " + alignment_text(make_attention_matrix(t.source, h->output, h->attention), align,
                                        *translator.model(0).src_tokenizer,
                                        *translator.model(0).tgt_tokenizer);
      };
      if (nbest_ == 1) {
        out.push_back(t.nbest.empty() ? aligned(nullptr)
                                      : t.nbest.front().text + aligned(&t.nbest.front()));
      } else if (t.nbest.empty()) {
        out.push_back(std::to_string(i) + " |||  ||| " + format_score(0.0) + aligned(nullptr));
      } else {
        for (const auto& h : t.nbest)
          out.push_back(std::to_string(i) + " ||| " + h.text + " ||| " + format_score(h.score) +
                        aligned(&h));
      }
    }
    if (!attention_.empty()) write_attention(result);
    write_output_lines(output_, out);
    return 0;
  }

 private:
  // One warning for the input tokens the source vocabulary lacks: they are all read as
  // <unk>, and the output is quietly wrong when the cause is systematic. The usual one is
  // case: a model trained on lower-case text reads "Heed" as <unk> e e d. Its tokeniser
  // lowercases only when the training config said so (data.source.lowercase), so the
  // warning says when the unknown tokens are known in lower case.
  static void warn_unknown(const std::vector<Translation>& result, const LoadedModel& model) {
    std::size_t tokens = 0, unknown = 0, known_lowercased = 0, first_line = 0;
    std::string first;
    for (std::size_t i = 0; i < result.size(); ++i) {
      const auto& source = result[i].source;  // with the EOS appended
      for (std::size_t j = 0; j + 1 < source.size(); ++j) {
        ++tokens;
        if (model.src_vocab.contains(source[j])) continue;
        if (unknown++ == 0) first = source[j], first_line = i + 1;
        if (model.src_vocab.contains(to_lower(source[j]))) ++known_lowercased;
      }
    }
    if (unknown == 0) return;
    std::string text = "heed translate: warning: " + std::to_string(unknown) + " of " +
                       std::to_string(tokens) +
                       " input tokens are not in the model's source vocabulary and were read "
                       "as <unk> (the first: '" + first + "' on line " +
                       std::to_string(first_line) + ")";
    if (known_lowercased > 0)
      text += "; " + std::to_string(known_lowercased) +
              " of them are in it in lower case: the model was trained on lower-case text, "
              "so lowercase the input (or train with data.source.lowercase: true, which "
              "lowercases the input of translation too)";
    std::cerr << text + "\n";
  }

  // What the shortlist left of the vocabulary: the target ids per sentence's batch, averaged
  // over the decoded sentences (so over batches, weighted by their sizes).
  static void report_shortlist(const std::vector<Translation>& result, std::size_t vocab) {
    std::size_t n = 0, lo = 0, hi = 0;
    double sum = 0;
    for (const Translation& t : result) {
      if (t.shortlist_ids == 0) continue;
      lo = n == 0 ? t.shortlist_ids : std::min(lo, t.shortlist_ids);
      hi = std::max(hi, t.shortlist_ids);
      sum += static_cast<double>(t.shortlist_ids);
      ++n;
    }
    if (n == 0) return;
    const double mean = sum / static_cast<double>(n);
    std::fprintf(stderr,
                 "heed translate: shortlist: %.1f target ids per sentence's batch on average "
                 "(%zu to %zu; %.1f%% of %zu)\n",
                 mean, lo, hi, 100.0 * mean / static_cast<double>(vocab), vocab);
  }

  // One warning for all the over-long lines skipped: how many, the limit, the first few.
  void warn_skipped(const std::vector<Translation>& result, std::size_t model_limit) const {
    std::vector<std::size_t> skipped;
    for (std::size_t i = 0; i < result.size(); ++i)
      if (result[i].skipped) skipped.push_back(i + 1);
    if (skipped.empty()) return;
    std::size_t limit = model_limit;
    const auto own = static_cast<std::size_t>(max_input_len_);
    if (own > 0 && (limit == 0 || own < limit)) limit = own;
    std::string which;
    for (std::size_t k = 0; k < skipped.size() && k < 5; ++k)
      which += (k ? ", " : "") + std::to_string(skipped[k]);
    if (skipped.size() > 5) which += ", ...";
    std::cerr << "heed translate: warning: skipped " << skipped.size() << " of " << result.size()
              << " input lines longer than " << limit << " tokens ("
              << (limit == model_limit ? "the model's maximum source length" : "--max-input-len")
              << "): line" << (skipped.size() > 1 ? "s " : " ") << which
              << "; their output lines are empty (--strict refuses such input instead)\n";
  }

  void write_attention(const std::vector<Translation>& result) const {
    const std::string model = model_.label();
    std::vector<viz::AttentionRecord> records;
    for (std::size_t i = 0; i < result.size(); ++i) {
      const Translation& t = result[i];
      if (t.nbest.empty()) continue;  // an empty line has nothing to draw
      const TranslatedHypothesis& h = t.nbest.front();
      viz::AttentionRecord r;
      r.index = static_cast<std::int64_t>(i);
      r.source = t.source;
      r.output = h.output;
      r.alpha = h.attention;
      r.score = h.score;
      r.model = model;
      records.push_back(std::move(r));
    }
    viz::write_attention_file(attention_, records);  // atomic; devices written directly
  }

  ModelFlags model_;
  std::string attention_, input_, output_, shortlist_;
  AlignmentFlags alignment_;
  LengthNorm norm_ = LengthNorm::length;

  std::string window_;
  std::int64_t beam_ = 5, nbest_ = 1;
  kernels::MatmulPrecision precision_ = kernels::MatmulPrecision::f32;
  CLI::Option* precision_option_ = nullptr;
  double alpha_ = 0.0, len_a_ = 2.0, len_b_ = 10.0;
  std::size_t batch_size_ = 32;
  int threads_ = 0;
  std::int64_t max_input_len_ = 1000;
  bool replace_unk_ = false, strict_ = false;
};

}  // namespace

std::unique_ptr<Command> make_translate_command() { return std::make_unique<TranslateCommand>(); }

}  // namespace heed::cli
