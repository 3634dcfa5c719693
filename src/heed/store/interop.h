#pragma once
// Moving models between heed and PyTorch (docs/INTEROP.md).
//
// `heed export` writes one self-describing safetensors file: every parameter under its
// PyTorch state_dict name (the names of tools/reference/models.py), in the model's dtype,
// and metadata holding the model's config (config.yaml, and its model: section as JSON)
// and the vocabularies (only the target one for the kinds that read images: ram, fc, cnn,
// image2seq; memn2n's one vocabulary under both keys). tools/heed_torch.py reads it into a
// state_dict and builds the reference torch.nn.Module from the metadata.
//
// `heed import` goes the other way: a state_dict saved as safetensors (F32, F64, BF16 or
// F16), plus the heed training config that describes the architecture and the
// vocabularies, becomes a normal model directory (config.yaml, src.vocab, tgt.vocab,
// best.safetensors, last.safetensors; no src.vocab for an image kind) that `heed translate`
// (`heed eval` for an image kind or memn2n) and `heed info` accept. The
// config and vocabularies may come from the file's own metadata (a file `heed export`
// wrote, or one PyTorch saved back with that metadata).
#include <string>

#include "heed/config/train_config.h"
#include "heed/tensor/safetensors.h"

namespace heed {

// The metadata keys of an exported file (all values are strings, as safetensors requires).
namespace interop_keys {
inline constexpr const char* kFormat = "heed.format";            // kExportFormat
inline constexpr const char* kVersion = "heed.version";          // heed's version
inline constexpr const char* kKind = "heed.model";               // the kind, as in weights files
inline constexpr const char* kModelConfig = "heed.model_config"; // the model: section as JSON
inline constexpr const char* kConfig = "heed.config";            // config.yaml, whole
inline constexpr const char* kSrcVocab = "heed.src_vocab";       // src.vocab, whole
inline constexpr const char* kTgtVocab = "heed.tgt_vocab";       // tgt.vocab, whole
inline constexpr const char* kDtype = "heed.dtype";              // f32 | f64
inline constexpr const char* kWeights = "heed.weights";          // best | last | a file name
inline constexpr const char* kImportedFrom = "heed.imported_from";  // in an imported dir's weights
}  // namespace interop_keys

inline constexpr const char* kExportFormat = "heed-export/1";
// The model: section of config as a JSON object, every key config.yaml writes (the nested
// attention: map included), numbers and booleans typed.
std::string model_config_json(const TrainConfig& config);

struct ExportOptions {
  std::string dir;               // a model directory
  std::string weights = "best";  // best | last | the path of a weights file
  std::string out;               // the .safetensors file to write
  bool force = false;            // overwrite out
};

// Writes the exported file atomically; refuses an existing out unless force. Returns the
// number of tensors written.
std::size_t export_model(const ExportOptions& options);

struct ImportOptions {
  std::string weights;               // the PyTorch state_dict, as safetensors
  std::string config;                // heed training config; "" = the file's heed.config
  std::string src_vocab, tgt_vocab;  // vocabulary files; "" = the file's heed.*_vocab
                                     // (an image kind takes no src_vocab: refused; memn2n
                                     // has one: either, or both the same words)
  std::string src_spm, tgt_spm;      // SentencePiece models; "" = the config's spm_model
                                     // (text kinds only; refused for the others)
  std::string out;                   // the model directory to create
};

// Checks the state against the model the config and vocabularies describe (every name
// present, nothing unexpected, every shape right, float dtypes only), converts it to the
// config's training.dtype and writes the model directory: first beside out, then renamed
// into place, so a failure leaves no directory. out must not exist or be empty. Every
// problem is one heed::Error naming the file.
void import_model(const ImportOptions& options);

}  // namespace heed
