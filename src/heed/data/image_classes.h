#pragma once
// An image classification set as heed reads it for model.kind ram (docs/DATA.md#generated-image-sets):
// a gzipped IDX images file of `heed data images` and its targets file, one class name per
// image. The classes form a Vocabulary built from the training targets (class c is id
// c + Vocabulary::kSpecials), which the model directory keeps as tgt.vocab.
#include <cstdint>
#include <string>
#include <vector>

#include "heed/data/corpus.h"
#include "heed/data/idx_file.h"
#include "heed/data/vocabulary.h"

namespace heed {

struct ClassifiedImages {
  IdxImages images;
  std::vector<std::int32_t> labels;  // per image its class id in the vocabulary (>= kSpecials)
};

// The class names of a targets file, one per line; heed::Error naming file and line for a
// line without exactly one name (a canvas of several items belongs to a sequence model).
std::vector<std::string> read_class_names(const std::string& targets_path);

// The classes of the training targets, most frequent first (ties by name, Vocabulary::build).
Vocabulary build_class_vocabulary(const std::vector<std::string>& names);

// The targets file `heed data images` writes beside an images file:
// <dir>/<split>-images-idx3-ubyte.gz -> <dir>/<split>.tgt. heed::Error, naming the file and
// asking for --targets, for an images file not named so.
std::string default_targets_path(const std::string& images_path);

// Reads the images and their targets; heed::Error when the counts differ or a target names
// a class the vocabulary lacks (naming the file, the line and the class).
ClassifiedImages read_classified_images(const std::string& images_path,
                                        const std::string& targets_path, const Vocabulary& classes);

// Each image as one corpus entry whose source and target are its class id, so that the
// trainer's BatchSampler batches images as it batches sentences (an image counts as one token).
Corpus image_corpus(const ClassifiedImages& set);

}  // namespace heed
