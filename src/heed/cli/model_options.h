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

  // One ModelSpec per member: a directory's checkpoint, one weights file per directory, or
  // several weights files of a single directory.
  std::vector<ModelSpec> specs() const {
    std::vector<ModelSpec> s;
    if (weights.empty()) {
      for (const auto& d : dirs) s.push_back({d, checkpoint});
    } else if (weights.size() == dirs.size()) {
      for (std::size_t i = 0; i < dirs.size(); ++i) s.push_back({dirs[i], weights[i]});
    } else {
      HEED_CHECK(dirs.size() == 1, "got ", dirs.size(), " --model and ", weights.size(),
                 " --weights; give one --weights per --model, or several with a single --model");
      for (const auto& w : weights) s.push_back({dirs.front(), w});
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

}  // namespace heed::cli
