#include "heed/cli/show_command.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "heed/base/atomic_file.h"
#include "heed/base/error.h"
#include "heed/cli/model_options.h"
#include "heed/cli/stdin_lines.h"
#include "heed/cli/validators.h"
#include "heed/data/text_file.h"
#include "heed/kernels/gemm.h"
#include "heed/translate/best_saliency.h"
#include "heed/translate/line_translator.h"
#include "heed/viz/attention_picture.h"
#include "heed/viz/report_html.h"

namespace heed::cli {
namespace {

namespace fs = std::filesystem;

// "sentence-0007": the picture of input line 7 (.svg and .png).
std::string picture_name(std::size_t line) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "sentence-%04zu", line);
  return buf;
}

std::string score_text(double score) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", score);
  return buf;
}

// "drawing sentence 12 of 300" on stderr, about ten times per run (every line when it is
// short enough to read), so a long input shows that it moves.
class Progress {
 public:
  explicit Progress(std::size_t total) : total_(total), every_(std::max<std::size_t>(1, total / 10)) {}
  void say(const char* what, std::size_t done) const {
    if (total_ < 10) return;
    if (done % every_ != 0 && done != total_) return;
    std::cerr << "heed show: " << what << " " << done << " of " << total_ << "\n";
  }

 private:
  std::size_t total_, every_;
};

class ShowCommand : public Command {
 public:
  std::string name() const override { return "show"; }
  std::string description() const override {
    return "Show what a model attends to, sentence by sentence: attention and saliency maps side "
           "by side (SVG and PNG) and one self-contained HTML report with the n-best lists";
  }

  void setup(CLI::App& app) override {
    add_model_options(app, model_);
    app.add_option("--input,-i", input_, "input file, one sentence per line; - reads stdin")
        ->required();
    app.add_option("--out,-o", out_,
                   "directory for report.html and sentence-NNNN.svg/.png (created if missing)")
        ->required();
    app.add_option("--beam,-k", beam_, "beam width; 1 = greedy decoding")
        ->capture_default_str()
        ->check(int_range(1, 1000));
    app.add_option("--nbest,-n", nbest_,
                   "hypotheses listed per sentence, at most --beam (default: --beam, at most 10)")
        ->check(int_range(1, 1000));
    app.add_option("--max-sentences", max_sentences_,
                   "only the first N lines of the input (0: all)")
        ->capture_default_str()
        ->check(int_range(0, 100000000));
    app.add_flag("--no-saliency", no_saliency_,
                 "skip the saliency maps (one backward pass per output token): attention only");
    app.add_option("--png-scale", png_scale_, "PNG pixels per SVG pixel")
        ->capture_default_str()
        ->check(real_range(0.25, 8));
    app.add_option("--batch-size,-b", batch_size_, "sentences per batch")
        ->capture_default_str()
        ->check(int_range(1, 100000));
    app.footer(
        "Writes OUT/sentence-NNNN.svg and .png for input line NNNN (1-based): the best output's\n"
        "attention map (rows: output tokens, columns: source tokens) and its saliency map side\n"
        "by side; and OUT/report.html, one file with every line, its n-best list with scores\n"
        "and both maps (hover a cell for its weight, click an output token for its row). A\n"
        "model without attention gets the saliency map alone. Exit codes: 0 done, 1 runtime\n"
        "error, 2 bad command line.");
  }

