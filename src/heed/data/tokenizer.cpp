#include "heed/data/tokenizer.h"

#include "heed/base/error.h"
#include "heed/base/utf8.h"
#include "heed/data/sentencepiece_tokenizer.h"

namespace heed {

std::string Tokenizer::prepare(std::string_view text) const {
  return lowercase_ ? to_lower(text) : std::string(text);
}

std::vector<std::string> CharTokenizer::encode(std::string_view text) const {
  std::vector<std::string> pieces = split_code_points(prepare(text));
  for (auto& p : pieces)
    if (p == " ") p = kSpace;
  return pieces;
}

std::string CharTokenizer::decode(const std::vector<std::string>& pieces) const {
  std::string out;
  for (const auto& p : pieces) {
    if (p == kSpace)
      out.push_back(' ');
    else
      out += p;
  }
  return out;
}

std::vector<std::int32_t> Tokenizer::word_positions(const std::vector<std::string>& pieces) const {
  constexpr std::string_view kMark = CharTokenizer::kSpace;  // U+2581, SentencePiece's too
  std::vector<std::int32_t> words;
  words.reserve(pieces.size());
  std::int32_t word = -1;
  bool open = false;  // the current word may take more pieces
  for (const auto& p : pieces) {
    if (p == kMark) {
      words.push_back(-1);
      open = false;
      continue;
    }
    if (!open || p.rfind(kMark, 0) == 0) ++word;
    open = true;
    words.push_back(word);
  }
  return words;
}

std::vector<std::int32_t> WhitespaceTokenizer::word_positions(
    const std::vector<std::string>& pieces) const {
  std::vector<std::int32_t> words(pieces.size());
  for (std::size_t i = 0; i < words.size(); ++i) words[i] = static_cast<std::int32_t>(i);
  return words;
}

std::vector<std::string> WhitespaceTokenizer::encode(std::string_view text) const {
  std::string prepared = prepare(text);
  std::vector<std::string> pieces;
  std::size_t i = 0;
  while (i < prepared.size()) {
    while (i < prepared.size() && (prepared[i] == ' ' || prepared[i] == '\t')) ++i;
    std::size_t start = i;
    while (i < prepared.size() && prepared[i] != ' ' && prepared[i] != '\t') ++i;
    if (i > start) pieces.emplace_back(prepared.substr(start, i - start));
  }
  return pieces;
}

std::string WhitespaceTokenizer::decode(const std::vector<std::string>& pieces) const {
  std::string out;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    if (i > 0) out.push_back(' ');
    out += pieces[i];
  }
  return out;
}

std::unique_ptr<Tokenizer> make_tokenizer(TokenizerKind kind, bool lowercase,
                                          const std::string& sentencepiece_model) {
  switch (kind) {
    case TokenizerKind::chars: return std::make_unique<CharTokenizer>(lowercase);
    case TokenizerKind::whitespace: return std::make_unique<WhitespaceTokenizer>(lowercase);
    case TokenizerKind::sentencepiece:
      HEED_CHECK(!sentencepiece_model.empty(),
                 "the sentencepiece tokeniser needs a model file (train one first)");
      return std::make_unique<SentencePieceTokenizer>(
          SentencePieceTokenizer::load(sentencepiece_model, lowercase));
  }
  return nullptr;
}

std::unique_ptr<Tokenizer> make_tokenizer(const std::string& name, bool lowercase,
                                          const std::string& sentencepiece_model) {
  return make_tokenizer(parse_enum<TokenizerKind>(name, "tokeniser"), lowercase,
                        sentencepiece_model);
}

}  // namespace heed
