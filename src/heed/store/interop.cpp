#include "heed/store/interop.h"

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <unistd.h>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "heed/base/atomic_file.h"
#include "heed/base/enum_names.h"
#include "heed/base/error.h"
#include "heed/models/model_registry.h"
#include "heed/store/checkpoint.h"
#include "heed/store/model_dir.h"
#include "heed/store/vocabulary_checksums.h"
#include "heed/store/weights_file.h"
#include "heed/version.h"  // generated: HEED_VERSION_STRING, the project version

namespace fs = std::filesystem;

namespace heed {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  HEED_CHECK(in.good(), path, ": cannot read the file");
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

// A YAML scalar as config.yaml writes it, typed for JSON.
nlohmann::json scalar_json(const std::string& s) {
  if (s == "true" || s == "false") return s == "true";
  if (!s.empty()) {
    std::size_t used = 0;
    try {
      const long long i = std::stoll(s, &used);
      if (used == s.size()) return i;
      const double d = std::stod(s, &used);
      if (used == s.size()) return d;
    } catch (const std::exception&) {
    }
  }
  return s;
}

nlohmann::json yaml_json(const YAML::Node& node) {
  if (node.IsMap()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& kv : node) out[kv.first.as<std::string>()] = yaml_json(kv.second);
    return out;
  }
  if (node.IsSequence()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& item : node) out.push_back(yaml_json(item));
    return out;
  }
  return node.IsScalar() ? scalar_json(node.Scalar()) : nlohmann::json();
}

// The dtype each tensor has in the file (load_safetensors widens F16/BF16 and turns
// integers into f64, so only the header tells them apart). The file is already validated.
std::map<std::string, std::string> stored_dtypes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char len_bytes[8] = {};
  in.read(reinterpret_cast<char*>(len_bytes), 8);
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | len_bytes[i];
  std::string header(n, '\0');
  in.read(header.data(), static_cast<std::streamsize>(n));
  HEED_CHECK(in.good(), path, ": cannot read the header");
  std::map<std::string, std::string> out;
  const nlohmann::json parsed = nlohmann::json::parse(header);
  for (const auto& [name, entry] : parsed.items())
    if (name != "__metadata__") out[name] = entry.at("dtype").get<std::string>();
  return out;
}

// A model directory of any kind, loaded as `heed translate` / `heed eval` load it.
struct AnyModel {
  TrainConfig config;
  std::unique_ptr<Module> model;
  Metadata metadata;
};

AnyModel load_any_model_dir(const std::string& dir, const std::string& which) {
  const ModelKind kind = load_model_config(dir).model.kind;
  if (classifies_images(kind)) {
    LoadedImageModel m = load_image_model_dir(dir, which);
    return {std::move(m.config), std::move(m.model), std::move(m.metadata)};
  }
  if (answers_questions(kind)) {
    LoadedMemoryModel m = load_memory_model_dir(dir, which);
    return {std::move(m.config), std::move(m.model), std::move(m.metadata)};
  }
  LoadedModel m = is_image_to_sequence(kind)  ? load_image_sequence_model_dir(dir, which)
                  : transcribes_speech(kind) ? load_speech_model_dir(dir, which)
                                             : load_model_dir(dir, which);
  return {std::move(m.config), std::move(m.model), std::move(m.metadata)};
}