  int run() override {
    if (nbest_ > beam_)
      throw UsageError(detail::concat("--nbest ", nbest_, " is larger than --beam ", beam_,
                                      "; a beam of k keeps at most k hypotheses"));
    const std::int64_t nbest = nbest_ > 0 ? nbest_ : std::min<std::int64_t>(beam_, 10);
    if (input_ != "-" && !fs::exists(input_)) throw UsageError("--input " + input_ + ": no such file");
    if (input_ != "-" && fs::is_directory(input_))
      throw UsageError("--input " + input_ + ": is a directory, expected a file");
    if (fs::exists(out_) && !fs::is_directory(out_))
      throw UsageError("--out " + out_ + ": is a file; --out names a directory to write into");
    if (model_.specs().size() > 1 && !no_saliency_)
      throw UsageError("saliency maps need a single model; give one --model, or --no-saliency");

    const std::string input_name = input_ == "-" ? "<stdin>" : input_;
    std::vector<std::string> lines = input_ == "-" ? read_stdin_lines() : read_lines(input_);
    if (max_sentences_ > 0 && lines.size() > static_cast<std::size_t>(max_sentences_))
      lines.resize(static_cast<std::size_t>(max_sentences_));
    HEED_CHECK(std::any_of(lines.begin(), lines.end(),
                           [](const std::string& l) {
                             return l.find_first_not_of(" \t") != std::string::npos;
                           }),
               input_name, ": no sentence to show (", lines.empty() ? "no lines" : "every line is blank",
               ")");

    kernels::set_num_threads(1);  // parallel work is whole batches (TranslateOptions::threads)
    const LineTranslator translator = LineTranslator::load(model_.specs());
    const bool attention = translator.has_attention();
    if (!attention && no_saliency_)
      throw UsageError(model_.label() + " has no attention; without the saliency maps there is "
                       "nothing to draw (leave out --no-saliency)");

    std::error_code ec;
    fs::create_directories(out_, ec);
    HEED_CHECK(!ec && fs::is_directory(out_), out_, ": cannot create the output directory (",
               ec ? ec.message() : "a file of that name exists", ")");

    TranslateOptions options;
    options.decode.beam = static_cast<std::size_t>(beam_);
    options.decode.n_best = static_cast<std::size_t>(nbest);
    options.batch_size = batch_size_;
    options.keep_attention = attention;
    options.threads = 0;
    options.max_input_tokens = 1000;
    const std::size_t n = lines.size();
    const Progress progress(n);
    std::vector<Translation> result = translator.translate(
        lines, options, [&](std::size_t done, std::size_t) { progress.say("translated sentence", done); });
    std::vector<std::vector<float>> saliency(n);
    if (!no_saliency_) {
      saliency = best_hypothesis_saliency(translator, result, batch_size_,
                                          [&](std::size_t done, std::size_t total) {
                                            if (done == total) progress.say("saliency of sentence", n);
                                          });
    }

    const fs::path dir(out_);
    std::vector<viz::ReportSentence> report;
    std::size_t pictures = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const Translation& t = result[i];
      viz::ReportSentence s;
      s.line = static_cast<std::int64_t>(i + 1);
      s.input = lines[i];
      s.source = t.source;
      s.saliency = saliency[i];
      for (const auto& h : t.nbest) s.nbest.push_back({h.text, h.score, h.output, h.attention});
      if (t.skipped) {
        s.note = "not translated: " + std::to_string(t.source_tokens) + " tokens, more than the " +
                 "longest source the model accepts";
      } else if (t.nbest.empty()) {
        s.note = "empty line";
      } else if (t.nbest.front().output.empty()) {
        s.note = "empty output";
      } else if (!attention && s.saliency.empty()) {
        s.note = "no saliency map (the source changes when its pieces are tokenised again)";
      } else {
        s.picture = picture_name(i + 1);
        draw(dir, s, t);
        ++pictures;
      }
      report.push_back(std::move(s));
      progress.say("drew sentence", i + 1);
    }
    viz::ReportInfo info;
    info.input = input_name;
    info.model = model_.label();
    info.beam = static_cast<std::size_t>(beam_);
    info.attention = attention;
    info.saliency = !no_saliency_;
    const fs::path page = dir / "report.html";
    write_file_atomically(page.string(), viz::report_html(info, report));
    std::cout << "wrote " << pictures << (pictures == 1 ? " picture" : " pictures") << " ("
              << (dir / "sentence-NNNN.svg").string() << ", .png) and " << page.string() << "\n";
    return 0;
  }

 private:
  void draw(const fs::path& dir, const viz::ReportSentence& s, const Translation& t) const {
    const TranslatedHypothesis& best = t.nbest.front();
    viz::AttentionPicture p;
    p.title = "Line " + std::to_string(s.line) + " \xC2\xB7 score " + score_text(best.score) +
              " \xC2\xB7 " + model_.label();
    p.subtitle = s.input + "  \xE2\x86\x92  " + best.text;
    p.source = t.source;
    p.output = best.output;
    p.attention = best.attention;
    p.saliency = s.saliency;
    write_file_atomically((dir / (s.picture + ".svg")).string(), viz::picture_svg(p));
    write_file_atomically((dir / (s.picture + ".png")).string(), viz::picture_png(p, png_scale_));
  }

  ModelFlags model_;
  std::string input_, out_;
  std::int64_t beam_ = 5, nbest_ = 0, max_sentences_ = 0;
  double png_scale_ = 2.0;
  std::size_t batch_size_ = 32;
  bool no_saliency_ = false;
};

}  // namespace

std::unique_ptr<Command> make_show_command() { return std::make_unique<ShowCommand>(); }

}  // namespace heed::cli
