#include "heed/data/pronunciation_dictionary.h"

#include <cstdlib>
#include <unordered_map>

#include "heed/base/error.h"
#include "heed/base/utf8.h"
#include "heed/data/text_file.h"

namespace heed {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// "read(2)" -> "read"; anything else unchanged.
std::string_view strip_variant(std::string_view word) {
  if (word.size() < 4 || word.back() != ')') return word;
  std::size_t open = word.rfind('(');
  if (open == std::string_view::npos || open == 0 || open + 2 >= word.size()) return word;
  for (std::size_t i = open + 1; i + 1 < word.size(); ++i)
    if (!is_digit(word[i])) return word;
  return word.substr(0, open);
}

// The pronunciations of a line, `rest` being everything after the word and the blanks
// that follow it. When those blanks hold a TAB the line is WORD<TAB>PRON1<TAB>PRON2...
// and every TAB ends a pronunciation; otherwise (CMUdict's WORD  PHONES) the rest is one
// pronunciation, so a TAB inside it could mean either a second pronunciation or just
// another phone separator: that line is refused rather than guessed at, as is an empty
// field between two TABs (a column left blank, or phones split by TABs).
void split_pronunciations(std::string_view rest, bool tab_form, const std::string& name,
                          std::size_t line, std::vector<std::string_view>& fields) {
  fields.clear();
  if (!tab_form) {
    HEED_CHECK(rest.find('\t') == std::string_view::npos, name, ":", line,
               ": ambiguous line: the word is followed by spaces, so its phones are one "
               "pronunciation, but they hold a TAB; write WORD<TAB>PRON1<TAB>PRON2 (TABs "
               "between the word and each pronunciation, spaces between phones) or WORD "
               "PHONES with spaces only");
    fields.push_back(rest);
    return;
  }
  for (std::size_t field = 1;; ++field) {
    std::size_t tab = rest.find('\t');
    std::string_view pron = trim(rest.substr(0, tab));
    HEED_CHECK(!pron.empty(), name, ":", line, ": pronunciation ", field,
               " is empty (two TABs with nothing between them); expected "
               "WORD<TAB>PRON1<TAB>PRON2 with one TAB between pronunciations and spaces "
               "between phones");
    fields.push_back(pron);
    if (tab == std::string_view::npos) return;
    rest = rest.substr(tab + 1);
  }
}

// "AH0  B\vIY1" -> "AH0 B IY1" (or "AH B IY" when stripping stress).
std::string join_phones(std::string_view pron, bool strip) {
  std::string phones;
  while (!pron.empty()) {
    std::size_t end = 0;
    while (end < pron.size() && !is_space(pron[end])) ++end;
    std::string_view phone = pron.substr(0, end);
    if (strip) phone = strip_stress(phone);
    if (!phones.empty()) phones += ' ';
    phones += phone;
    pron = trim(pron.substr(end));
  }
  return phones;
}

}  // namespace

std::string default_cmudict_path() {
  const char* env = std::getenv("HEED_CMUDICT");
  return env != nullptr && *env != '\0' ? std::string(env) : std::string(kCmudictDefaultPath);
}

std::size_t PronunciationDictionary::pronunciations() const {
  std::size_t n = 0;
  for (const auto& w : words) n += w.pronunciations.size();
  return n;
}

std::size_t PronunciationDictionary::words_with_several() const {
  std::size_t n = 0;
  for (const auto& w : words) n += w.pronunciations.size() > 1;
  return n;
}

std::string_view strip_stress(std::string_view phone) {
  std::size_t end = phone.size();
  while (end > 0 && is_digit(phone[end - 1])) --end;
  return end == 0 ? phone : phone.substr(0, end);
}

bool is_letters_only(std::string_view word) {
  bool letter = false;
  for (char32_t c : decode_utf8(word)) {
    if (c == U'\'') continue;
    bool ok;
    if (c < 0x80) {
      ok = c >= U'a' && c <= U'z';
    } else {
      ok = !(c <= 0xBF || c == 0xD7 || c == 0xF7 || (c >= 0x2000 && c <= 0x2BFF) ||
             (c >= 0x3000 && c <= 0x303F));
    }
    if (!ok) return false;
    letter = true;
  }
  return letter;
}

PronunciationDictionary parse_pronunciation_dictionary(const std::vector<std::string>& lines,
                                                       const std::string& name,
                                                       const DictionaryOptions& options) {
  PronunciationDictionary dict;
  DictionaryStats& st = dict.stats;
  std::unordered_map<std::string, std::size_t> index;
  std::vector<std::string_view> fields;
  for (std::size_t n = 0; n < lines.size(); ++n) {
    ++st.lines;
    std::string_view s = trim(lines[n]);
    if (s.empty() || s.front() == '#' || s.starts_with(";;;")) {
      ++st.skipped;
      continue;
    }
    s = trim(s.substr(0, s.find('#')));
    std::size_t gap = 0;
    while (gap < s.size() && !is_space(s[gap])) ++gap;
    std::string_view raw_word = s.substr(0, gap);
    std::size_t first = gap;
    while (first < s.size() && is_space(s[first])) ++first;
    HEED_CHECK(first < s.size(), name, ":", n + 1,
               ": expected a word followed by its phones (WORD<TAB>PHONES), but '", raw_word,
               "' has no phones");
    std::string_view separator = s.substr(gap, first - gap);
    std::string_view rest = s.substr(first);
    split_pronunciations(rest, separator.find('\t') != std::string_view::npos, name, n + 1,
                         fields);
    ++st.entries;
    std::string word = to_lower(strip_variant(raw_word));
    if (options.letters_only && !is_letters_only(word)) {
      ++st.not_letters;
      continue;
    }
    auto [it, fresh] = index.try_emplace(word, dict.words.size());
    if (fresh) dict.words.push_back({word, {}});
    auto& prons = dict.words[it->second].pronunciations;
    for (std::string_view field : fields) {
      std::string phones = join_phones(field, options.strip_stress);
      bool seen = false;
      for (const auto& p : prons) seen = seen || p == phones;
      if (seen) {
        ++st.duplicates;
      } else {
        prons.push_back(std::move(phones));
      }
    }
  }
  return dict;
}

PronunciationDictionary read_pronunciation_dictionary(const std::string& path,
                                                      const DictionaryOptions& options) {
  return parse_pronunciation_dictionary(read_lines(path), path, options);
}

}  // namespace heed
