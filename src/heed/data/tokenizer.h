#pragma once
// Tokenizer: turns a sentence into pieces (strings the Vocabulary maps to ids) and pieces
// back into text. Implementations: CharTokenizer (code points), WhitespaceTokenizer
// (pre-tokenised text) and SentencePieceTokenizer (subwords). make_tokenizer builds one
// from its name, so a trained model can record which tokeniser it used.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "heed/base/enum_names.h"

namespace heed {

enum class TokenizerKind { chars, whitespace, sentencepiece };
inline constexpr EnumName<TokenizerKind> kTokenizerKindNames[] = {
    {TokenizerKind::chars, "char"},
    {TokenizerKind::whitespace, "whitespace"},
    {TokenizerKind::sentencepiece, "sentencepiece"}};
constexpr std::span<const EnumName<TokenizerKind>> enum_names(TokenizerKind) {
  return kTokenizerKindNames;
}

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;
  // Pieces of one sentence; never empty strings. Applies lowercasing when enabled.
  virtual std::vector<std::string> encode(std::string_view text) const = 0;
  // Text of a piece sequence; decode(encode(s)) == s for every tokeniser (up to case
  // when lowercasing, and up to runs of whitespace for WhitespaceTokenizer).
  virtual std::string decode(const std::vector<std::string>& pieces) const = 0;
  // "char", "whitespace" or "sentencepiece".
  virtual TokenizerKind kind() const = 0;
  // The word each piece of an encoded sentence belongs to, numbered from 0 in order, or -1
  // for a piece of no word (the char tokeniser's space). This default reads the word
  // boundary mark "▁" (U+2581) that SentencePiece and CharTokenizer put in their pieces: a piece
  // that is just the mark separates words, a piece starting with it starts a word, any other
  // piece continues the current word. Word-level alignments are built on it.
  virtual std::vector<std::int32_t> word_positions(const std::vector<std::string>& pieces) const;
  std::string name() const { return std::string(enum_name(kind())); }

  bool lowercase() const { return lowercase_; }

 protected:
  explicit Tokenizer(bool lowercase) : lowercase_(lowercase) {}
  // The text to split: lowercased (heed::to_lower, the metrics' mapping) when enabled.
  std::string prepare(std::string_view text) const;

 private:
  bool lowercase_;
};

// Characters (Unicode code points). A space becomes the visible piece "▁" (U+2581), so
// decoding restores the spaces; text that itself holds "▁" decodes it as a space.
class CharTokenizer : public Tokenizer {
 public:
  static constexpr std::string_view kSpace = "\xE2\x96\x81";  // U+2581
  explicit CharTokenizer(bool lowercase = false) : Tokenizer(lowercase) {}
  std::vector<std::string> encode(std::string_view text) const override;
  std::string decode(const std::vector<std::string>& pieces) const override;
  TokenizerKind kind() const override { return TokenizerKind::chars; }
};

// Pre-tokenised text: pieces are the runs between spaces and tabs; decode joins the
// pieces with single spaces.
class WhitespaceTokenizer : public Tokenizer {
 public:
  explicit WhitespaceTokenizer(bool lowercase = false) : Tokenizer(lowercase) {}
  std::vector<std::string> encode(std::string_view text) const override;
  std::string decode(const std::vector<std::string>& pieces) const override;
  TokenizerKind kind() const override { return TokenizerKind::whitespace; }
  // Every piece is a word.
  std::vector<std::int32_t> word_positions(const std::vector<std::string>& pieces) const override;
};

// Builds a char or whitespace tokeniser; sentencepiece needs a model file
// (sentencepiece_model: the path of an existing .model).
std::unique_ptr<Tokenizer> make_tokenizer(TokenizerKind kind, bool lowercase = false,
                                          const std::string& sentencepiece_model = "");
// The same by name ("char" | "whitespace" | "sentencepiece"; heed::Error otherwise).
std::unique_ptr<Tokenizer> make_tokenizer(const std::string& name, bool lowercase = false,
                                          const std::string& sentencepiece_model = "");

}  // namespace heed
