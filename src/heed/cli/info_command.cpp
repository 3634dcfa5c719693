#include "heed/cli/info_command.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "heed/base/error.h"
#include "heed/data/vocabulary.h"
#include "heed/models/image_classifier.h"
#include "heed/models/model_registry.h"
#include "heed/models/memory_network.h"
#include "heed/store/model_dir.h"
#include "heed/store/model_weights.h"
#include "heed/train/training_state.h"

namespace fs = std::filesystem;

namespace heed::cli {
namespace {

std::string thousands(std::int64_t n) {
  std::string s = std::to_string(n), out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i && (s.size() - i) % 3 == 0) out += ',';
    out += s[i];
  }
  return out;
}

class InfoCommand : public Command {
 public:
  std::string name() const override { return "info"; }
  std::string description() const override {
    return "Show a model directory: architecture, parameters per module, vocabularies, "
           "training history";
  }

  void setup(CLI::App& app) override {
    app.add_option("--model,-m", dir_, "model directory written by heed train")->required();
    app.footer("Prints the model section of config.yaml, the parameter count of each top-level\n"
               "module and in total, the vocabulary sizes, and from the training state the\n"
               "steps trained, the best dev score and its step.");
  }

  int run() override {
    const TrainConfig config = load_model_config(dir_);
    ModelConfig mc = config.model;
    Rng rng(config.training.seed);
    std::unique_ptr<Module> model;
    Vocabulary src, tgt;  // src stays the specials for a kind without a source side
    std::cout << "model directory: " << dir_ << "\n";
    std::cout << "architecture: " << mc.kind << "\n";
    if (classifies_images(mc.kind)) {  // an image classifier: classes, no source side
      tgt = Vocabulary::load(path_in(dir_, model_files::kTgtVocab));
      mc.tgt_vocab = static_cast<std::int64_t>(tgt.size());
      const RamConfig& r = mc.ram;
      const ImageClassifierConfig& ic = mc.classifier;
      if (mc.kind == ModelKind::ram)
        std::cout << "  " << r.glimpses << " glimpses of " << r.scales << " scale"
                  << (r.scales == 1 ? "" : "s") << " (" << r.glimpse_size << "x"
                  << r.glimpse_size << "), glimpse_hidden " << r.glimpse_hidden
                  << ", location_hidden " << r.location_hidden << ", glimpse_dim "
                  << r.glimpse_dim << ", core " << r.core << " hidden " << r.core_hidden
                  << ", location_std " << r.location_std << ", test paths " << r.sample_paths
                  << (r.random_locations ? ", random locations" : "") << "\n";
      else if (mc.kind == ModelKind::fc)
        std::cout << "  " << ic.image_height << "x" << ic.image_width << " images, "
                  << ic.fc_layers << " hidden layer" << (ic.fc_layers == 1 ? "" : "s") << " of "
                  << ic.fc_hidden << "\n";
      else
        std::cout << "  " << ic.image_height << "x" << ic.image_width << " images, "
                  << mc.image.conv_layers << " conv 3x3 + max-pool layers from "
                  << mc.image.conv_channels << " channels\n";
      std::cout << "classes: " << classifier_classes(mc) << "\n";
      model = make_image_classifier(mc, 1, rng, config.training.dtype);
    } else if (is_image_to_sequence(mc.kind)) {  // image2seq: class names, no source side
      tgt = Vocabulary::load(path_in(dir_, model_files::kTgtVocab));
      mc.tgt_vocab = static_cast<std::int64_t>(tgt.size());
      model = build_model(mc, rng, config.training.dtype);
      std::cout << "  " << mc.image.conv_layers << " conv 3x3 + max-pool layers from "
                << mc.image.conv_channels << " channels, emb_dim " << mc.emb_dim
                << ", decoder hidden " << mc.dec_hidden << ", attention " << mc.attention_mode
                << (mc.attention_mode == AttentionMode::hard
                        ? " (decoding: " + std::string(enum_name(mc.hard_eval)) + ")"
                        : std::string())
                << ", dropout " << mc.dropout << "\n";
      std::cout << "target vocabulary: " << tgt.size() << " (the class names and 4 specials)\n";
    } else if (transcribes_speech(mc.kind)) {  // las: transcript symbols, no source side
      tgt = Vocabulary::load(path_in(dir_, model_files::kTgtVocab));
      mc.tgt_vocab = static_cast<std::int64_t>(tgt.size());
      if (mc.listener.feature_dim == 0)
        mc.listener.feature_dim = config.data.audio.mels * config.data.audio.stack;
      model = build_model(mc, rng, config.training.dtype);
      std::cout << "  listener " << encoder_cell(mc) << " x" << mc.enc_layers
                << (mc.bidirectional ? " bidirectional" : "") << " hidden " << mc.enc_hidden
                << ", pyramid " << mc.listener.pyramid
                << (mc.listener.frontend_layers > 0
                        ? " after " + std::to_string(mc.listener.frontend_layers) +
                              " conv 3x3 + max-pool layers from " +
                              std::to_string(mc.listener.frontend_channels) + " channels"
                        : std::string())
                << " (" << mc.listener.reduction() << " frames per annotation), emb_dim "
                << mc.emb_dim << ", decoder hidden " << mc.dec_hidden
                << (mc.attention_mode == AttentionMode::none
                        ? ", no attention (the listener's final states)"
                        : "")
                << ", dropout " << mc.dropout << "\n";
      std::cout << "features: " << config.data.audio.mels << " log-mel bins at "
                << config.data.audio.rate << " Hz"
                << (config.data.audio.normalize ? ", normalised per utterance" : "")
                << (config.data.audio.stack > 1
                        ? ", stacked " + std::to_string(config.data.audio.stack) + " at a time"
                        : std::string())
                << "\n";
      std::cout << "target vocabulary: " << tgt.size() << " (" << config.data.target.tokenizer
                << ", 4 specials included)\n";
    } else if (answers_questions(mc.kind)) {  // memn2n: one vocabulary, hops over a memory
      src = Vocabulary::load(path_in(dir_, model_files::kSrcVocab));
      tgt = Vocabulary::load(path_in(dir_, model_files::kTgtVocab));
      mc.src_vocab = mc.tgt_vocab = static_cast<std::int64_t>(src.size());
      model = std::make_unique<MemoryNetwork>(mc, rng, config.training.dtype);
      const MemoryConfig& me = mc.memory;
      std::cout << "  " << me.hops << " hop" << (me.hops == 1 ? "" : "s") << " over the last "
                << me.memory_size << " statements, emb_dim " << mc.emb_dim << ", "
                << (me.position_encoding ? "position encoding" : "bag of words")
                << (me.temporal_encoding ? ", temporal encoding" : "")
                << (me.pad_memory ? ", empty slots in the softmax" : "") << "\n";
      std::cout << "vocabulary: " << src.size() << " words (4 specials included), bAbI tasks "
                << config.data.babi.tasks << "\n";
    } else {
      src = Vocabulary::load(path_in(dir_, model_files::kSrcVocab));
      tgt = Vocabulary::load(path_in(dir_, model_files::kTgtVocab));
      mc.src_vocab = static_cast<std::int64_t>(src.size());
      mc.tgt_vocab = static_cast<std::int64_t>(tgt.size());
      model = build_model(mc, rng, config.training.dtype);
      if (!model_kind_traits(mc.kind).recurrent) {  // the Transformer's sizes
        const TransformerConfig& t = mc.transformer;
        std::cout << "  d_model " << t.d_model << ", " << t.heads << " heads, ff_dim "
                  << t.ff_dim << ", " << mc.enc_layers << " encoder and " << mc.dec_layers
                  << " decoder layers, " << t.norm << "-norm, " << t.positions
                  << " positions, attention: decoder layer "
                  << (t.alignment_layer > 0 ? t.alignment_layer : mc.dec_layers) << ", "
                  << (t.alignment_head > 0 ? "head " + std::to_string(t.alignment_head)
                                           : std::string("heads averaged"))
                  << (t.share_embeddings ? ", one embedding table shared by source and target"
                                         : "");
      } else {
        std::cout << "  emb_dim " << mc.emb_dim << ", encoder "
                  << encoder_cell(mc) << " x" << mc.enc_layers
                  << (mc.bidirectional ? " bidirectional" : "") << " hidden " << mc.enc_hidden
                  << ", decoder hidden " << mc.dec_hidden << " x" << mc.dec_layers;
      }
      if (mc.kind == ModelKind::luong)
        std::cout << ", score " << mc.score << (mc.input_feed ? ", input feeding" : "")
                  << (mc.local_p ? ", local-p window " + std::to_string(mc.window) : "");
      if (mc.attention_mode == AttentionMode::hard)
        std::cout << ", hard attention (decoding: " << mc.hard_eval << ")";
      if (mc.location_filters > 0)  // docs/MODELS.md#location-aware-attention
        std::cout << ", location-aware attention (" << mc.location_filters << " filters of width "
                  << mc.location_width << ")";
      if (mc.coverage) std::cout << ", coverage";
      std::cout << ", dropout " << mc.dropout << (mc.tie_embeddings ? ", tied embeddings" : "")
                << (mc.copy ? ", copy attention (p_gen)" : "") << "\n";
      std::cout << "vocabularies: source " << src.size() << " (" << config.data.source.tokenizer
                << "), target " << tgt.size() << " (" << config.data.target.tokenizer << ")\n";
    }

    std::map<std::string, std::int64_t> per_module;
    std::vector<std::string> order;
    for (const auto& [name, v] : model->named_parameters()) {
      const std::string top = name.substr(0, name.find('.'));
      if (!per_module.count(top)) order.push_back(top);
      per_module[top] += v.value().numel();
    }
    std::cout << "parameters:\n";
    for (const auto& m : order) {
      char line[128];
      std::snprintf(line, sizeof line, "  %-24s %14s\n", m.c_str(), thousands(per_module[m]).c_str());
      std::cout << line;
    }
    char total[128];
    std::snprintf(total, sizeof total, "  %-24s %14s\n", "total",
                  thousands(model->num_parameters()).c_str());
    std::cout << total;

    // best.safetensors is what translate and eval load: it is loaded here the same way, so
    // a damaged file (truncated, empty, failing its checksum), weights of another model or a
    // vocabulary changed since training fail here too, not only later.
    const std::string best = path_in(dir_, model_files::kBest);
    if (fs::exists(best)) {
      const Metadata meta = load_model_weights(*model, best, dir_, mc.kind,
                                               takes_images(mc.kind) ||
                                                       transcribes_speech(mc.kind)
                                                   ? nullptr
                                                   : &src,
                                               tgt);
      const auto step = meta.find("heed.step");
      std::cout << "best weights: " << model_files::kBest << " loads"
                << (step != meta.end() ? ", step " + step->second : std::string()) << "\n";
    } else {
      std::cout << "best weights: none (no " << model_files::kBest << ")\n";
    }

    const std::string state_path = path_in(dir_, model_files::kState);
    if (!fs::exists(state_path)) {
      std::cout << "training: no training state\n";
      return 0;
    }
    const TrainingState s = read_training_state(state_path);
    std::cout << "training: " << s.step << " steps, epoch " << s.position.epoch + 1 << ", "
              << thousands(s.target_tokens) << " target tokens, "
              << static_cast<long long>(s.train_seconds) << " s";
    if (!s.stop_reason.empty()) std::cout << ", stopped: " << s.stop_reason;
    std::cout << "\n";
    std::cout << "validations: " << s.history.size() << "\n";
    if (s.has_best)
      std::cout << "best dev " << config.training.metric << ": " << s.best_metric << " at step "
                << s.best_step << "\n";
    if (!s.history.empty()) {
      const auto last = nlohmann::json::parse(s.history.back());
      std::cout << "last validation: step " << last.value("step", 0) << ", dev loss "
                << last.value("dev_loss", 0.0);
      if (last.contains("bleu")) std::cout << ", BLEU " << last["bleu"].get<double>();
      if (last.contains("wer")) std::cout << ", WER " << last["wer"].get<double>();
      if (last.contains("error")) std::cout << ", error " << last["error"].get<double>() << "%";
      std::cout << "\n";
    }
    print_checkpoints(s.checkpoints);
    return 0;
  }

