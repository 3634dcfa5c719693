// The public heed::Translator (include/heed/translator.h) over translate/: a LineTranslator
// behind a pointer, the public options mapped onto TranslateOptions, and the hypotheses'
// attention, saliency and alignments filled as `heed translate` and `heed serve` fill them.
#include "heed/translator.h"

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "heed/base/error.h"
#include "heed/translate/alignment.h"
#include "heed/translate/best_saliency.h"
#include "heed/translate/line_translator.h"
#include "heed/translate/shortlist.h"

namespace heed {

struct Translator::Impl {
  explicit Impl(LineTranslator t) : translator(std::move(t)) {}
  LineTranslator translator;
  // Saliency runs backward passes through the model's gradient buffers: one call at a time.
  mutable std::mutex saliency_mutex;
  // Options::shortlist read once per path.
  mutable std::mutex shortlist_mutex;
  mutable std::string shortlist_path;
  mutable std::shared_ptr<const ShortlistIndex> shortlist;

  std::shared_ptr<const ShortlistIndex> shortlist_for(const std::string& path) const {
    if (path.empty()) return nullptr;
    std::lock_guard lock(shortlist_mutex);
    if (path != shortlist_path || !shortlist) {
      const LoadedModel& m = translator.model(0);
      shortlist = std::make_shared<const ShortlistIndex>(read_shortlist(path), m.src_vocab,
                                                         m.tgt_vocab);
      shortlist_path = path;
    }
    return shortlist;
  }
};

namespace {

TranslateOptions translate_options(const Translator::Options& o) {
  HEED_CHECK(o.beam >= 1, "heed::Translator: beam ", o.beam, " is not at least 1");
  HEED_CHECK(o.n_best >= 1 && o.n_best <= o.beam, "heed::Translator: n_best ", o.n_best,
             " is not in 1..beam (", o.beam, ")");
  HEED_CHECK(o.batch_size >= 1, "heed::Translator: batch_size must be at least 1");
  HEED_CHECK(o.max_len_a >= 0 && o.max_len_b >= 0,
             "heed::Translator: max_len_a and max_len_b must not be negative");
  TranslateOptions t;
  t.decode.beam = o.beam;
  t.decode.n_best = o.n_best;
  t.decode.alpha = o.alpha;
  t.decode.len_a = o.max_len_a;
  t.decode.len_b = o.max_len_b;
  HEED_CHECK((o.window_before < 0) == (o.window_after < 0),
             "heed::Translator: window_before and window_after are both set (>= 0) or both -1, "
             "got ", o.window_before, " and ", o.window_after);
  if (o.window_before >= 0) t.decode.window = {o.window_before, o.window_after};
  t.batch_size = o.batch_size;
  t.threads = o.threads;
  t.max_input_tokens = o.max_input_tokens;
  t.replace_unk = o.replace_unk;
  t.keep_attention = o.attention || !o.alignment.empty();
  return t;
}

}  // namespace

Translator::Translator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Translator::Translator(Translator&&) noexcept = default;
Translator& Translator::operator=(Translator&&) noexcept = default;
Translator::~Translator() = default;

Translator Translator::load(const std::string& model_dir, const std::string& weights) {
  return Translator(std::make_unique<Impl>(LineTranslator::load({{model_dir, weights, {}}})));
}

Translator Translator::load_ensemble(const std::vector<std::string>& model_dirs) {
  HEED_CHECK(!model_dirs.empty(), "heed::Translator::load_ensemble: no model directory");
  std::vector<ModelSpec> specs;
  for (const auto& dir : model_dirs) specs.push_back({dir, "best", {}});
  return Translator(std::make_unique<Impl>(LineTranslator::load(specs)));
}

std::vector<Translator::Result> Translator::translate(const std::vector<std::string>& lines,
                                                      const Options& options) const {
  TranslateOptions t = translate_options(options);
  t.shortlist = impl_->shortlist_for(options.shortlist);
  const LineTranslator& lt = impl_->translator;
  HEED_CHECK(!(options.saliency && lt.size() > 1),
             "heed::Translator: saliency needs a single model, not an ensemble");
  std::optional<AlignmentOptions> align;
  if (!options.alignment.empty()) {
    HEED_CHECK(lt.has_attention(), "heed::Translator: alignment needs a model with attention");
    align = parse_alignment_mode(options.alignment);
    align->words = options.alignment_words;
  }
  std::vector<Translation> translations = lt.translate(lines, t);
  std::vector<std::vector<float>> saliency;
  if (options.saliency) {
    std::lock_guard lock(impl_->saliency_mutex);
    saliency = best_hypothesis_saliency(lt, translations, t.batch_size);
  }
  std::vector<Result> results(translations.size());
  for (std::size_t i = 0; i < translations.size(); ++i) {
    Translation& tr = translations[i];
    Result& r = results[i];
    r.skipped = tr.skipped;
    for (std::size_t k = 0; k < tr.nbest.size(); ++k) {
      TranslatedHypothesis& h = tr.nbest[k];
      Hypothesis out;
      out.text = std::move(h.text);
      out.score = h.score;
      if (align)
        out.alignment = alignment_text(make_attention_matrix(tr.source, h.output, h.attention), *align,
                                       *lt.model(0).src_tokenizer, *lt.model(0).tgt_tokenizer);
      out.tokens = std::move(h.output);
      out.p_gen = std::move(h.p_gen);
      out.copied.assign(h.copied.begin(), h.copied.end());
      if (options.attention) out.attention = std::move(h.attention);
      if (k == 0 && options.saliency) out.saliency = std::move(saliency[i]);
      r.nbest.push_back(std::move(out));
    }
    r.source = std::move(tr.source);
  }
  return results;
}

Translator::Result Translator::translate(const std::string& line, const Options& options) const {
  return std::move(translate(std::vector<std::string>{line}, options).front());
}

std::vector<Translator::Result> Translator::translate(const std::vector<std::string>& lines) const {
  return translate(lines, Options{});
}

Translator::Result Translator::translate(const std::string& line) const {
  return translate(line, Options{});
}

bool Translator::has_attention() const { return impl_->translator.has_attention(); }

std::size_t Translator::max_source_tokens() const { return impl_->translator.max_source_length(); }

const std::string& Translator::Result::best() const {
  static const std::string empty;
  return nbest.empty() ? empty : nbest.front().text;
}

}  // namespace heed
