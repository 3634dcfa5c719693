#include "heed/serve/model_info.h"

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "heed/audio/log_mel.h"
#include "heed/base/enum_names.h"
#include "heed/data/babi.h"
#include "heed/models/model_registry.h"
#include "heed/store/model_dir.h"
#include "heed/train/training_state.h"

namespace heed::serve {
namespace {

using nlohmann::json;

json sizes(const ModelConfig& m) {
  json s = {{"emb_dim", m.emb_dim},          {"encoder", enum_name(encoder_cell(m))},
            {"enc_hidden", m.enc_hidden},    {"enc_layers", m.enc_layers},
            {"bidirectional", m.bidirectional}, {"dec_hidden", m.dec_hidden},
            {"dec_layers", m.dec_layers}};
  if (m.kind == ModelKind::luong) s["score"] = enum_name(m.score);
  return s;
}

// The training state's summary, or null where there is none (e.g. an imported model).
json training(const std::string& dir, const TrainConfig& config) {
  if (dir.empty()) return nullptr;
  const std::string path = path_in(dir, model_files::kState);
  if (!std::filesystem::exists(path)) return nullptr;
  const TrainingState s = read_training_state(path);
  json t = {{"steps", s.step}, {"metric", enum_name(config.training.metric)}};
  t["best_score"] = s.has_best ? json(s.best_metric) : json(nullptr);
  t["best_step"] = s.has_best ? json(s.best_step) : json(nullptr);
  t["stop_reason"] = s.stop_reason;
  return t;
}

// The step the weights were saved at, when the file's metadata says; else null.
json saved_step(const Metadata& metadata) {
  if (const auto it = metadata.find("heed.step"); it != metadata.end()) {
    char* end = nullptr;
    const long long n = std::strtoll(it->second.c_str(), &end, 10);
    if (end && *end == '\0' && !it->second.empty()) return n;
  }
  return nullptr;
}

// The live page's example story for a memory network: bAbI-like stories of three tasks.
struct MemoryExample {
  const char* story;
  const char* question;
};
constexpr MemoryExample kMemoryExamples[] = {
    {"Mary moved to the bathroom.\nJohn went to the hallway.\nMary went back to the kitchen.\n"
     "Daniel journeyed to the office.",
     "Where is Mary?"},
    {"Mary went to the kitchen.\nMary got the football there.\nJohn moved to the garden.\n"
     "Mary travelled to the office.",
     "Where is the football?"},
    {"John travelled to the hallway.\nMary journeyed to the garden.\nJohn moved to the office.",
     "Is John in the office?"},
};

json memory_example(const Vocabulary& vocab) {
  auto unknown = [&](const MemoryExample& e) {
    std::size_t n = 0;
    for (const char* text : {e.story, e.question}) {
      std::istringstream lines(text);
      for (std::string line; std::getline(lines, line);)
        for (const std::string& w : babi_words(line)) n += !vocab.contains(w);
    }
    return n;
  };
  const MemoryExample* best = nullptr;
  std::size_t fewest = 0;
  for (const MemoryExample& e : kMemoryExamples)
    if (const std::size_t n = unknown(e); !best || n < fewest) {
      best = &e;
      fewest = n;
    }
  return {{"story", best->story}, {"question", best->question}, {"unknown", fewest}};
}

}  // namespace

std::string memory_model_info(const LoadedMemoryModel& memory, const std::string& model,
                              const std::string& dir, const RequestLimits& limits) {
  const ModelConfig& mc = memory.config.model;
  const json member = {
      {"dir", dir},
      {"weights", memory.weights_path},
      {"step", saved_step(memory.metadata)},
      {"kind", enum_name(mc.kind)},
      {"attention", "soft"},
      {"parameters", memory.model->num_parameters()},
      {"sizes",
       {{"emb_dim", mc.emb_dim},
        {"hops", mc.memory.hops},
        {"memory_size", mc.memory.memory_size},
        {"position_encoding", mc.memory.position_encoding},
        {"temporal_encoding", mc.memory.temporal_encoding}}},
      {"vocabularies", {{"words", {{"size", memory.vocab.size()}}}}},
      {"training", training(dir, memory.config)}};
  const json info = {{"model", model},
                     {"kind", enum_name(mc.kind)},
                     {"attention", true},
                     {"limits", {{"max_line_bytes", limits.max_sentence_bytes}}},
                     {"members", json::array({member})},
                     {"example", memory_example(memory.vocab)}};
  return info.dump();
}

std::string speech_model_info(const LoadedModel& speech, const std::string& model,
                              const std::string& dir, const RequestLimits& limits,
                              std::size_t max_body_bytes) {
  const ModelConfig& mc = speech.config.model;
  const DataConfig::Audio& a = speech.config.data.audio;
  const json member = {
      {"dir", dir},
      {"weights", speech.weights_path},
      {"step", saved_step(speech.metadata)},
      {"kind", enum_name(mc.kind)},
      {"attention", enum_name(mc.attention_mode)},
      {"parameters", speech.model->num_parameters()},
      {"sizes", sizes(mc)},
      {"vocabularies",
       {{"target",
         {{"size", speech.tgt_vocab.size()},
          {"tokenizer", enum_name(speech.config.data.target.tokenizer)}}}}},
      {"training", training(dir, speech.config)}};
  const json info = {
      {"model", model},
      {"kind", enum_name(mc.kind)},
      {"attention", true},
      {"limits",
       {{"max_beam", limits.max_beam},
        {"max_audio_seconds", limits.max_audio_seconds},
        {"max_body_bytes", max_body_bytes}}},
      {"audio",
       {{"sample_rate", a.rate},
        {"mels", a.mels},
        {"stack", a.stack},
        {"normalize", a.normalize},
        {"pyramid", mc.listener.pyramid},
        {"frontend_layers", mc.listener.frontend_layers},
        {"frames_per_annotation", mc.listener.reduction() * a.stack},
        {"seconds_per_frame",
         static_cast<double>(LogMelOptions::for_rate(static_cast<int>(a.rate)).hop_length) /
             static_cast<double>(a.rate)}}},
      {"members", json::array({member})}};
  return info.dump();
}

std::string model_info(const LineTranslator& translator, const std::string& model,
                       const std::vector<std::string>& dirs, const RequestLimits& limits,
                       std::size_t max_input_tokens) {
  json members = json::array();
  for (std::size_t i = 0; i < translator.size(); ++i) {
    const LoadedModel& m = translator.model(i);
    const ModelConfig& mc = m.config.model;
    const std::string dir = i < dirs.size() ? dirs[i] : std::string();
    members.push_back(
        {{"dir", dir},
         {"weights", m.weights_path},
         {"step", saved_step(m.metadata)},
         {"kind", enum_name(mc.kind)},
         {"attention", mc.kind == ModelKind::noattn ? "none" : enum_name(mc.attention_mode)},
         {"parameters", m.model->num_parameters()},
         {"sizes", sizes(mc)},
         {"vocabularies",
          {{"source",
            {{"size", m.src_vocab.size()}, {"tokenizer", enum_name(m.config.data.source.tokenizer)}}},
           {"target",
            {{"size", m.tgt_vocab.size()},
             {"tokenizer", enum_name(m.config.data.target.tokenizer)}}}}},
         {"training", training(dir, m.config)}});
  }
  const json info = {{"model", model},
                     {"kind", enum_name(translator.model(0).config.model.kind)},
                     {"attention", translator.has_attention()},
                     {"max_source_length", translator.max_source_length()},
                     {"limits",
                      {{"max_sentences", limits.max_sentences},
                       {"max_sentence_bytes", limits.max_sentence_bytes},
                       {"max_beam", limits.max_beam},
                       {"max_input_len", max_input_tokens}}},
                     {"members", std::move(members)}};
  return info.dump();
}

}  // namespace heed::serve
