#include "heed/cli/align_command.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "heed/base/error.h"
#include "heed/cli/alignment_options.h"
#include "heed/cli/model_options.h"
#include "heed/cli/output_lines.h"
#include "heed/cli/validators.h"
#include "heed/data/text_file.h"
#include "heed/translate/alignment.h"
#include "heed/translate/line_translator.h"
#include "heed/viz/attention_record.h"

namespace heed::cli {
namespace {

// Each row scaled to sum to 1 (a row of zeros stays zero).
std::vector<float> row_normalised(const std::vector<float>& m, std::size_t cols) {
  std::vector<float> out(m.size());
  for (std::size_t r = 0; r + cols <= m.size(); r += cols) {
    double sum = 0;
    for (std::size_t j = 0; j < cols; ++j) sum += m[r + j];
    for (std::size_t j = 0; j < cols; ++j)
      out[r + j] = sum > 0 ? static_cast<float>(m[r + j] / sum) : 0.0f;
  }
  return out;
}

class AlignCommand : public Command {
 public:
  std::string name() const override { return "align"; }
  std::string description() const override {
    return "Align given sentence pairs by forced decoding: the model's attention while it is "
           "made to emit the target, as Pharaoh links (or soft rows)";
  }

  void setup(CLI::App& app) override {
    add_model_options(app, model_);
    add_attention_options(app, model_);
    app.add_option("--source,-s", source_, "source file, one sentence per line")
        ->required()
        ->check(CLI::ExistingFile);
    app.add_option("--target,-t", target_, "target file, line i the translation of source line i")
        ->required()
        ->check(CLI::ExistingFile);
    add_alignment_options(app, alignment_, "what to write (default hard)");
    app.add_option("--from", from_,
                   "what the alignment is read from: attention, or saliency (the norm of the "
                   "gradient of each target token's log-probability with respect to each source "
                   "embedding, each row scaled to sum to 1; works for models without attention)")
        ->check(CLI::IsMember({"attention", "saliency"}))
        ->capture_default_str();
    app.add_flag("--saliency", saliency_,
                 "also compute the saliency maps and write them into the --attention records");
    app.add_option("--output,-o", output_, "output file, written atomically (default: stdout)");
    app.add_option("--attention,-a", attention_,
                   "also write the forced attention of every pair as JSON Lines "
                   "(docs/ATTENTION_JSON.md; draw it with heed plot)");
    app.add_option("--batch-size,-b", batch_size_, "sentence pairs per batch (sorted by length)")
        ->capture_default_str()
        ->check(int_range(1, 100000));
    app.footer(
        "Writes one line per pair: links i-j from source position i to target position j,\n"
        "0-based, in pieces (or words with --alignment-words), the EOS of both sides left out;\n"
        "an empty line for a pair with an empty side. Score it against a gold alignment with\n"
        "heed score --metric aer. Exit codes: 0 done, 1 runtime error, 2 bad command line.");
  }

  int run() override {
    const ParallelText text = read_parallel(source_, target_);
    const AlignmentOptions options = alignment_.options();
    const LineTranslator translator = LineTranslator::load(model_.specs());
    const bool from_saliency = from_ == "saliency";
    HEED_CHECK(attention_.empty() || translator.has_attention(), "--attention needs a model with "
               "attention (", model_.label(), " has none); --from saliency aligns without it");
    const std::vector<ForcedAlignment> forced =
        translator.align(text.source, text.target, batch_size_, from_saliency || saliency_);

    const Tokenizer& src_tok = *translator.model(0).src_tokenizer;
    const Tokenizer& tgt_tok = *translator.model(0).tgt_tokenizer;
    std::vector<std::string> lines;
    std::vector<viz::AttentionRecord> records;
    lines.reserve(forced.size());
    for (std::size_t i = 0; i < forced.size(); ++i) {
      const ForcedAlignment& f = forced[i];
      if (f.source.empty()) {
        lines.emplace_back();
        continue;
      }
      const std::vector<float> weights =
          from_saliency ? row_normalised(f.saliency, f.source.size()) : f.attention;
      lines.push_back(alignment_text(make_attention_matrix(f.source, f.target, weights), options,
                                     src_tok, tgt_tok));
      if (attention_.empty()) continue;
      viz::AttentionRecord r;
      r.index = static_cast<std::int64_t>(i);
      r.source = f.source;
      r.output = f.target;
      r.alpha = f.attention;
      r.saliency = f.saliency;
      r.grad_x_input = f.grad_x_input;
      r.model = model_.label();
      records.push_back(std::move(r));
    }
    if (!attention_.empty()) viz::write_attention_file(attention_, records);
    write_output_lines(output_, lines);
    return 0;
  }

 private:
  ModelFlags model_;
  AlignmentFlags alignment_;
  std::string source_, target_, output_, attention_, from_ = "attention";
  bool saliency_ = false;
  std::size_t batch_size_ = 32;
};

}  // namespace

std::unique_ptr<Command> make_align_command() { return std::make_unique<AlignCommand>(); }

}  // namespace heed::cli
