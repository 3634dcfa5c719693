#include "heed/train/model_dir.h"

#include <filesystem>

#include "heed/base/error.h"
#include "heed/data/sentencepiece_tokenizer.h"
#include "heed/models/model_factory.h"
#include "heed/train/checkpoint.h"


namespace fs = std::filesystem;

namespace heed {

std::string path_in(const std::string& dir, const std::string& name) {
  return (fs::path(dir) / name).string();
}

std::string step_checkpoint_path(const std::string& dir, std::int64_t step) {
  return (fs::path(dir) / model_files::kCheckpoints / ("step_" + std::to_string(step) + ".safetensors"))
      .string();
}

DType parse_dtype(const std::string& name) {
  if (name == "f32") return DType::f32;
  if (name == "f64") return DType::f64;
  throw Error("unknown dtype '" + name + "' (f32 | f64)");
}

std::unique_ptr<Seq2Seq> build_model(const ModelConfig& config, Rng& rng, DType dtype) {
  HEED_CHECK(config.src_vocab > 4 && config.tgt_vocab > 4,
             "build_model: the vocabulary sizes are not set (", config.src_vocab, ", ",
             config.tgt_vocab, ")");
  return make_model(config, rng, dtype);
}

std::unique_ptr<Tokenizer> load_tokenizer(const SideConfig& side, const std::string& spm_file) {
  if (side.tokenizer == "sentencepiece")
    return std::make_unique<SentencePieceTokenizer>(
        SentencePieceTokenizer::load(spm_file, side.lowercase));
  return make_tokenizer(side.tokenizer, side.lowercase);
}

TrainConfig load_model_config(const std::string& dir) {
  HEED_CHECK(fs::is_directory(dir), dir, ": no such model directory");
  const std::string config_path = path_in(dir, model_files::kConfig);
  HEED_CHECK(fs::exists(config_path), dir, ": not a heed model directory (no ",
             model_files::kConfig, ")");
  return load_train_config(config_path);
}

LoadedModel load_model_dir(const std::string& dir, const std::string& which) {
  LoadedModel m;
  m.config = load_model_config(dir);
  m.src_vocab = Vocabulary::load(path_in(dir, model_files::kSrcVocab));
  m.tgt_vocab = Vocabulary::load(path_in(dir, model_files::kTgtVocab));
  m.src_tokenizer = load_tokenizer(m.config.data.source, path_in(dir, model_files::kSrcSpm));
  m.tgt_tokenizer = load_tokenizer(m.config.data.target, path_in(dir, model_files::kTgtSpm));
  if (which == "best" || which == "last") {
    m.weights_path = path_in(dir, which == "best" ? model_files::kBest : model_files::kLast);
    HEED_CHECK(fs::exists(m.weights_path), dir, ": no ", which,
               ".safetensors (has training saved anything yet?)");
  } else {
    m.weights_path = which;
    HEED_CHECK(fs::exists(m.weights_path), which,
               ": no such weights file (expected best, last or the path of a .safetensors file)");
  }
  ModelConfig mc = m.config.model;
  mc.src_vocab = static_cast<std::int64_t>(m.src_vocab.size());
  mc.tgt_vocab = static_cast<std::int64_t>(m.tgt_vocab.size());
  Rng rng(m.config.training.seed);
  m.model = build_model(mc, rng, parse_dtype(m.config.training.dtype));
  m.metadata = load_into(*m.model, m.weights_path);
  m.model->eval();
  return m;
}

}  // namespace heed
