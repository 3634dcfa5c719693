// The view of `heed show --input` for a text model (model.kind bahdanau, luong, noattn,
// transformer): per sentence the best output's attention and saliency maps side by side (SVG
// and PNG), for a model with several attention heads per layer (the Transformer) every
// layer's heads too (sentence-NNNN-heads.svg, .png), and report.html with every line and its
// n-best list (docs/cli/show.md).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "heed/base/atomic_file.h"
#include "heed/base/error.h"
#include "heed/cli/show_output.h"
#include "heed/cli/show_view.h"
#include "heed/kernels/gemm.h"
#include "heed/models/model_registry.h"
#include "heed/translate/best_saliency.h"
#include "heed/translate/line_translator.h"
#include "heed/viz/attention_picture.h"
#include "heed/viz/heads_picture.h"
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

// The picture of one sentence: the best hypothesis' attention beside its saliency.
void draw(const ShowOptions& o, const fs::path& dir, const viz::ReportSentence& s,
          const Translation& t, bool coverage) {
  const TranslatedHypothesis& best = t.nbest.front();
  viz::AttentionPicture p;
  p.title = "Line " + std::to_string(s.line) + " \xC2\xB7 score " + score_text(best.score) +
            " \xC2\xB7 " + o.model.label();
  p.subtitle = s.input + "  \xE2\x86\x92  " + best.text;
  p.source = t.source;
  p.output = best.output;
  p.attention = best.attention;
  p.saliency = s.saliency;
  p.p_gen = best.p_gen;  // copy attention, else empty
  p.copied = best.copied;
  p.coverage = coverage && !best.attention.empty();
  write_file_atomically((dir / (s.picture + ".svg")).string(), viz::picture_svg(p));
  write_file_atomically((dir / (s.picture + ".png")).string(), viz::picture_png(p, o.png_scale));
}

// Every layer's heads for one sentence (a model with several heads per layer), one picture per
// attention: the encoder-decoder attention (sentence-NNNN-heads), the encoder's
// self-attention (-encoder-heads) and the decoder's (-decoder-heads).
void draw_heads(const ShowOptions& o, const fs::path& dir, viz::ReportSentence& s,
                const Translation& t, const BestHypothesisMaps& maps) {
  const TranslatedHypothesis& best = t.nbest.front();
  const std::size_t rows = maps.heads.front().size() / static_cast<std::size_t>(maps.head_count) /
                           t.source.size();
  const std::vector<std::string> output(best.output.begin(),
                                        best.output.begin() + static_cast<std::ptrdiff_t>(rows));
  // The decoder's inputs: <s>, then each output but the last.
  std::vector<std::string> inputs{"<s>"};
  inputs.insert(inputs.end(), output.begin(), output.end() - 1);
  const auto one = [&](const std::string& what, const std::string& axes,
                       const std::vector<std::string>& row_tokens,
                       const std::vector<std::string>& col_tokens,
                       const std::vector<std::vector<float>>& layers, const std::string& suffix) {
    if (layers.empty()) return;
    viz::HeadsPicture p;
    p.title = "Line " + std::to_string(s.line) + " \xC2\xB7 " + what + " \xC2\xB7 every head "
              "of every layer \xC2\xB7 " + o.model.label();
    p.subtitle = s.input + "  \xE2\x86\x92  " + best.text;
    p.axes = axes;
    p.source = col_tokens;
    p.output = row_tokens;
    p.heads = maps.head_count;
    p.layers = layers;
    const std::string name = s.picture + suffix;
    write_file_atomically((dir / (name + ".svg")).string(), viz::heads_svg(p));
    write_file_atomically((dir / (name + ".png")).string(), viz::heads_png(p, o.png_scale));
    s.more_pictures.emplace_back("every head, " + what, name);
  };
  one("encoder\xE2\x80\x93" "decoder attention",
      "rows: the output token being written \xC2\xB7 columns: the source token it reads",
      output, t.source, maps.heads, "-heads");
  one("encoder self-attention",
      "rows: each source token \xC2\xB7 columns: the source token it reads", t.source, t.source,
      maps.encoder_heads, "-encoder-heads");
  one("decoder self-attention (masked)",
      "rows: the output token being written \xC2\xB7 columns: the decoder input it reads "
      "(<s>, then the outputs so far)",
      output, inputs, maps.decoder_heads, "-decoder-heads");
}

void show_text(const ShowOptions& o, const TrainConfig& config,
               const std::vector<std::string>& lines) {
  const std::int64_t nbest = o.nbest > 0 ? o.nbest : std::min<std::int64_t>(o.beam, 10);
  kernels::set_num_threads(1);  // parallel work is whole batches (TranslateOptions::threads)
  const LineTranslator translator = LineTranslator::load(o.model.specs());
  const bool attention = translator.has_attention();
  if (!attention && o.no_saliency)
    throw UsageError(o.model.label() +
                     " has no attention; without the saliency maps there is "
                     "nothing to draw (leave out --no-saliency)");

  make_show_dir(o.out);

  TranslateOptions options;
  options.decode.beam = static_cast<std::size_t>(o.beam);
  options.decode.n_best = static_cast<std::size_t>(nbest);
  options.batch_size = o.batch_size;
  options.keep_attention = attention;
  options.threads = 0;
  options.max_input_tokens = 1000;
  const std::size_t n = lines.size();
  const ShowProgress progress(n);
  std::vector<Translation> result = translator.translate(
      lines, options,
      [&](std::size_t done, std::size_t) { progress.say("translated sentence", done); });
  // The forced pass of each best hypothesis: its saliency, and every head where the model
  // has several per layer (drawn besides the attention the hypothesis was decoded with).
  std::vector<BestHypothesisMaps> maps(n);
  if (!o.no_saliency || attention) {
    maps = best_hypothesis_maps(translator, result, o.batch_size, !o.no_saliency,
                                [&](std::size_t done, std::size_t total) {
                                  if (done == total && !o.no_saliency)
                                    progress.say("saliency of sentence", n);
                                });
  }

  const fs::path dir(o.out);
  std::vector<viz::ReportSentence> report;
  std::size_t pictures = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const Translation& t = result[i];
    viz::ReportSentence s;
    s.line = static_cast<std::int64_t>(i + 1);
    s.input = lines[i];
    s.source = t.source;
    s.saliency = maps[i].saliency;
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
      draw(o, dir, s, t, o.coverage || config.model.coverage);
      if (!maps[i].heads.empty()) draw_heads(o, dir, s, t, maps[i]);
      ++pictures;
    }
    report.push_back(std::move(s));
    progress.say("drew sentence", i + 1);
  }
  viz::ReportInfo info;
  info.input = o.input_name();
  info.model = o.model.label();
  info.beam = static_cast<std::size_t>(o.beam);
  info.attention = attention;
  info.saliency = !o.no_saliency;
  const fs::path page = dir / "report.html";
  write_file_atomically(page.string(), viz::report_html(info, report));
  std::cout << "wrote " << pictures << (pictures == 1 ? " picture" : " pictures") << " ("
            << (dir / "sentence-NNNN.svg").string() << ", .png) and " << page.string() << "\n";
}

// An encoder–decoder over tokens: whatever reads no images.
bool reads_text(ModelKind kind) { return is_sequence_to_sequence(kind); }

}  // namespace

extern const ShowView kShowText{ShowInput::sentences, reads_text, show_text};

}  // namespace heed::cli
