#include "heed/serve/model_info.h"

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "heed/base/enum_names.h"
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

}  // namespace

std::string model_info(const LineTranslator& translator, const std::string& model,
                       const std::vector<std::string>& dirs, const RequestLimits& limits,
                       std::size_t max_input_tokens) {
  json members = json::array();
  for (std::size_t i = 0; i < translator.size(); ++i) {
    const LoadedModel& m = translator.model(i);
    const ModelConfig& mc = m.config.model;
    const std::string dir = i < dirs.size() ? dirs[i] : std::string();
    json step = nullptr;  // the step the weights were saved at, when the file says
    if (const auto it = m.metadata.find("heed.step"); it != m.metadata.end()) {
      char* end = nullptr;
      const long long n = std::strtoll(it->second.c_str(), &end, 10);
      if (end && *end == '\0' && !it->second.empty()) step = n;
    }
    members.push_back(
        {{"dir", dir},
         {"weights", m.weights_path},
         {"step", step},
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
