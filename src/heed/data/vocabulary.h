#pragma once
// Vocabulary: the mapping between token strings and ids. Ids 0..3 are fixed specials,
// matching the reference models (PAD 0, BOS 1, EOS 2) plus UNK 3; the rest are built from
// token counts, most frequent first. Saved as plain text, one token per line.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace heed {

// Token frequencies gathered over a corpus before the vocabulary is built.
class TokenCounter {
 public:
  void add(const std::vector<std::string>& tokens);
  void add(const std::string& token, std::int64_t count = 1);
  const std::unordered_map<std::string, std::int64_t>& counts() const { return counts_; }

 private:
  std::unordered_map<std::string, std::int64_t> counts_;
};

struct VocabularyOptions {
  std::size_t max_size = 0;   // total size including the 4 specials; 0 = no limit
  std::int64_t min_freq = 1;  // tokens seen fewer times are left out (they become UNK)
};

class Vocabulary {
 public:
  static constexpr std::int32_t kPad = 0, kBos = 1, kEos = 2, kUnk = 3;
  static constexpr std::int32_t kSpecials = 4;
  static constexpr std::string_view kPadToken = "<pad>", kBosToken = "<s>",
                                    kEosToken = "</s>", kUnkToken = "<unk>";

  Vocabulary();  // the 4 specials only
  // Specials, then tokens by count (descending), ties by token bytes (ascending), with
  // the max_size and min_freq limits. Tokens spelled like a special are skipped.
  static Vocabulary build(const TokenCounter& counter, const VocabularyOptions& options = {});
  // Specials followed by the given tokens, in order (heed::Error on duplicates, empty
  // tokens or tokens spelled like a special).
  static Vocabulary from_tokens(const std::vector<std::string>& tokens);

  // Text file: line i holds token i; the first 4 lines are the specials; backslash,
  // newline, carriage return and tab inside a token are written \\ \n \r \t.
  void save(const std::string& path) const;
  static Vocabulary load(const std::string& path);

  std::size_t size() const { return tokens_.size(); }
  std::int32_t id(std::string_view token) const;  // kUnk when absent
  bool contains(std::string_view token) const;
  const std::string& token(std::int32_t id) const;  // heed::Error when out of range
  std::vector<std::int32_t> encode(const std::vector<std::string>& tokens) const;
  // Tokens of the ids; PAD, BOS and EOS are skipped when strip_specials (UNK is kept as
  // "<unk>"), and decoding stops at the first EOS when stop_at_eos.
  std::vector<std::string> decode(const std::vector<std::int32_t>& ids, bool strip_specials = true,
                                  bool stop_at_eos = true) const;
  const std::vector<std::string>& tokens() const { return tokens_; }
  bool operator==(const Vocabulary& other) const { return tokens_ == other.tokens_; }

 private:
  void append(std::string token, const std::string& where);
  // Transparent hash: lookups by string_view need no temporary string.
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::vector<std::string> tokens_;
  std::unordered_map<std::string, std::int32_t, Hash, std::equal_to<>> index_;
};

}  // namespace heed
