#pragma once
// LineTranslator: raw sentences in, detokenised translations out (what `heed translate` runs).
// It tokenises with the model's source tokeniser, batches the sentences sorted by length,
// decodes greedily (beam 1) or with beam search, restores the input order, and detokenises
// with the target tokeniser, optionally replacing output UNKs by the most-attended source
// piece. Several models are decoded as one Ensemble; they must share the vocabularies and
// tokenisers (checked when the LineTranslator is built).
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "heed/decode/decode_options.h"
#include "heed/kernels/precision.h"
#include "heed/store/model_dir.h"
#include "heed/translate/ensemble_members.h"
#include "heed/translate/shortlist.h"

namespace heed {

struct TranslateOptions {
  DecodeOptions decode;          // beam 1 = greedy decoding; n_best <= beam
  std::size_t batch_size = 32;   // sentences per batch (each holds beam rows in beam search)
  bool replace_unk = false;      // output UNK -> most-attended source piece
  bool keep_attention = false;   // fill every hypothesis' attention matrix
  // Batches decoded in parallel, each by a worker with single-threaded kernels; 0 = the
  // hardware's thread count. The output is the same for any value.
  std::size_t threads = 1;
  // Sources longer than this many tokens (EOS included) are not decoded; 0 = no limit of
  // its own. The model's own maximum source length (if any) applies as well.
  std::size_t max_input_tokens = 0;
  // false: an over-long source is skipped (Translation::skipped, empty output); true: it
  // is an error naming the first such line, raised before anything is decoded.
  bool strict = false;
  // A vocabulary shortlist (translate/shortlist.h, docs/DECODING.md#vocabulary-shortlists):
  // each batch scores only the union of its frequent targets and the batch's source tokens'
  // lists. Null: the whole target vocabulary.
  std::shared_ptr<const ShortlistIndex> shortlist;
};

struct TranslatedHypothesis {
  std::string text;                 // detokenised output (UNKs replaced when asked)
  double score = 0.0;               // log-probability / length penalty
  std::vector<std::string> output;  // target pieces as emitted, "</s>" included if emitted
  // |output| x |source| row-major, row t the attention while emitting output[t]; only with
  // keep_attention.
  std::vector<float> attention;
  // Copy attention (model.copy): per output piece, p_gen (the weight of generating from the
  // vocabulary against copying from the source) and whether it was copied: a source word
  // the target vocabulary lacks, which only copying produces. Empty for other models.
  std::vector<float> p_gen;
  std::vector<std::uint8_t> copied;
};

struct Translation {
  // Source pieces as the encoder saw them ("</s>" appended); empty for an empty line.
  std::vector<std::string> source;
  // Best first, n_best of them; empty for a line without tokens (its output is "").
  std::vector<TranslatedHypothesis> nbest;
  // The source was longer than the limit (TranslateOptions::max_input_tokens or the model's
  // maximum source length) and was not decoded: nbest is empty. source_tokens says how long.
  bool skipped = false;
  std::size_t source_tokens = 0;
  // With a vocabulary shortlist (TranslateOptions::shortlist): how many target ids its batch
  // was decoded with (the union over the batch); 0 without one.
  std::size_t shortlist_ids = 0;
};

// A given sentence pair aligned by forced decoding (LineTranslator::align).
struct ForcedAlignment {
  std::vector<std::string> source;  // source pieces, "</s>" appended; empty for an empty pair
  std::vector<std::string> target;  // target pieces, "</s>" appended; empty for an empty pair
  // |target| x |source| row-major: row t the attention while the model is made to emit
  // target[t] after target[0..t-1] (teacher forcing).
  std::vector<float> attention;
  // With saliency, the same layout: the norm of d log p(target[t]) / d e(source[j]), and
  // that gradient dotted with e(source[j]) (Seq2Seq::saliency).
  std::vector<float> saliency, grad_x_input;
  // A model with several attention heads per layer (the Transformer; Seq2Seq::attention_heads):
  // per layer, heads x |target| x |source| row-major (the encoder-decoder attention); empty
  // otherwise. Its self-attentions: per encoder layer heads x |source| x |source|, per decoder
  // layer heads x |target| x |target| (row t reads the inputs BOS, target[0..t-1]).
  std::vector<std::vector<float>> heads, encoder_heads, decoder_heads;
  std::int64_t head_count = 0;
};

class LineTranslator {
 public:
  // Loads every model (load_model_dir) and checks that they can form an ensemble.
  // precision: the products with the weights in everything this translator decodes
  // (heed translate --precision; models/compute_type.h), told to the models here once; none
  // given: int8 when the first model's weights are quantised (heed quantize,
  // store/quantized_weights.h), fp32 otherwise.
  static LineTranslator load(const std::vector<ModelSpec>& specs,
                             std::optional<kernels::MatmulPrecision> precision = std::nullopt);
  // From models already loaded; names (e.g. their directories) label error messages and, for
  // SentencePiece tokenisers, locate the .model files compared between members.
  LineTranslator(std::vector<LoadedModel> models, std::vector<std::string> names,
                 std::optional<kernels::MatmulPrecision> precision = std::nullopt);
  LineTranslator(LineTranslator&&) noexcept;
  LineTranslator& operator=(LineTranslator&&) noexcept;
  ~LineTranslator();

  // One Translation per line, in input order. progress(done, total) is called after every
  // batch (sentences, empty lines included in both).
  std::vector<Translation> translate(
      const std::vector<std::string>& lines, const TranslateOptions& options,
      const std::function<void(std::size_t, std::size_t)>& progress = {}) const;

  // Forced decoding: the attention of the model (or the ensemble's mean) over each source
  // line while it is fed the given target line, batch_size pairs at a time, sorted by
  // length. A pair with an empty side gives an empty ForcedAlignment. A source longer than
  // the model's maximum source length is an error naming its line. saliency: also the
  // saliency maps (one backward pass per target position; a single model only, and not
  // concurrently with another call on the same model).
  std::vector<ForcedAlignment> align(
      const std::vector<std::string>& sources, const std::vector<std::string>& targets,
      std::size_t batch_size, bool saliency = false,
      const std::function<void(std::size_t, std::size_t)>& progress = {}) const;
  // The same with the targets given as pieces of the target vocabulary (no EOS), e.g. a
  // decoded hypothesis' output, so nothing is lost to detokenising and tokenising again.
  std::vector<ForcedAlignment> align_pieces(
      const std::vector<std::string>& sources,
      const std::vector<std::vector<std::string>>& targets, std::size_t batch_size,
      bool saliency = false,
      const std::function<void(std::size_t, std::size_t)>& progress = {}) const;

  bool has_attention() const;
  // The longest source (pieces + EOS) every model accepts; 0 = no limit.
  std::size_t max_source_length() const { return max_src_len_; }
  std::size_t size() const { return models_.size(); }
  const LoadedModel& model(std::size_t i) const { return models_.at(i); }

 private:
  std::vector<LoadedModel> models_;
  std::vector<std::string> names_;
  std::shared_ptr<const Seq2Seq> decoder_;  // the single model, or the Ensemble
  std::size_t max_src_len_ = 0;
};

}  // namespace heed
