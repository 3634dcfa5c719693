#pragma once
// The model kinds heed can build, one registry entry each (model_registry.cpp lists them; each
// kind's file defines its entry). An entry holds everything that differs between kinds: the
// default encoder cell, the kind's own checks, how it is built and the longest source it
// accepts. Adding a kind is one file and one line in the list (docs/ARCHITECTURE.md).
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "heed/base/random.h"
#include "heed/models/image_classifier.h"
#include "heed/models/model_config.h"
#include "heed/models/seq2seq.h"
#include "heed/tensor/dtype.h"

namespace heed {

struct ModelKindSpec {
  ModelKind kind;
  RnnCell default_encoder_cell;
  // Throws heed::Error naming the field and what is expected unless the kind can be built
  // from config (called after the checks every kind shares).
  void (*validate)(const ModelConfig& config);
  // Builds the encoder–decoder; null for a kind that reads images (ram, models/ram.h), which
  // heed train builds itself once it knows the classes of the data.
  std::unique_ptr<Seq2Seq> (*build)(const ModelConfig& config, Rng& rng, DType dtype);
  // The longest source (tokens with EOS) the model accepts; 0 = any length.
  std::int64_t (*max_source_length)(const ModelConfig& config);
  // Builds an image classifier (ram, fc, cnn; models/image_classifier.h) for images of
  // `channels` channels; null for every other kind.
  std::unique_ptr<ImageClassifier> (*build_classifier)(const ModelConfig& config,
                                                       std::int64_t channels, Rng& rng,
                                                       DType dtype) = nullptr;
  // The kind's own count of parameters and the size keys that drive it (the memory check's
  // message names the largest); null: the recurrent encoder-decoder's formula and keys.
  double (*estimated_parameters)(const ModelConfig& config) = nullptr;
  std::vector<std::pair<const char*, std::int64_t>> (*size_keys)(const ModelConfig& config) =
      nullptr;
  // The longest target (tokens with EOS, the decoder's positions) the model accepts; null or
  // 0: any length.
  std::int64_t (*max_target_length)(const ModelConfig& config) = nullptr;
};

const ModelKindSpec& model_kind_spec(ModelKind kind);

// The kinds' families and their predicates (classifies_images, is_image_to_sequence,
// takes_images) are in models/model_config.h, beside the kinds.

// The encoder's cell: the configured one, or the kind's default.
RnnCell encoder_cell(const ModelConfig& config);

// Throws heed::Error naming the offending field and what is expected unless make_model can
// build config (positive sizes, vocabularies holding the special tokens, dropout range, then
// the kind's own checks).
// A rough count of the model's parameters (the largest matrices), as a double so that absurd
// sizes cannot overflow it.
double estimated_parameters(const ModelConfig& config);
// Throws heed::Error naming the largest size key when training the model would need more
// than the machine's physical memory (base/memory.h). Part of validate_model_config.
void check_model_fits_in_memory(const ModelConfig& config);

void validate_model_config(const ModelConfig& config);

// The model config describes, after validate_model_config, initialised from rng.
std::unique_ptr<Seq2Seq> make_model(const ModelConfig& config, Rng& rng,
                                    DType dtype = DType::f32);

// The longest source (tokens with EOS) a model of this config accepts; 0 = any length.
std::int64_t max_source_length(const ModelConfig& config);
// The longest target (tokens with EOS: the decoder's positions, so also the most decoding
// steps) a model of this config accepts; 0 = any length.
std::int64_t max_target_length(const ModelConfig& config);

}  // namespace heed
