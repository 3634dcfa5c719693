#include "heed/data/sentencepiece_tokenizer.h"

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <filesystem>
#include <fstream>
#include <unordered_map>

#include "heed/base/atomic_file.h"
#include "heed/base/error.h"
#include "heed/base/utf8.h"

namespace heed {
namespace {

class VectorIterator : public sentencepiece::SentenceIterator {
 public:
  VectorIterator(const std::vector<std::string>& sentences, bool lowercase)
      : sentences_(sentences), lowercase_(lowercase) {
    load();
  }
  bool done() const override { return index_ >= sentences_.size(); }
  void Next() override {
    ++index_;
    load();
  }
  const std::string& value() const override { return current_; }
  sentencepiece::util::Status status() const override { return {}; }

 private:
  void load() {
    if (!done()) current_ = lowercase_ ? to_lower(sentences_[index_]) : sentences_[index_];
  }
  const std::vector<std::string>& sentences_;
  bool lowercase_;
  std::size_t index_ = 0;
  std::string current_;
};

}  // namespace

SentencePieceTokenizer::SentencePieceTokenizer(
    std::unique_ptr<sentencepiece::SentencePieceProcessor> processor, bool lowercase)
    : Tokenizer(lowercase), processor_(std::move(processor)) {}
SentencePieceTokenizer::SentencePieceTokenizer(SentencePieceTokenizer&&) noexcept = default;
SentencePieceTokenizer& SentencePieceTokenizer::operator=(SentencePieceTokenizer&&) noexcept = default;
SentencePieceTokenizer::~SentencePieceTokenizer() = default;

SentencePieceTokenizer SentencePieceTokenizer::train(const std::vector<std::string>& sentences,
                                                     const std::string& model_path,
                                                     const SentencePieceOptions& options) {
  HEED_CHECK(!sentences.empty(), "cannot train a SentencePiece model on no sentences");
  HEED_CHECK(options.vocab_size > 0, "SentencePiece vocabulary size must be positive, got ",
             options.vocab_size);
  HEED_CHECK(options.character_coverage > 0.0 && options.character_coverage <= 1.0,
             "SentencePiece character coverage must be in (0, 1], got ", options.character_coverage);
  // Identity normalisation and kept whitespace make decoding restore the text exactly;
  // a soft vocabulary limit lets small corpora train without an error.
  std::unordered_map<std::string, std::string> args = {
      {"model_type", std::string(enum_name(options.model_type))},
      {"vocab_size", std::to_string(options.vocab_size)},
      {"character_coverage", std::to_string(options.character_coverage)},
      {"normalization_rule_name", "identity"},
      {"remove_extra_whitespaces", "false"},
      {"hard_vocab_limit", "false"},
      {"num_threads", std::to_string(options.num_threads)},
      {"max_sentence_length", "65536"},
      {"minloglevel", "2"},
  };
  VectorIterator iterator(sentences, options.lowercase);
  std::string proto;
  auto status = sentencepiece::SentencePieceTrainer::Train(args, &iterator, &proto);
  HEED_CHECK(status.ok(), "SentencePiece training failed: ", status.ToString());

  write_file_atomically(model_path, proto);

  auto processor = std::make_unique<sentencepiece::SentencePieceProcessor>();
  status = processor->LoadFromSerializedProto(proto);
  HEED_CHECK(status.ok(), "cannot load the trained SentencePiece model: ", status.ToString());
  return SentencePieceTokenizer(std::move(processor), options.lowercase);
}

SentencePieceTokenizer SentencePieceTokenizer::load(const std::string& model_path, bool lowercase) {
  std::error_code ec;
  HEED_CHECK(std::filesystem::is_regular_file(model_path, ec), model_path,
             ": no such SentencePiece model file");
  auto processor = std::make_unique<sentencepiece::SentencePieceProcessor>();
  auto status = processor->Load(model_path);
  HEED_CHECK(status.ok(), model_path, ": not a SentencePiece model (", status.ToString(), ")");
  return SentencePieceTokenizer(std::move(processor), lowercase);
}

std::vector<std::string> SentencePieceTokenizer::encode(std::string_view text) const {
  std::vector<std::string> pieces;
  auto status = processor_->Encode(prepare(text), &pieces);
  HEED_CHECK(status.ok(), "SentencePiece cannot encode the text: ", status.ToString());
  return pieces;
}

std::string SentencePieceTokenizer::decode(const std::vector<std::string>& pieces) const {
  std::string text;
  auto status = processor_->Decode(pieces, &text);
  HEED_CHECK(status.ok(), "SentencePiece cannot decode the pieces: ", status.ToString());
  return text;
}

int SentencePieceTokenizer::piece_count() const { return processor_->GetPieceSize(); }

}  // namespace heed
