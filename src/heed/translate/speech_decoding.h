#pragma once
// Transcribing speech with model.kind las (docs/MODELS.md#listen-attend-and-spell): WAV files
// or their features in, each utterance's n-best transcripts out, for `heed transcribe` and
// `heed eval --speech`. The features are the model's own (its data.audio keys).
#include <string>
#include <vector>

#include "heed/audio/speech_features.h"
#include "heed/config/train_config.h"
#include "heed/data/tokenizer.h"
#include "heed/data/vocabulary.h"
#include "heed/decode/decode_options.h"
#include "heed/models/seq2seq.h"

namespace heed {

// The features a model trained with config reads.
SpeechFeatureOptions speech_feature_options(const TrainConfig& config);

struct Transcript {
  std::string text;                  // the output symbols detokenised
  std::vector<std::int32_t> tokens;  // their ids, EOS included when it was emitted
  double score = 0.0;                // the hypothesis' (length-normalised) log-probability
  // One per token: its vocabulary entry as emitted (EOS as </s>), for pictures of attention.
  std::vector<std::string> symbols;
  // Per token (tokens.size() rows), its attention over the utterance's listener annotations
  // (listener_length of its frames; pyramid x data.audio.stack log-mel frames each).
  std::vector<std::vector<float>> attention;
};

// Decodes utterances' features (frames, bins) in batches of at most batch utterances (sorted by
// length): greedy when options.beam is 1, else beam search with options.n_best hypotheses.
// Per utterance, in the given order, its hypotheses, best first.
std::vector<std::vector<Transcript>> transcribe(const Seq2Seq& model, const Tokenizer& tokenizer,
                                                const Vocabulary& vocab,
                                                const std::vector<Tensor>& features,
                                                const DecodeOptions& options,
                                                std::size_t batch = 32);

}  // namespace heed
