#pragma once
// heed::Translator: a trained model (or an ensemble) loaded once, translating batches of raw
// sentences, as `heed translate` does, from a program of your own.
//
//   heed::Translator t = heed::Translator::load("runs/g2p");
//   for (const heed::Translator::Result& r : t.translate({"hello", "world"}))
//     std::cout << r.best() << "\n";
//
// Options choose greedy decoding or beam search, n-best lists, and what to keep beside each
// hypothesis: its attention over the source, its saliency (docs/VISUALIZE.md) and its
// alignment to the source (docs/DECODING.md#alignments). A Translator is thread-safe: calls of
// translate() from several threads on one Translator run concurrently (saliency maps, which
// use the model's gradient buffers, are computed one call at a time). Errors are heed::Error.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "heed/error.h"
#include "heed/export.h"

namespace heed {

class HEED_API Translator {
 public:
  struct Options {
    int beam = 5;              // beam width; 1 = greedy decoding
    int n_best = 1;            // hypotheses per sentence, at most beam
    double alpha = 0.0;        // length normalisation: score / |y|^alpha (0: log-probability)
    double max_len_a = 2.0;    // at most max_len_a * source tokens + max_len_b output tokens
    double max_len_b = 10.0;
    std::size_t batch_size = 32;   // sentences per batch (sorted by length)
    std::size_t threads = 1;       // batches decoded in parallel; 0 = one per hardware thread
    std::size_t max_input_tokens = 1000;  // longer sources are skipped (Result::skipped); 0 = no limit
    bool replace_unk = false;  // output UNK -> the most-attended source piece
    bool attention = false;    // fill Hypothesis::attention
    bool saliency = false;     // fill Hypothesis::saliency (the best hypothesis only)
    // "" (none), "hard", "soft" or a threshold such as "0.3": fills Hypothesis::alignment,
    // in Pharaoh form ("0-0 1-2 ..."), in word positions when alignment_words.
    std::string alignment;
    bool alignment_words = false;
    // Windowed decoding (docs/MODELS.md#windowed-decoding): each step after the first attends
    // only to the source positions [p - window_before, p + window_after] around the median p
    // of the previous step's attention; -1 (both) = off.
    int window_before = -1;
    int window_after = -1;
    // A vocabulary shortlist file made by `heed shortlist`
    // (docs/DECODING.md#vocabulary-shortlists): each batch scores only its union of target
    // pieces. "" = the whole vocabulary. Read on first use and kept (per path); pieces the
    // model's vocabularies lack are skipped silently.
    std::string shortlist;
  };

  struct Hypothesis {
    std::string text;                 // the detokenised output
    double score = 0.0;               // log-probability / length penalty
    std::vector<std::string> tokens;  // the output pieces as emitted ("</s>" last if emitted)
    // tokens.size() x source.size(), row-major: row t is the attention while emitting tokens[t].
    std::vector<float> attention;
    // The same layout: || d log p(tokens[t]) / d e(source[j]) ||, for the best hypothesis.
    std::vector<float> saliency;
    std::string alignment;            // Options::alignment's text
    // A model with copy attention (model.copy; docs/MODELS.md#copy-attention), per token:
    // p_gen, the probability of generating it from the vocabulary rather than copying it from
    // the source, and whether it was copied (a source word the target vocabulary lacks).
    // Empty for a model without copy attention.
    std::vector<float> p_gen;
    std::vector<bool> copied;
  };

  struct Result {
    std::vector<std::string> source;  // the source pieces the encoder saw, "</s>" last
    std::vector<Hypothesis> nbest;    // best first; empty for an empty or skipped line
    bool skipped = false;             // longer than the input limit: not translated
    // The best hypothesis' text, "" when there is none.
    const std::string& best() const;
  };

  // Loads a model directory written by `heed train`: weights "best", "last" or the path of a
  // weights file (e.g. from `heed average`).
  static Translator load(const std::string& model_dir, const std::string& weights = "best");
  // Several model directories decoded as one ensemble (averaged probabilities); they must
  // share vocabularies and tokenisers.
  static Translator load_ensemble(const std::vector<std::string>& model_dirs);

  Translator(Translator&&) noexcept;
  Translator& operator=(Translator&&) noexcept;
  ~Translator();

  // One Result per line, in input order.
  std::vector<Result> translate(const std::vector<std::string>& lines, const Options& options) const;
  std::vector<Result> translate(const std::vector<std::string>& lines) const;  // default Options
  Result translate(const std::string& line, const Options& options) const;
  Result translate(const std::string& line) const;

  bool has_attention() const;               // false for the no-attention model
  std::size_t max_source_tokens() const;    // the longest source every model takes; 0 = any

 private:
  struct Impl;
  explicit Translator(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace heed
