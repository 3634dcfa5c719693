#include "heed/store/vocabulary_checksums.h"

#include <filesystem>

#include "heed/base/checksum.h"
#include "heed/base/error.h"
#include "heed/store/model_dir.h"

namespace fs = std::filesystem;

namespace heed {

std::string vocabulary_checksum(const Vocabulary& vocab) {
  Checksum sum;
  // Each token ends in a NUL, which no token holds, so ("ab", "c") and ("a", "bc") differ.
  for (const auto& t : vocab.tokens()) sum.update(t.c_str(), t.size() + 1);
  return sum.str();
}

std::string model_dir_of_weights(const std::string& path) {
  fs::path dir = fs::absolute(path).lexically_normal().parent_path();
  if (dir.filename() == model_files::kCheckpoints) dir = dir.parent_path();
  std::error_code ec;
  return fs::is_regular_file(dir / model_files::kConfig, ec) ? dir.string() : std::string();
}

void add_vocabulary_checksums(const std::string& dir, Metadata& metadata) {
  for (const auto& [file, key] : {std::pair{model_files::kSrcVocab, vocabulary_checksum_keys::kSrc},
                                  std::pair{model_files::kTgtVocab, vocabulary_checksum_keys::kTgt}}) {
    const std::string path = path_in(dir, file);
    std::error_code ec;
    if (metadata.count(key) || !fs::is_regular_file(path, ec)) continue;
    try {
      metadata[key] = vocabulary_checksum(Vocabulary::load(path));
    } catch (const Error&) {
      // A damaged vocabulary is reported by whatever loads the model; the weights are saved.
    }
  }
}

void check_vocabulary_checksum(const Vocabulary& vocab, const std::string& vocab_path,
                               const Metadata& metadata, const char* key,
                               const std::string& weights_path) {
  const auto it = metadata.find(key);
  if (it == metadata.end()) return;
  const std::string actual = vocabulary_checksum(vocab);
  HEED_CHECK(actual == it->second, vocab_path, " is not the vocabulary the weights were trained "
             "with: its tokens hash to ", actual, " but ", weights_path, " records ", it->second,
             " (", key, "); the file was edited (lines swapped or changed) or comes from another "
             "model directory");
}

}  // namespace heed
