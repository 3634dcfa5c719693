#pragma once
// Subword tokeniser over Debian's libsentencepiece: trains a unigram or BPE model on the
// training sentences or loads an existing .model file. Training uses the identity
// normaliser and keeps every space, so decode(encode(s)) == s for any text made of
// characters the model covers.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "heed/base/enum_names.h"
#include "heed/data/tokenizer.h"

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace heed {

enum class SpmModelType { unigram, bpe };
inline constexpr EnumName<SpmModelType> kSpmModelTypeNames[] = {{SpmModelType::unigram, "unigram"},
                                                                {SpmModelType::bpe, "bpe"}};
constexpr std::span<const EnumName<SpmModelType>> enum_names(SpmModelType) {
  return kSpmModelTypeNames;
}

struct SentencePieceOptions {
  int vocab_size = 8000;              // an upper limit: small corpora may give fewer pieces
  SpmModelType model_type = SpmModelType::unigram;
  double character_coverage = 1.0;    // share of characters covered; the rest become unknown
  bool lowercase = false;             // lowercase (to_lower) before training and encoding
  int num_threads = 2;
};

class SentencePieceTokenizer : public Tokenizer {
 public:
  // Trains on the sentences and writes the model to model_path (atomically).
  static SentencePieceTokenizer train(const std::vector<std::string>& sentences,
                                      const std::string& model_path,
                                      const SentencePieceOptions& options = {});
  // Loads a .model file written by train() or by spm_train. lowercase must match the
  // setting the model was trained with.
  static SentencePieceTokenizer load(const std::string& model_path, bool lowercase = false);

  SentencePieceTokenizer(SentencePieceTokenizer&&) noexcept;
  SentencePieceTokenizer& operator=(SentencePieceTokenizer&&) noexcept;
  ~SentencePieceTokenizer() override;

  std::vector<std::string> encode(std::string_view text) const override;
  std::string decode(const std::vector<std::string>& pieces) const override;
  TokenizerKind kind() const override { return TokenizerKind::sentencepiece; }
  int piece_count() const;  // size of the model's own piece inventory

 private:
  SentencePieceTokenizer(std::unique_ptr<sentencepiece::SentencePieceProcessor> processor,
                         bool lowercase);
  std::unique_ptr<sentencepiece::SentencePieceProcessor> processor_;
};

}  // namespace heed
