#pragma once
// The model directory `heed train` writes and `heed translate` / `info` / `average` read:
//
//   config.yaml                  the complete, resolved training config
//   src.vocab, tgt.vocab         vocabularies (docs/DATA.md format)
//   src.spm.model, tgt.spm.model SentencePiece models (only for that tokeniser)
//   best.safetensors             weights with the best dev score
//   last.safetensors             weights at the last save
//   checkpoints/step_<n>.safetensors   the last keep_checkpoints step checkpoints
//   training_state.safetensors   weights + optimizer + TrainingState, for exact resume
//   history.jsonl, train.log     validation results, the training log
//
// Weights files hold the parameters under their PyTorch names (load_into works on them).
// An image model's directory (model.kind ram) holds tgt.vocab (its classes) but no src.vocab
// and no tokenisers.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "heed/base/random.h"
#include "heed/data/tokenizer.h"
#include "heed/data/vocabulary.h"
#include "heed/models/image_classifier.h"
#include "heed/models/memory_network.h"
#include "heed/models/seq2seq.h"
#include "heed/tensor/safetensors.h"
#include "heed/config/train_config.h"

namespace heed {

namespace model_files {
inline constexpr const char* kConfig = "config.yaml";
inline constexpr const char* kSrcVocab = "src.vocab";
inline constexpr const char* kTgtVocab = "tgt.vocab";
inline constexpr const char* kSrcSpm = "src.spm.model";
inline constexpr const char* kTgtSpm = "tgt.spm.model";
inline constexpr const char* kBest = "best.safetensors";
inline constexpr const char* kLast = "last.safetensors";
inline constexpr const char* kCheckpoints = "checkpoints";
inline constexpr const char* kState = "training_state.safetensors";
inline constexpr const char* kHistory = "history.jsonl";
inline constexpr const char* kLog = "train.log";
}  // namespace model_files

// dir/name.
std::string path_in(const std::string& dir, const std::string& name);
// dir/checkpoints/step_<step>.safetensors
std::string step_checkpoint_path(const std::string& dir, std::int64_t step);

// A fresh model of the configured architecture (vocabulary sizes must be set), initialised
// from rng. Throws heed::Error for an unknown kind.
std::unique_ptr<Seq2Seq> build_model(const ModelConfig& config, Rng& rng, DType dtype);

// A side's tokeniser as the model directory records it: name + lowercase, and for
// SentencePiece the model file copied into the directory (spm_file).
std::unique_ptr<Tokenizer> load_tokenizer(const SideConfig& side, const std::string& spm_file);

struct LoadedModel {
  TrainConfig config;  // as config.yaml records it
  std::unique_ptr<Seq2Seq> model;  // in eval mode
  Vocabulary src_vocab, tgt_vocab;
  std::unique_ptr<Tokenizer> src_tokenizer, tgt_tokenizer;
  std::string weights_path;  // the file the weights came from
  Metadata metadata;         // that file's metadata
};

// Which encoder-decoder attention a Transformer hands out as its attention (alignments, heed
// show's map, copy attention's weights): the decoder layer (1-based, 0 = the last) and head
// (1-based, 0 = the heads averaged). Unset: model.alignment_layer / alignment_head as trained.
struct AttentionChoice {
  std::optional<std::int64_t> layer, head;
};

// Loads a trained model: which = "best", "last", or the path of a weights file (e.g. one
// written by `heed average`). Every missing file is a heed::Error naming it. attention
// overrides the Transformer's attention layer and head (heed::Error for another kind, or a
// layer or head the model does not have).
LoadedModel load_model_dir(const std::string& dir, const std::string& which = "best",
                           const AttentionChoice& attention = {});

// A trained image classifier (model.kind ram, fc, cnn; models/image_classifier.h): the
// config, the classes (tgt.vocab:
// class c is id c + Vocabulary::kSpecials) and the model in eval mode. heed::Error for a
// text model's directory and for every missing file, naming it.
struct LoadedImageModel {
  TrainConfig config;
  std::unique_ptr<ImageClassifier> model;
  Vocabulary classes;
  std::string weights_path;
  Metadata metadata;
};
LoadedImageModel load_image_model_dir(const std::string& dir, const std::string& which = "best");

// A trained model.kind image2seq (an encoder-decoder reading images): its directory holds
// tgt.vocab (the class names) but no src.vocab or tokenisers; src_vocab and the tokenisers
// stay empty. heed::Error for another kind's directory and for every missing file.
LoadedModel load_image_sequence_model_dir(const std::string& dir, const std::string& which = "best");

// A trained model.kind las (a speech model): its directory holds tgt.vocab (the transcripts'
// symbols) and config.yaml names their tokeniser (data.target) and the features (data.audio);
// no src.vocab. src_vocab and src_tokenizer stay empty. heed::Error for another kind's
// directory and for every missing file.
LoadedModel load_speech_model_dir(const std::string& dir, const std::string& which = "best");

// A trained memory network (model.kind memn2n; models/memory_network.h): the config, its one
// vocabulary (src.vocab; tgt.vocab is the same words) and the model in eval mode. heed::Error
// for another kind's directory and for every missing file, naming it.
struct LoadedMemoryModel {
  TrainConfig config;
  std::unique_ptr<MemoryNetwork> model;
  Vocabulary vocab;
  std::string weights_path;
  Metadata metadata;
};
LoadedMemoryModel load_memory_model_dir(const std::string& dir, const std::string& which = "best");

// The weights file `which` names in dir: best, last or a path (heed::Error when it is missing).
std::string weights_file(const std::string& dir, const std::string& which);

// Only config.yaml (strict parse), for tools that need no weights.
TrainConfig load_model_config(const std::string& dir);

}  // namespace heed