// The names and shapes of the state against the model's: one error listing every missing
// name (with the shape the model needs), every unexpected one (with its shape in the file)
// and every wrong shape. load_into checks the same, but without the shapes a user needs to
// see which part of the architecture differs.
void check_names(const Module& model, const SafeTensorsFile& file, const std::string& config,
                 ModelKind kind) {
  std::map<std::string, Shape> expected;
  std::vector<std::string> missing, unexpected, mismatched;
  for (const auto& [name, v] : model.named_parameters()) {
    expected.emplace(name, v.shape());
    if (!file.contains(name)) missing.push_back(name + " " + v.shape().str());
    else if (file.get(name).shape() != v.shape())
      mismatched.push_back(name + " " + file.get(name).shape().str() + " where the model has " +
                           v.shape().str());
  }
  for (const auto& [name, t] : file.tensors)
    if (!expected.count(name)) unexpected.push_back(name + " " + t.shape().str());
  if (missing.empty() && unexpected.empty() && mismatched.empty()) return;
  auto list = [](const std::vector<std::string>& v) {  // the first 20, then a count
    std::string out;
    for (std::size_t i = 0; i < v.size() && i < 20; ++i) out += (i ? ", " : "") + v[i];
    if (v.size() > 20) out += " and " + std::to_string(v.size() - 20) + " more";
    return out;
  };
  std::ostringstream os;
  os << file.path << ": the state does not match the model that " << config << " describes;";
  if (!missing.empty()) os << " missing: " << list(missing) << ";";
  if (!unexpected.empty()) os << " unexpected: " << list(unexpected) << ";";
  if (!mismatched.empty()) os << " wrong shape: " << list(mismatched) << ";";
  if (!unexpected.empty() && unexpected.front().rfind("optimizer.", 0) == 0)
    os << " this is a training state (weights and optimizer); import best.safetensors, "
          "last.safetensors or a step checkpoint instead;";
  // A state of another kind (its export metadata says which) under this config's kind.
  if (auto it = file.metadata.find(interop_keys::kKind);
      it != file.metadata.end() && it->second != enum_name(kind))
    os << " the state's " << interop_keys::kKind << " metadata says model.kind " << it->second
       << ", the config model.kind " << enum_name(kind) << ";";
  os << " parameter names and shapes per model kind: docs/INTEROP.md";
  throw Error(os.str());
}

// A side's vocabulary into dst: the file given, else the text in the state's metadata.
Vocabulary stage_vocabulary(const std::string& given, const SafeTensorsFile& file,
                            const char* key, const char* option, const std::string& dst) {
  if (!given.empty()) {
    Vocabulary v = Vocabulary::load(given);
    fs::copy_file(given, dst);
    return v;
  }
  auto it = file.metadata.find(key);
  HEED_CHECK(it != file.metadata.end(), file.path, ": has no ", key,
             " metadata (not a file heed export wrote); give the vocabulary with ", option);
  std::ofstream(dst, std::ios::binary) << it->second;
  return Vocabulary::load(dst);
}

void stage_spm(const SideConfig& side, const std::string& given, const char* option,
               const std::string& dst) {
  if (side.tokenizer != TokenizerKind::sentencepiece) return;
  const std::string src = given.empty() ? side.spm_model : given;
  HEED_CHECK(!src.empty() && fs::is_regular_file(src), "the config tokenises with SentencePiece: ",
             src.empty() ? std::string("give its model with ") + option
                         : src + ": no such SentencePiece model file");
  fs::copy_file(src, dst);
}

