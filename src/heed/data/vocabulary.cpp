#include "heed/data/vocabulary.h"

#include <algorithm>

#include "heed/base/error.h"
#include "heed/data/text_file.h"

namespace heed {
namespace {

bool is_special(std::string_view t) {
  return t == Vocabulary::kPadToken || t == Vocabulary::kBosToken ||
         t == Vocabulary::kEosToken || t == Vocabulary::kUnkToken;
}

std::string escape(const std::string& token) {
  std::string out;
  out.reserve(token.size());
  for (char c : token) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

std::string unescape(const std::string& line, const std::string& where) {
  std::string out;
  out.reserve(line.size());
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] != '\\') {
      out.push_back(line[i]);
      continue;
    }
    HEED_CHECK(i + 1 < line.size(), where, ": a token ends in a lone backslash (write \\\\)");
    char c = line[++i];
    switch (c) {
      case '\\': out.push_back('\\'); break;
      case 'n': out.push_back('\n'); break;
      case 'r': out.push_back('\r'); break;
      case 't': out.push_back('\t'); break;
      default: HEED_CHECK(false, where, ": unknown escape \\", c, " (expected \\\\, \\n, \\r or \\t)");
    }
  }
  return out;
}

}  // namespace

void TokenCounter::add(const std::vector<std::string>& tokens) {
  for (const auto& t : tokens) ++counts_[t];
}

void TokenCounter::add(const std::string& token, std::int64_t count) { counts_[token] += count; }

Vocabulary::Vocabulary() {
  for (auto t : {kPadToken, kBosToken, kEosToken, kUnkToken}) {
    index_.emplace(std::string(t), static_cast<std::int32_t>(tokens_.size()));
    tokens_.emplace_back(t);
  }
}

void Vocabulary::append(std::string token, const std::string& where) {
  HEED_CHECK(!token.empty(), where, ": empty token");
  HEED_CHECK(!is_special(token), where, ": token '", token, "' is reserved for a special symbol");
  HEED_CHECK(tokens_.size() < static_cast<std::size_t>(INT32_MAX), "vocabulary too large");
  auto [it, inserted] = index_.emplace(token, static_cast<std::int32_t>(tokens_.size()));
  HEED_CHECK(inserted, where, ": duplicate token '", token, "' (first at id ", it->second, ")");
  tokens_.push_back(std::move(token));
}

Vocabulary Vocabulary::build(const TokenCounter& counter, const VocabularyOptions& options) {
  HEED_CHECK(options.max_size == 0 || options.max_size >= static_cast<std::size_t>(kSpecials),
             "vocabulary max size ", options.max_size, " is below the ", kSpecials,
             " special symbols");
  std::vector<std::pair<std::string, std::int64_t>> entries;
  entries.reserve(counter.counts().size());
  for (const auto& [token, count] : counter.counts())
    if (count >= options.min_freq && !token.empty() && !is_special(token))
      entries.emplace_back(token, count);
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  std::size_t keep = entries.size();
  if (options.max_size > 0) keep = std::min(keep, options.max_size - kSpecials);
  Vocabulary vocab;
  for (std::size_t i = 0; i < keep; ++i) vocab.append(std::move(entries[i].first), "vocabulary");
  return vocab;
}

Vocabulary Vocabulary::from_tokens(const std::vector<std::string>& tokens) {
  Vocabulary vocab;
  for (const auto& t : tokens) vocab.append(t, "vocabulary");
  return vocab;
}

void Vocabulary::save(const std::string& path) const {
  std::vector<std::string> lines;
  lines.reserve(tokens_.size());
  for (const auto& t : tokens_) lines.push_back(escape(t));
  write_lines(path, lines);
}

Vocabulary Vocabulary::load(const std::string& path) {
  std::vector<std::string> lines = read_lines(path);
  const std::string_view expected[] = {kPadToken, kBosToken, kEosToken, kUnkToken};
  for (std::size_t i = 0; i < static_cast<std::size_t>(kSpecials); ++i) {
    HEED_CHECK(i < lines.size() && lines[i] == expected[i], path, ":", i + 1, ": expected the special token ",
               expected[i], " (a vocabulary file starts with <pad>, <s>, </s>, <unk>)",
               i < lines.size() ? ", found '" + lines[i] + "'" : ", found the end of the file");
  }
  Vocabulary vocab;
  for (std::size_t i = kSpecials; i < lines.size(); ++i) {
    std::string where = path + ":" + std::to_string(i + 1);
    vocab.append(unescape(lines[i], where), where);
  }
  return vocab;
}

std::int32_t Vocabulary::id(std::string_view token) const {
  auto it = index_.find(token);
  return it == index_.end() ? kUnk : it->second;
}

bool Vocabulary::contains(std::string_view token) const {
  return index_.find(token) != index_.end();
}

const std::string& Vocabulary::token(std::int32_t id) const {
  HEED_CHECK(id >= 0 && static_cast<std::size_t>(id) < tokens_.size(), "token id ", id,
             " is outside the vocabulary (size ", tokens_.size(), ")");
  return tokens_[static_cast<std::size_t>(id)];
}

std::vector<std::int32_t> Vocabulary::encode(const std::vector<std::string>& tokens) const {
  std::vector<std::int32_t> ids;
  ids.reserve(tokens.size());
  for (const auto& t : tokens) ids.push_back(id(t));
  return ids;
}

std::vector<std::string> Vocabulary::decode(const std::vector<std::int32_t>& ids,
                                            bool strip_specials, bool stop_at_eos) const {
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (std::int32_t i : ids) {
    if (stop_at_eos && i == kEos) break;
    if (strip_specials && (i == kPad || i == kBos || i == kEos)) continue;
    tokens.push_back(token(i));
  }
  return tokens;
}

}  // namespace heed
