#pragma once
// The views of `heed show`, one per model family: how it draws each item and the page of
// them all. The command parses the options, reads the model directory's config and hands over
// to the view whose predicate takes the model's kind; show_view.cpp lists the views and each
// family's file defines its entry, so a new family is one file and one line in that list.
#include <string>
#include <vector>

#include "heed/cli/show_options.h"
#include "heed/config/train_config.h"
#include "heed/models/model_config.h"

namespace heed::cli {

// What the user gives a view to draw: --input's sentences, --images' images or --audio's
// WAV files.
enum class ShowInput { sentences, images, audio };

struct ShowView {
  ShowInput input;
  // Whether the view draws models of this kind: a predicate of the model registry
  // (models/model_registry.h) where one says it.
  bool (*draws)(ModelKind kind);
  // Draws the items into options.out, then the page. config: the model directory's; sentences:
  // --input's lines, read and checked before the model is (empty with --images). Throws
  // UsageError or heed::Error for what the view cannot draw.
  void (*show)(const ShowOptions& options, const TrainConfig& config,
               const std::vector<std::string>& sentences);
};

// The view of models of this kind: the first in the list that draws it.
const ShowView& show_view(ModelKind kind);

// The kinds whose view reads `input`, in model.kind's order, as a sentence lists them:
// "ram, fc, cnn and image2seq"; "las" for audio.
std::string kinds_shown_from(ShowInput input);

}  // namespace heed::cli