// Checks, converts and writes everything into stage (an empty directory) for the model
// directory target.
void import_into(const ImportOptions& o, const std::string& stage, const std::string& target) {
  const SafeTensorsFile file = load_weights_file(o.weights);
  for (const auto& [name, dtype] : stored_dtypes(o.weights))
    HEED_CHECK(dtype == "F32" || dtype == "F64" || dtype == "BF16" || dtype == "F16", o.weights,
               ": tensor '", name, "' is ", dtype,
               "; heed imports floating-point weights only (F32, F64, BF16, F16)");

  std::string config_source = o.config;
  TrainConfig config;
  if (!o.config.empty()) {
    config = load_train_config(o.config);
  } else {
    auto it = file.metadata.find(interop_keys::kConfig);
    HEED_CHECK(it != file.metadata.end(), o.weights, ": has no ", interop_keys::kConfig,
               " metadata (not a file heed export wrote); give the architecture with --config "
               "CONFIG.yaml (a heed training config)");
    config_source = o.weights + " (" + interop_keys::kConfig + ")";
    config = parse_train_config(it->second, config_source);
  }
  ModelConfig& mc = config.model;
  // An image or speech kind has no source side: no source vocabulary or tokeniser to take.
  const bool images = takes_images(mc.kind) || transcribes_speech(mc.kind);
  HEED_CHECK(!images || (o.src_vocab.empty() && o.src_spm.empty() && o.tgt_spm.empty()),
             config_source, ": model.kind ", enum_name(mc.kind), " reads ",
             transcribes_speech(mc.kind) ? "speech" : "images", " and has no ",
             !o.src_vocab.empty() ? "source vocabulary; drop --src-vocab (and --vocab), give the "
                                    "classes with --tgt-vocab"
                                  : "SentencePiece model; drop --src-spm / --tgt-spm");
  // A memory network reads bAbI's words: one vocabulary (src.vocab, and tgt.vocab the same
  // words, as heed train writes them) and no tokeniser.
  const bool one_vocabulary = answers_questions(mc.kind);
  HEED_CHECK(!one_vocabulary || (o.src_spm.empty() && o.tgt_spm.empty()), config_source,
             ": model.kind ", enum_name(mc.kind), " reads bAbI's words and has no "
             "SentencePiece model; drop --src-spm / --tgt-spm");
  Vocabulary src, tgt;
  if (one_vocabulary) {
    if (!o.src_vocab.empty() && !o.tgt_vocab.empty())
      HEED_CHECK(Vocabulary::load(o.src_vocab) == Vocabulary::load(o.tgt_vocab), config_source,
                 ": model.kind ", enum_name(mc.kind), " has one vocabulary (src.vocab and "
                 "tgt.vocab hold the same words), but ", o.src_vocab, " and ", o.tgt_vocab,
                 " differ; give it once with --vocab");
    const std::string& given = o.src_vocab.empty() ? o.tgt_vocab : o.src_vocab;
    src = tgt = stage_vocabulary(given, file, interop_keys::kSrcVocab, "--vocab",
                                 path_in(stage, model_files::kSrcVocab));
    fs::copy_file(path_in(stage, model_files::kSrcVocab), path_in(stage, model_files::kTgtVocab));
    // Checked against both checksums below, whichever option gave it.
    if (!given.empty())
      for (const char* key : {vocabulary_checksum_keys::kSrc, vocabulary_checksum_keys::kTgt})
        check_vocabulary_checksum(src, given, file.metadata, key, o.weights);
  } else {
    if (!images)
      src = stage_vocabulary(o.src_vocab, file, interop_keys::kSrcVocab, "--src-vocab",
                             path_in(stage, model_files::kSrcVocab));
    tgt = stage_vocabulary(o.tgt_vocab, file, interop_keys::kTgtVocab, "--tgt-vocab",
                           path_in(stage, model_files::kTgtVocab));
  }
  // A file heed exported records its vocabularies' checksums: a vocabulary given beside it
  // must be the one it was trained with (two lines swapped would import without a word).
  if (!one_vocabulary && !o.src_vocab.empty())
    check_vocabulary_checksum(src, o.src_vocab, file.metadata, vocabulary_checksum_keys::kSrc,
                              o.weights);
  if (!one_vocabulary && !o.tgt_vocab.empty())
    check_vocabulary_checksum(tgt, o.tgt_vocab, file.metadata, vocabulary_checksum_keys::kTgt,
                              o.weights);
  if (!images && !one_vocabulary) {
    stage_spm(config.data.source, o.src_spm, "--src-spm", path_in(stage, model_files::kSrcSpm));
    stage_spm(config.data.target, o.tgt_spm, "--tgt-spm", path_in(stage, model_files::kTgtSpm));
  }

  auto set_size = [&](std::int64_t& field, std::size_t size, const char* key) {
    const auto n = static_cast<std::int64_t>(size);
    HEED_CHECK(field == 0 || field == n, config_source, ": model.", key, " is ", field,
               " but the vocabulary has ", n, " tokens");
    field = n;
  };
  if (!images) set_size(mc.src_vocab, src.size(), "src_vocab");
  set_size(mc.tgt_vocab, tgt.size(), "tgt_vocab");
  Rng rng(config.training.seed);
  std::unique_ptr<Module> model;
  try {
    validate_model_config(mc);
    // The image classifiers read one channel, as heed train and heed eval build them.
    if (classifies_images(mc.kind)) model = make_image_classifier(mc, 1, rng, config.training.dtype);
    else if (answers_questions(mc.kind))
      model = std::make_unique<MemoryNetwork>(mc, rng, config.training.dtype);
    else model = build_model(mc, rng, config.training.dtype);
  } catch (const Error& e) {
    // A state of another kind under this config fails the config's own checks first (an fc
    // config written for it lacks the image size): the kinds are the point, so they lead.
    const auto it = file.metadata.find(interop_keys::kKind);
    if (it == file.metadata.end() || it->second == enum_name(mc.kind)) throw;
    throw Error(o.weights + ": the state's " + interop_keys::kKind + " metadata says model.kind " +
                it->second + ", the config (" + config_source + ") model.kind " +
                std::string(enum_name(mc.kind)) + "; give the config the state was trained "
                "with (the config's own check said: " + e.what() + ")");
  }
  check_names(*model, file, config_source, mc.kind);
  load_into(*model, file.tensors, o.weights);

  config.output = target;
  write_file_atomically(path_in(stage, model_files::kConfig), to_yaml(config));
  const Metadata meta = {{"format", "pt"},
                         {interop_keys::kKind, std::string(enum_name(mc.kind))},
                         {interop_keys::kImportedFrom, fs::path(o.weights).filename().string()}};
  save_module(*model, path_in(stage, model_files::kBest), meta);
  save_module(*model, path_in(stage, model_files::kLast), meta);
  load_any_model_dir(stage, "best");  // what translate, eval and info will do: must succeed now
}

}  // namespace