 private:
  // The step checkpoints on disk, which are what heed average and --weights read. The
  // training state's list can be behind them: a run killed after rotating the checkpoints
  // (writing one, removing the oldest) but before saving its state lists the removed one
  // and not the new one. The difference is named.
  void print_checkpoints(const std::vector<std::int64_t>& listed) const {
    std::vector<std::int64_t> found;
    std::error_code ec;
    const std::regex pattern("step_([0-9]+)\\.safetensors");
    for (const auto& entry : fs::directory_iterator(dir_ + "/" + model_files::kCheckpoints, ec)) {
      std::smatch m;
      const std::string name = entry.path().filename().string();
      if (std::regex_match(name, m, pattern)) found.push_back(std::stoll(m[1].str()));
    }
    std::sort(found.begin(), found.end());
    auto join = [](const std::vector<std::int64_t>& steps) {
      std::string out;
      for (auto c : steps) out += " " + std::to_string(c);
      return out;
    };
    if (!found.empty()) std::cout << "step checkpoints:" << join(found) << "\n";
    if (found != listed)
      std::cout << "note: the training state lists step checkpoints"
                << (listed.empty() ? std::string(" none") : join(listed))
                << ": the run stopped between writing a checkpoint and saving its state "
                   "(a resume repeats the steps since the state)\n";
  }

  std::string dir_;
};

}  // namespace

std::unique_ptr<Command> make_info_command() { return std::make_unique<InfoCommand>(); }

}  // namespace heed::cli
