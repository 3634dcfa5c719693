#include "heed/cli/plot_command.h"

#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "heed/base/atomic_file.h"
#include "heed/base/error.h"
#include "heed/cli/enum_option.h"
#include "heed/data/text_file.h"
#include "heed/viz/attention_plot.h"
#include "heed/viz/attention_record.h"
#include "heed/viz/history_charts.h"
#include "heed/viz/length_scores.h"
#include "heed/viz/line_chart_picture.h"
#include "heed/viz/line_chart_svg.h"

namespace heed::cli {
namespace {

namespace fs = std::filesystem;

// "0,3,5" -> {0, 3, 5}; spaces around numbers are allowed, anything else is an error.
std::vector<std::int64_t> parse_sentence_list(const std::string& text) {
  std::vector<std::int64_t> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    std::string item = text.substr(start, comma - start);
    const auto b = item.find_first_not_of(' '), e = item.find_last_not_of(' ');
    item = b == std::string::npos ? "" : item.substr(b, e - b + 1);
    HEED_CHECK(!item.empty() && item.find_first_not_of("0123456789") == std::string::npos &&
                   item.size() <= 18,
               "--sentences: '", item, "' is not a sentence index (expected e.g. 0,3,5)");
    out.push_back(std::stoll(item));
    start = comma + 1;
  }
  return out;
}

// Replaces path with content through a temporary file (write_lines never half-writes).
void write_file(const fs::path& path, const std::string& content) {
  write_lines(path.string(), {content.back() == '\n' ? content.substr(0, content.size() - 1)
                                                     : content});
}

class PlotCommand : public Command {
 public:
  std::string name() const override { return "plot"; }
  std::string description() const override {
    return "Draw attention heat maps (SVG) and an index page from `heed translate --attention` "
           "output, a chart of scores by source length from `heed score --by-length --json`, or "
           "the training curves of model directories (--history)";
  }

  void setup(CLI::App& app) override {
    app.add_option("--attention,-a", attention_,
                   "attention JSON Lines file (docs/ATTENTION_JSON.md)");
    app.add_option("--by-length", by_length_,
                   "scores by source length from `heed score --by-length ... --json` (repeat: one "
                   "line per system)");
    app.add_option("--history", history_,
                   "model directory of heed train: draw its training curves from history.jsonl "
                   "(repeat: several runs on each chart)");
    app.add_option("--out,-o", out_,
                   "with --attention or --history: directory for the SVG (and, --history, PNG) "
                   "files and index.html (created if missing); with --by-length: the SVG file")
        ->required();
    app.add_option("--sentences,-s", sentences_,
                   "only these sentence indices, comma-separated (e.g. 0,3,5); default: all");
    app.add_flag("--values", values_, "print each weight inside its cell");
    app.add_option("--title", title_,
                   "--by-length: the chart's title (default: \"BLEU by source "
                   "length\" etc.)");
    app.add_option("--y-title", y_title_,
                   "--by-length: the y axis title (default: the metric, e.g. \"BLEU\")");
    ci_option_ = add_enum_option(app, "--ci", ci_,
                                 "--by-length: draw the 95% intervals as a band or as error "
                                 "bars");
    app.footer(
        "--attention: writes one SVG per sentence (DIR/attention_<index>.svg: output tokens down\n"
        "the left, source tokens along the top, viridis colours on [0, 1]) and DIR/index.html\n"
        "listing them with their sentences. Existing files of the same names are replaced.\n"
        "--by-length: one line chart (score against source length, one line per file, 95%\n"
        "intervals shaded) written to the file --out names.\n"
        "--history: DIR/{loss,metric,lr}_by_{step,time}.svg and .png (the loss, the dev metric\n"
        "and the learning rate at each validation, one colour per run) and DIR/index.html\n"
        "showing them.");
    app.callback([this] { check_mode(); });
  }

  int run() override {
    if (!by_length_.empty()) return run_by_length();
    if (!history_.empty()) return run_history();
    HEED_CHECK(fs::exists(attention_), attention_, ": no such file");
    HEED_CHECK(!fs::is_directory(attention_), attention_, ": is a directory, expected a file");
    std::vector<viz::AttentionRecord> records = viz::read_attention_file(attention_);
    if (!sentences_.empty()) records = select(records, parse_sentence_list(sentences_));

    std::error_code ec;
    fs::create_directories(out_, ec);
    HEED_CHECK(!ec && fs::is_directory(out_), out_, ": cannot create the output directory (",
               ec ? ec.message() : "a file of that name exists", ")");
    const fs::path dir(out_);
    for (const auto& r : records) {
      write_file(dir / viz::attention_svg_name(r), viz::attention_svg(r, values_));
    }
    const fs::path index = dir / "index.html";
    write_file(index, viz::attention_index_html(records, fs::path(attention_).filename().string()));
    std::cout << "wrote " << records.size() << (records.size() == 1 ? " heat map" : " heat maps")
              << " (" << (dir / "attention_<index>.svg").string() << ") and " << index.string()
              << "\n";
    return 0;
  }