std::string model_config_json(const TrainConfig& config) {
  return yaml_json(YAML::Load(to_yaml(config))["model"]).dump();
}

std::size_t export_model(const ExportOptions& o) {
  // --force replaces a file, never a directory: advising it for one would only lead to
  // "Is a directory" when the file is renamed into place.
  std::error_code ec;
  HEED_CHECK(!fs::is_directory(o.out, ec), o.out,
             ": is a directory; --out names the .safetensors file to write (e.g. ",
             (fs::path(o.out) / "model.safetensors").string(), ")");
  HEED_CHECK(o.force || !fs::exists(o.out), o.out,
             ": exists; heed export does not overwrite a file unless given --force");
  const AnyModel m = load_any_model_dir(o.dir, o.weights);
  Metadata meta = {
      {"format", "pt"},
      {interop_keys::kFormat, kExportFormat},
      {interop_keys::kVersion, HEED_VERSION_STRING},
      {interop_keys::kKind, std::string(enum_name(m.config.model.kind))},
      {interop_keys::kModelConfig, model_config_json(m.config)},
      {interop_keys::kConfig, to_yaml(m.config)},
      {interop_keys::kDtype, std::string(enum_name(m.config.training.dtype))},
      {interop_keys::kWeights, o.weights == "best" || o.weights == "last"
                                   ? o.weights
                                   : fs::path(o.weights).filename().string()}};
  // An image or speech kind has no source side, so no heed.src_vocab. A memory network's one
  // vocabulary is src.vocab, the file it loads and checks: both keys hold it (its tgt.vocab
  // is the same words and is not read).
  const ModelKind kind = m.config.model.kind;
  const std::string tgt_vocab =
      answers_questions(kind) ? model_files::kSrcVocab : model_files::kTgtVocab;
  meta.emplace(interop_keys::kTgtVocab, read_text(path_in(o.dir, tgt_vocab)));
  if (!takes_images(kind) && !transcribes_speech(kind))
    meta.emplace(interop_keys::kSrcVocab, read_text(path_in(o.dir, model_files::kSrcVocab)));
  if (auto it = m.metadata.find("heed.step"); it != m.metadata.end()) meta.insert(*it);
  // The checksums of the vocabularies exported (save_module would take them from the
  // folder --out is in, were it a model directory).
  if (answers_questions(kind)) {
    const std::string checksum =
        vocabulary_checksum(Vocabulary::load(path_in(o.dir, model_files::kSrcVocab)));
    meta[vocabulary_checksum_keys::kSrc] = meta[vocabulary_checksum_keys::kTgt] = checksum;
  }
  add_vocabulary_checksums(o.dir, meta);
  save_module(*m.model, o.out, meta);
  return m.model->named_parameters().size();
}

void import_model(const ImportOptions& o) {
  std::error_code ec;
  const bool empty_dir = fs::is_directory(o.out, ec) && fs::is_empty(o.out, ec);
  HEED_CHECK(!fs::exists(o.out, ec) || empty_dir, o.out,
             ": exists; heed import writes a new model directory (give a new or empty one)");
  // The directory is written beside out ("out/" names out itself) under a name of this
  // process, then renamed into place.
  fs::path target = fs::absolute(o.out).lexically_normal();
  if (!target.has_filename()) target = target.parent_path();
  const std::string stage = target.string() + ".import.tmp." + std::to_string(::getpid());
  fs::remove_all(stage, ec);
  fs::create_directories(stage, ec);
  HEED_CHECK(!ec, stage, ": cannot create the directory (", ec.message(), ")");
  try {
    import_into(o, stage, target.string());
    if (empty_dir) fs::remove(target);
    fs::rename(stage, target, ec);
    HEED_CHECK(!ec, o.out, ": cannot move the imported model into place (", ec.message(), ")");
  } catch (...) {
    fs::remove_all(stage, ec);
    throw;
  }
}

}  // namespace heed
