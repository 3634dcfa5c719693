#pragma once
// The options that choose the model(s) a command loads, shared by `heed translate`, `heed
// align` and `heed transcribe`: --model (repeated: an ensemble), --weights, --checkpoint.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "heed/base/error.h"
#include "heed/translate/line_translator.h"

namespace heed::cli {

struct ModelFlags {
  std::vector<std::string> dirs, weights;
  std::string checkpoint = "best";
  AttentionChoice attention;  // add_attention_options: a Transformer's layer and head

  // One ModelSpec per member: a directory's checkpoint, one weights file per directory, or
  // several weights files of a single directory.
  std::vector<ModelSpec> specs() const {
    std::vector<ModelSpec> s;
    if (weights.empty()) {
      for (const auto& d : dirs) s.push_back({d, checkpoint, attention});
    } else if (weights.size() == dirs.size()) {
      for (std::size_t i = 0; i < dirs.size(); ++i) s.push_back({dirs[i], weights[i], attention});
    } else {
      HEED_CHECK(dirs.size() == 1, "got ", dirs.size(), " --model and ", weights.size(),
                 " --weights; give one --weights per --model, or several with a single --model");
      for (const auto& w : weights) s.push_back({dirs.front(), w, attention});
    }
    return s;
  }
  // "run1 + run2", for records that name the model.
  std::string label() const {
    std::string s;
    for (const auto& d : dirs) s += (s.empty() ? "" : " + ") + d;
    return s;
  }
};

// One value per --model and --weights (so that positional arguments after them stay
// positional): an ensemble repeats the option.
inline void add_model_options(CLI::App& app, ModelFlags& flags) {
  app.add_option("--model,-m", flags.dirs,
                 "model directory written by heed train; repeat it for an ensemble (averaged "
                 "probabilities)")
      ->required()
      ->allow_extra_args(false);
  auto* weights =
      app.add_option("--weights,-w", flags.weights,
                     "weights file to load instead of the directory's checkpoint (e.g. from heed "
                     "average): one per --model, or several with a single --model to ensemble "
                     "checkpoints")
          ->check(CLI::ExistingFile)
          ->allow_extra_args(false);
  app.add_option("--checkpoint,-c", flags.checkpoint, "which weights of the directory: best | last")
      ->check(CLI::IsMember({"best", "last"}))
      ->excludes(weights);
}

// --attention-layer and --attention-head (for the commands that read a model's attention:
// translate, align, show): which encoder-decoder attention of a Transformer is the model's,
// instead of model.alignment_layer / alignment_head as trained; other kinds refuse them.
inline void add_attention_options(CLI::App& app, ModelFlags& flags) {
  app.add_option("--attention-layer", flags.attention.layer,
                 "Transformer: the decoder layer whose encoder-decoder attention is the model's "
                 "(alignments, maps), 1 to dec_layers or 0 for the last (default: "
                 "model.alignment_layer as trained)")
      ->check(CLI::Range(0, 1000000));
  app.add_option("--attention-head", flags.attention.head,
                 "Transformer: that layer's head, 1 to heads or 0 for the heads averaged "
                 "(default: model.alignment_head as trained)")
      ->check(CLI::Range(0, 1000000));
}

}  // namespace heed::cli
