#pragma once
// The checksums of a model directory's vocabularies, recorded in its weights files.
//
// The vocabularies are plain text beside the weights: two lines of tgt.vocab swapped keep
// every size and shape right, so the model loads and translates into the wrong words. Every
// weights file written into a model directory (save_module with the model kind in its
// metadata) therefore records vocabulary_checksum() of the directory's src.vocab and
// tgt.vocab, and loading compares them. Files written before heed recorded them carry none
// and load as before.
#include <string>

#include "heed/data/vocabulary.h"
#include "heed/tensor/safetensors.h"

namespace heed {

namespace vocabulary_checksum_keys {
inline constexpr const char* kSrc = "heed.src_vocab_checksum";
inline constexpr const char* kTgt = "heed.tgt_vocab_checksum";
}  // namespace vocabulary_checksum_keys

// The model directory a weights file at path belongs to: its folder, or the folder above
// for a step checkpoint (DIR/checkpoints/step_<n>.safetensors); "" when that folder holds
// no config.yaml (a file written elsewhere).
std::string model_dir_of_weights(const std::string& path);

// A hash of the tokens in id order ("xxh3-64:" + 16 hex digits, base/checksum.h): two
// vocabularies with the same tokens in another order differ.
std::string vocabulary_checksum(const Vocabulary& vocab);

// Adds the checksums of dir's src.vocab and tgt.vocab (those that exist and load) to
// metadata, leaving keys already there as they are.
void add_vocabulary_checksums(const std::string& dir, Metadata& metadata);

// heed::Error naming vocab_path when metadata records a checksum under key (one of
// vocabulary_checksum_keys) that differs from vocab's; nothing when it records none.
void check_vocabulary_checksum(const Vocabulary& vocab, const std::string& vocab_path,
                               const Metadata& metadata, const char* key,
                               const std::string& weights_path);

}  // namespace heed
