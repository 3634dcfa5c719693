#pragma once
// Transcribing speech with model.kind las (docs/MODELS.md#listen-attend-and-spell): WAV files
// or their features in, each utterance's n-best transcripts out, for `heed transcribe` and
// `heed eval --speech`. The features are the model's own (its data.audio keys).
#include <memory>
#include <string>
#include <vector>

#include "heed/audio/speech_features.h"
#include "heed/config/train_config.h"
#include "heed/data/tokenizer.h"
#include "heed/data/vocabulary.h"
#include "heed/decode/decode_options.h"
#include "heed/models/seq2seq.h"
#include "heed/store/model_dir.h"
#include "heed/translate/ensemble_members.h"

namespace heed {

// The features a model trained with config reads.
SpeechFeatureOptions speech_feature_options(const TrainConfig& config);

struct Transcript {
  std::string text;                  // the output symbols detokenised
  std::vector<std::int32_t> tokens;  // their ids, EOS included when it was emitted
  double score = 0.0;                // the hypothesis' (length-normalised) log-probability,
                                     // or with CTC rescoring its joint score
  // One per token: its vocabulary entry as emitted (EOS as </s>), for pictures of attention.
  std::vector<std::string> symbols;
  // Per token (tokens.size() rows), its attention over the utterance's listener annotations
  // (listener_length of its frames; pyramid x data.audio.stack log-mel frames each).
  std::vector<std::vector<float>> attention;
};

// The model(s) heed transcribe and heed eval --speech decode with: one model directory, or
// several decoded as one ensemble (decode/ensemble.h: the mean of their output
// probabilities, their attention averaged). Members must compute the same features
// (data.audio: rate, mel bins, normalisation, stacking), reduce time alike (model.pyramid),
// and share the target tokeniser, vocabulary and dtype: a difference is a heed::Error naming
// both directories and what differs.
struct SpeechModels {
  std::vector<LoadedModel> members;        // in the order given; they own the models
  std::shared_ptr<const Seq2Seq> decoder;  // the one model, or the members' Ensemble

  const LoadedModel& first() const { return members.front(); }
};
SpeechModels load_speech_models(const std::vector<ModelSpec>& specs);

// Decodes utterances' features (frames, bins) in batches of at most batch utterances (sorted by
// length): greedy when options.beam is 1, else beam search with options.n_best hypotheses.
// ctc_weight w > 0 (a model with a CTC head, beam search): all options.beam hypotheses are
// re-ranked by (1 - w) log P_att + w log P_ctc (decode/ctc_rescoring.h), the first
// options.n_best kept, each Transcript::score the joint score. Per utterance, in the given
// order, its hypotheses, best first.
std::vector<std::vector<Transcript>> transcribe(const Seq2Seq& model, const Tokenizer& tokenizer,
                                                const Vocabulary& vocab,
                                                const std::vector<Tensor>& features,
                                                const DecodeOptions& options,
                                                std::size_t batch = 32, double ctc_weight = 0.0);

}  // namespace heed
