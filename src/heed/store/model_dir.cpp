#include "heed/store/model_dir.h"

#include <filesystem>

#include "heed/base/error.h"
#include "heed/data/sentencepiece_tokenizer.h"
#include "heed/models/model_registry.h"
#include "heed/models/ram.h"
#include "heed/store/checkpoint.h"
#include "heed/store/interop.h"
#include "heed/store/model_weights.h"
#include "heed/store/quantized_weights.h"
#include "heed/store/vocabulary_checksums.h"
#include "heed/store/weights_file.h"


namespace fs = std::filesystem;

namespace heed {

std::string path_in(const std::string& dir, const std::string& name) {
  return (fs::path(dir) / name).string();
}

std::string step_checkpoint_path(const std::string& dir, std::int64_t step) {
  return (fs::path(dir) / model_files::kCheckpoints / ("step_" + std::to_string(step) + ".safetensors"))
      .string();
}

std::unique_ptr<Seq2Seq> build_model(const ModelConfig& config, Rng& rng, DType dtype) {
  HEED_CHECK((config.src_vocab > 4 || reads_no_source_tokens(config.kind)) && config.tgt_vocab > 4,
             "build_model: the vocabulary sizes are not set (", config.src_vocab, ", ",
             config.tgt_vocab, ")");
  return make_model(config, rng, dtype);
}

std::unique_ptr<Tokenizer> load_tokenizer(const SideConfig& side, const std::string& spm_file) {
  return make_tokenizer(side.tokenizer, side.lowercase,
                        side.tokenizer == TokenizerKind::sentencepiece ? spm_file : "");
}

TrainConfig load_model_config(const std::string& dir) {
  std::error_code ec;  // a name the file system refuses (too long) is no directory either
  HEED_CHECK(fs::is_directory(dir, ec), dir, ": no such model directory",
             ec && ec != std::errc::no_such_file_or_directory ? " (" + ec.message() + ")" : "");
  const std::string config_path = path_in(dir, model_files::kConfig);
  HEED_CHECK(fs::exists(config_path), dir, ": not a heed model directory (no ",
             model_files::kConfig, ")");
  return load_train_config(config_path);
}

std::string weights_file(const std::string& dir, const std::string& which) {
  if (which == "best" || which == "last") {
    const std::string path = path_in(dir, which == "best" ? model_files::kBest : model_files::kLast);
    HEED_CHECK(fs::exists(path), dir, ": no ", which,
               ".safetensors (has training saved anything yet?)");
    HEED_CHECK(!fs::is_directory(path), path, ": is a directory, expected the weights file "
               "training writes; move the directory away");
    return path;
  }
  HEED_CHECK(fs::exists(which), which,
             ": no such weights file (expected best, last or the path of a .safetensors file)");
  return which;
}

Metadata load_model_weights(Module& model, const std::string& path, const std::string& dir,
                            ModelKind kind, const Vocabulary* src, const Vocabulary& tgt) {
  SafeTensorsLoadOptions read;
  read.read_int8 = true;  // a quantised model directory's weights (heed quantize)
  SafeTensorsFile file = load_weights_file(path, read);
  if (is_quantized(file.metadata)) dequantize_file(file);
  if (auto it = file.metadata.find(interop_keys::kKind);
      it != file.metadata.end() && it->second != enum_name(kind))
    throw Error(path + ": holds the weights of a model.kind " + it->second + " model (its " +
                interop_keys::kKind + " metadata) but " + path_in(dir, model_files::kConfig) +
                " says model.kind " + std::string(enum_name(kind)) +
                "; the weights come from another model directory");
  load_into(model, file.tensors, path);
  if (src)
    check_vocabulary_checksum(*src, path_in(dir, model_files::kSrcVocab), file.metadata,
                              vocabulary_checksum_keys::kSrc, path);
  check_vocabulary_checksum(tgt, path_in(dir, model_files::kTgtVocab), file.metadata,
                            vocabulary_checksum_keys::kTgt, path);
  return std::move(file.metadata);
}

LoadedModel load_model_dir(const std::string& dir, const std::string& which,
                           const AttentionChoice& attention) {
  LoadedModel m;
  m.config = load_model_config(dir);
  if (attention.layer || attention.head) {
    const ModelConfig& c = m.config.model;
    HEED_CHECK(c.kind == ModelKind::transformer, "--attention-layer / --attention-head: ", dir,
               " holds a ", enum_name(c.kind), " model, which has one attention; only a "
               "Transformer has a layer and head to choose");
    HEED_CHECK(!attention.layer || (*attention.layer >= 0 && *attention.layer <= c.dec_layers),
               "--attention-layer ", attention.layer.value_or(0), ": ", dir, "'s decoder has ",
               c.dec_layers, " layers (1 to ", c.dec_layers, ", or 0 for the last)");
    HEED_CHECK(!attention.head || (*attention.head >= 0 && *attention.head <= c.transformer.heads),
               "--attention-head ", attention.head.value_or(0), ": ", dir, "'s attention has ",
               c.transformer.heads, " heads (1 to ", c.transformer.heads,
               ", or 0 for the heads averaged)");
    if (attention.layer) m.config.model.transformer.alignment_layer = *attention.layer;
    if (attention.head) m.config.model.transformer.alignment_head = *attention.head;
  }
  HEED_CHECK(!classifies_images(m.config.model.kind), dir, ": holds a ",
             enum_name(m.config.model.kind), " model, which classifies images (heed eval "
             "--model ", dir, " --images FILE), not text");
  HEED_CHECK(!is_image_to_sequence(m.config.model.kind), dir, ": holds an ",
             enum_name(m.config.model.kind), " model, which reads images (heed eval --model ",
             dir, " --images FILE), not text");
  HEED_CHECK(!transcribes_speech(m.config.model.kind), dir, ": holds a ",
             enum_name(m.config.model.kind), " model, which transcribes speech (heed transcribe "
             "--model ", dir, " FILE.wav...), not text");
  HEED_CHECK(!answers_questions(m.config.model.kind), dir, ": holds a ",
             enum_name(m.config.model.kind), " model, which answers questions about stories "
             "(heed eval --model ", dir, " --babi DIR), not a translation model");
  m.src_vocab = Vocabulary::load(path_in(dir, model_files::kSrcVocab));
  m.tgt_vocab = Vocabulary::load(path_in(dir, model_files::kTgtVocab));
  // config.yaml records the sizes the model was trained with: a vocabulary file that was
  // edited, cut short or copied from another run is named here, not blamed on the weights.
  auto check_size = [&](const Vocabulary& v, std::int64_t trained, const char* file,
                        const char* key) {
    HEED_CHECK(trained == 0 || static_cast<std::int64_t>(v.size()) == trained,
               path_in(dir, file), " has ", v.size(), " tokens but the model was trained with ",
               trained, " (model.", key, " in ", path_in(dir, model_files::kConfig),
               "); the vocabulary file was changed or comes from another model directory");
  };
  check_size(m.src_vocab, m.config.model.src_vocab, model_files::kSrcVocab, "src_vocab");
  check_size(m.tgt_vocab, m.config.model.tgt_vocab, model_files::kTgtVocab, "tgt_vocab");
  m.src_tokenizer = load_tokenizer(m.config.data.source, path_in(dir, model_files::kSrcSpm));
  m.tgt_tokenizer = load_tokenizer(m.config.data.target, path_in(dir, model_files::kTgtSpm));
  m.weights_path = weights_file(dir, which);
  ModelConfig mc = m.config.model;
  mc.src_vocab = static_cast<std::int64_t>(m.src_vocab.size());
  mc.tgt_vocab = static_cast<std::int64_t>(m.tgt_vocab.size());
  Rng rng(m.config.training.seed);
  m.model = build_model(mc, rng, m.config.training.dtype);
  m.metadata =
      load_model_weights(*m.model, m.weights_path, dir, mc.kind, &m.src_vocab, m.tgt_vocab);
  m.model->eval();
  return m;
}

LoadedImageModel load_image_model_dir(const std::string& dir, const std::string& which) {
  LoadedImageModel m;
  m.config = load_model_config(dir);
  HEED_CHECK(classifies_images(m.config.model.kind), dir, ": holds a ",
             enum_name(m.config.model.kind), " model, which translates text (heed translate); "
             "heed eval reads image models (model.kind ram, fc, cnn)");
  m.classes = Vocabulary::load(path_in(dir, model_files::kTgtVocab));
  ModelConfig mc = m.config.model;
  HEED_CHECK(mc.tgt_vocab == static_cast<std::int64_t>(m.classes.size()), path_in(dir, model_files::kTgtVocab),
             " has ", m.classes.size(), " entries but the model was trained with ", mc.tgt_vocab,
             " (model.tgt_vocab in ", path_in(dir, model_files::kConfig),
             "); the file was changed or comes from another model directory");
  m.weights_path = weights_file(dir, which);
  Rng rng(m.config.training.seed);
  m.model = make_image_classifier(mc, 1, rng, m.config.training.dtype);
  m.metadata = load_model_weights(*m.model, m.weights_path, dir, mc.kind, nullptr, m.classes);
  m.model->eval();
  return m;
}

namespace {

// A model without source tokens (image2seq, las): the target vocabulary and the weights.
void load_target_side_model(LoadedModel& m, const std::string& dir, const std::string& which) {
  m.tgt_vocab = Vocabulary::load(path_in(dir, model_files::kTgtVocab));
  ModelConfig mc = m.config.model;
  HEED_CHECK(mc.tgt_vocab == static_cast<std::int64_t>(m.tgt_vocab.size()),
             path_in(dir, model_files::kTgtVocab), " has ", m.tgt_vocab.size(),
             " entries but the model was trained with ", mc.tgt_vocab, " (model.tgt_vocab in ",
             path_in(dir, model_files::kConfig),
             "); the file was changed or comes from another model directory");
  m.weights_path = weights_file(dir, which);
  Rng rng(m.config.training.seed);
  m.model = build_model(mc, rng, m.config.training.dtype);
  m.metadata = load_model_weights(*m.model, m.weights_path, dir, mc.kind, nullptr, m.tgt_vocab);
  m.model->eval();
}

}  // namespace

LoadedModel load_image_sequence_model_dir(const std::string& dir, const std::string& which) {
  LoadedModel m;
  m.config = load_model_config(dir);
  HEED_CHECK(is_image_to_sequence(m.config.model.kind), dir, ": holds a ",
             enum_name(m.config.model.kind), " model; this reads model.kind image2seq");
  load_target_side_model(m, dir, which);
  return m;
}

LoadedModel load_speech_model_dir(const std::string& dir, const std::string& which) {
  LoadedModel m;
  m.config = load_model_config(dir);
  HEED_CHECK(transcribes_speech(m.config.model.kind), dir, ": holds a ",
             enum_name(m.config.model.kind), " model, not a speech model (model.kind las)");
  m.tgt_tokenizer = load_tokenizer(m.config.data.target, "");
  load_target_side_model(m, dir, which);
  return m;
}

LoadedMemoryModel load_memory_model_dir(const std::string& dir, const std::string& which) {
  LoadedMemoryModel m;
  m.config = load_model_config(dir);
  HEED_CHECK(answers_questions(m.config.model.kind), dir, ": holds a ",
             enum_name(m.config.model.kind), " model; this reads model.kind memn2n");
  m.vocab = Vocabulary::load(path_in(dir, model_files::kSrcVocab));
  ModelConfig mc = m.config.model;
  HEED_CHECK(mc.src_vocab == static_cast<std::int64_t>(m.vocab.size()),
             path_in(dir, model_files::kSrcVocab), " has ", m.vocab.size(),
             " entries but the model was trained with ", mc.src_vocab, " (model.src_vocab in ",
             path_in(dir, model_files::kConfig),
             "); the file was changed or comes from another model directory");
  m.weights_path = weights_file(dir, which);
  Rng rng(m.config.training.seed);
  m.model = std::make_unique<MemoryNetwork>(mc, rng, m.config.training.dtype);
  m.metadata = load_model_weights(*m.model, m.weights_path, dir, mc.kind, &m.vocab, m.vocab);
  if (const auto it = m.metadata.find(kMemoryHopsKey); it != m.metadata.end()) {
    HEED_CHECK(it->second == "linear" || it->second == "softmax", m.weights_path, ": metadata ",
               kMemoryHopsKey, " is '", it->second, "', expected linear or softmax");
    m.model->set_linear_hops(it->second == "linear");
  }
  m.model->eval();
  return m;
}

}  // namespace heed