 private:
  // The two modes, checked at parse time so that a wrong combination is a usage error.
  void check_mode() const {
    HEED_CHECK(!attention_.empty() || !by_length_.empty() || !history_.empty(),
               "plot: give --attention FILE (heat maps), --by-length FILE.json (a chart of "
               "scores by source length) or --history MODEL_DIR (training curves)");
    HEED_CHECK((!attention_.empty()) + (!by_length_.empty()) + (!history_.empty()) == 1,
               "plot: --attention and --by-length (and --history) draw different things; give "
               "one of them");
    if (!history_.empty()) {
      HEED_CHECK(title_.empty() && ci_option_->count() == 0 && y_title_.empty() &&
                     sentences_.empty() && !values_,
                 "plot: --title, --y-title and --ci belong to --by-length, --sentences and "
                 "--values to --attention");
    } else if (by_length_.empty()) {
      HEED_CHECK(title_.empty() && ci_option_->count() == 0 && y_title_.empty(),
                 "plot: --title, --y-title and --ci belong to --by-length");
    } else {
      HEED_CHECK(sentences_.empty() && !values_,
                 "plot: --sentences and --values belong to --attention");
    }
  }

  int run_by_length() {
    HEED_CHECK(!fs::is_directory(out_), out_,
               ": is a directory; with --by-length, --out names "
               "the SVG file to write");
    std::vector<viz::LengthScores> files;
    for (const auto& path : by_length_) files.push_back(viz::read_length_scores(path));
    viz::LineChart chart = viz::length_chart(files, title_);
    if (!y_title_.empty()) chart.y_title = y_title_;
    chart.intervals = ci_;
    write_file_atomically(out_, viz::line_chart_svg(chart));
    std::cout << "wrote " << out_ << " (" << chart.y_title << " by source length, " << files.size()
              << (files.size() == 1 ? " system, " : " systems, ") << chart.categories.size()
              << " buckets)\n";
    return 0;
  }

  // Every history is read and drawn before anything is written: a bad one leaves no files
  // behind. The PNGs have twice the SVG's pixels, sharp on high-density screens (heed show's
  // default scale).
  static constexpr double kPngScale = 2.0;
  int run_history() {
    std::vector<viz::TrainingHistory> runs;
    std::size_t validations = 0;
    for (const auto& dir : history_) {
      runs.push_back(viz::read_training_history(dir));
      validations += runs.back().points.size();
    }
    const std::vector<viz::HistoryChart> charts = viz::history_charts(runs);
    std::vector<std::pair<std::string, std::string>> files;
    for (const auto& c : charts) {
      files.emplace_back(c.name + ".svg", viz::line_chart_picture_svg(c.chart));
      files.emplace_back(c.name + ".png", viz::line_chart_picture_png(c.chart, kPngScale));
    }
    files.emplace_back("index.html", viz::history_page(runs));
    std::error_code ec;
    fs::create_directories(out_, ec);
    HEED_CHECK(!ec && fs::is_directory(out_), out_, ": cannot create the output directory (",
               ec ? ec.message() : "a file of that name exists", ")");
    for (const auto& [name, content] : files) write_file_atomically((fs::path(out_) / name).string(), content);
    std::cout << "wrote " << charts.size() << " charts and " << (fs::path(out_) / "index.html").string()
              << " (" << runs.size() << (runs.size() == 1 ? " run, " : " runs, ") << validations
              << (validations == 1 ? " validation" : " validations") << "; each chart as .svg and .png)\n";
    return 0;
  }

  std::vector<viz::AttentionRecord> select(std::vector<viz::AttentionRecord>& all,
                                           const std::vector<std::int64_t>& wanted) const {
    std::map<std::int64_t, std::size_t> by_index;
    for (std::size_t i = 0; i < all.size(); ++i) by_index[all[i].index] = i;
    std::vector<viz::AttentionRecord> picked;
    std::map<std::int64_t, bool> done;
    for (std::int64_t w : wanted) {
      auto it = by_index.find(w);
      HEED_CHECK(it != by_index.end(), attention_, ": no sentence with index ", w,
                 " (the file holds ", all.size(), " sentences, indices ",
                 by_index.begin()->first, "..", by_index.rbegin()->first, ")");
      if (done[w]) continue;  // "--sentences 3,3" draws it once
      done[w] = true;
      picked.push_back(std::move(all[it->second]));
    }
    return picked;
  }

  std::string attention_, out_, sentences_, title_, y_title_;
  viz::IntervalStyle ci_ = viz::IntervalStyle::band;
  CLI::Option* ci_option_ = nullptr;
  std::vector<std::string> by_length_, history_;
  bool values_ = false;
};

}  // namespace

std::unique_ptr<Command> make_plot_command() { return std::make_unique<PlotCommand>(); }

}  // namespace heed::cli
