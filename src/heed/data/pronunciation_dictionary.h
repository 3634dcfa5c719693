#pragma once
// Pronunciation dictionaries for grapheme-to-phoneme data: the CMU Pronouncing Dictionary
// (exported to text by tools/setup.sh) or any user file. A line is a word, then its
// pronunciations, phones separated by spaces, in one of two forms:
//   WORD<TAB>PRON1<TAB>PRON2...  a TAB after the word and between pronunciations (the
//                                form of heed's own dev/test .tgt lines with the word
//                                in front, and of benchmark splits listing variants on
//                                one line);
//   WORD  PHONES                 spaces only (CMUdict): one pronunciation per line.
// Variants may also be repeated words or `WORD(2)`. A TAB after a space-separated word is
// an error (is it a second pronunciation or a phone separator?), as is an empty
// pronunciation between two TABs. Lines starting with `#` or `;;;` are comments, and
// anything after a `#` on a line is dropped. Words are lowercased.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace heed {

// Version of the npm package `cmu-pronouncing-dictionary` that tools/setup.sh pins.
inline constexpr const char* kCmudictVersion = "3.0.0";
// Where tools/setup.sh writes the exported dictionary; $HEED_CMUDICT overrides it.
inline constexpr const char* kCmudictDefaultPath = "/usr/local/share/heed/cmudict/cmudict.txt";
std::string default_cmudict_path();

// One word and its distinct pronunciations (phones joined by single spaces), in the
// order the file gives them.
struct WordPronunciations {
  std::string word;
  std::vector<std::string> pronunciations;
};

struct DictionaryOptions {
  bool strip_stress = false;  // drop trailing stress digits from phones: AH0 -> AH
  bool letters_only = false;  // keep only words made of letters and apostrophes
};

// What reading kept and dropped, entry = one line holding a word and its pronunciations.
struct DictionaryStats {
  std::size_t lines = 0;        // lines in the file
  std::size_t skipped = 0;      // blank and comment lines
  std::size_t entries = 0;      // lines holding a word and one or more pronunciations
  std::size_t not_letters = 0;  // entries dropped by letters_only
  std::size_t duplicates = 0;   // pronunciations repeating one the word already has
};

struct PronunciationDictionary {
  std::vector<WordPronunciations> words;  // first-seen order
  DictionaryStats stats;
  std::size_t pronunciations() const;
  std::size_t words_with_several() const;  // words with two or more pronunciations
};

// Parses dictionary lines; `name` (the file) prefixes error messages ("name:line: ...").
PronunciationDictionary parse_pronunciation_dictionary(const std::vector<std::string>& lines,
                                                       const std::string& name,
                                                       const DictionaryOptions& options = {});
PronunciationDictionary read_pronunciation_dictionary(const std::string& path,
                                                      const DictionaryOptions& options = {});

// "AH0" -> "AH", "ER12" -> "ER"; a phone of digits only is left as it is.
std::string_view strip_stress(std::string_view phone);
// True when a (lowercased) word has a letter and otherwise only letters and apostrophes.
// Letters: a-z and non-ASCII code points other than Latin-1 symbols (U+0080-U+00BF, ×, ÷)
// and general punctuation and symbols (U+2000-U+2BFF, U+3000-U+303F).
bool is_letters_only(std::string_view word);

}  // namespace heed
