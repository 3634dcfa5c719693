#pragma once
// An image-to-sequence set as heed reads it for model.kind image2seq
// (docs/DATA.md#generated-image-sets): a gzipped IDX images file of `heed data images --kind
// canvas` and its targets file, per image a line of class names (the canvas's items in
// reading order, separated by spaces). The names form the target Vocabulary, built from the
// training targets, which the model directory keeps as tgt.vocab.
#include <cstdint>
#include <string>
#include <vector>

#include "heed/data/corpus.h"
#include "heed/data/idx_file.h"
#include "heed/data/vocabulary.h"

namespace heed {

struct ImageSequences {
  IdxImages images;
  std::vector<std::vector<std::string>> names;    // per image its class names
  std::vector<std::vector<std::int32_t>> targets;  // their ids, then EOS
};

// Per line of a targets file its names; heed::Error naming file and line for an empty line.
std::vector<std::vector<std::string>> read_name_sequences(const std::string& targets_path);

// The names of the training targets, most frequent first (Vocabulary::build).
Vocabulary build_name_vocabulary(const std::vector<std::vector<std::string>>& lines);

// Reads the images and their targets; heed::Error when the counts differ or a target names a
// class the vocabulary lacks (naming the file, the line and the name).
ImageSequences read_image_sequences(const std::string& images_path,
                                    const std::string& targets_path, const Vocabulary& names);

// Each image as one corpus entry: its target ids, and a one-token placeholder source (the
// model reads the image), so that the trainer's BatchSampler batches images as sentences.
// limit > 0: the first limit images only.
Corpus image_sequence_corpus(const ImageSequences& set, std::size_t limit = 0);

}  // namespace heed
