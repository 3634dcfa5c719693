#pragma once
// What several loaded models need before they decode as one (decode/ensemble.h), shared by
// heed translate's and heed transcribe's ensembles: the same tokeniser and vocabulary on each
// side they read or write, and the Ensemble itself built over models that stay owned by
// their LoadedModel.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "heed/models/compute_type.h"
#include "heed/models/seq2seq.h"
#include "heed/store/model_dir.h"

namespace heed {

// Which model to load: a model directory and "best", "last" or a weights file.
struct ModelSpec {
  ModelSpec(std::string dir_, std::string weights_ = "best", AttentionChoice attention_ = {})
      : dir(std::move(dir_)), weights(std::move(weights_)), attention(attention_) {}
  std::string dir;
  std::string weights;
  AttentionChoice attention;  // a Transformer's attention layer and head; unset: as trained
};

// Throws unless member b can be decoded together with member a (the first model) on this side
// ("source" or "target"): the same tokeniser, the same SentencePiece model (spm_file, in
// each member's directory name_a / name_b) and the same vocabulary, the first difference
// named; with reordered_ok, the same tokens in any order will do.
void check_same_side(const char* side, const Tokenizer& ta, const Vocabulary& va,
                     const std::string& name_a, const Tokenizer& tb, const Vocabulary& vb,
                     const std::string& name_b, const char* spm_file, bool reordered_ok = false);

// Throws unless b can join an ensemble whose first member is a: check_same_side on the target
// side (the same tokens, in any order: decoder_of maps them), and the same dtype
// (training.dtype). The source side and a kind's own inputs are the caller's to check.
void check_same_target(const LoadedModel& a, const std::string& name_a, const LoadedModel& b,
                       const std::string& name_b);

// The one model as it is, or an Ensemble of them all (members whose target vocabulary holds
// the first's tokens in another order mapped to it by token); either way lent, not owned: models
// must outlive what this returns. type, if given, is told to a new Ensemble (its
// FrozenModel packs the members' weights in that precision).
std::shared_ptr<const Seq2Seq> decoder_of(const std::vector<LoadedModel>& models,
                                          const std::optional<ComputeType>& type = std::nullopt);

}  // namespace heed
