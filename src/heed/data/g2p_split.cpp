#include "heed/data/g2p_split.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <unordered_set>

#include "heed/base/error.h"
#include "heed/base/random.h"
#include "heed/data/text_file.h"

namespace heed {
namespace {

bool by_word(const WordPronunciations& a, const WordPronunciations& b) { return a.word < b.word; }

void sort_unique(std::vector<WordPronunciations>& words) {
  std::sort(words.begin(), words.end(), by_word);
  for (std::size_t i = 1; i < words.size(); ++i)
    HEED_CHECK(words[i - 1].word != words[i].word, "word '", words[i].word,
               "' appears twice in the list to split; merge its pronunciations first");
}

void check_fraction(double f, const char* what) {
  HEED_CHECK(std::isfinite(f) && f >= 0.0 && f < 1.0, what, " must be in [0, 1), got ", f);
}

}  // namespace

std::size_t count_pronunciations(const std::vector<WordPronunciations>& words) {
  std::size_t n = 0;
  for (const auto& w : words) n += w.pronunciations.size();
  return n;
}

G2pSplit split_by_word(std::vector<WordPronunciations> words, const G2pSplitOptions& options) {
  check_fraction(options.dev_fraction, "the dev fraction");
  check_fraction(options.test_fraction, "the test fraction");
  HEED_CHECK(options.dev_fraction + options.test_fraction < 1.0,
             "the dev and test fractions must leave words for training, got ",
             options.dev_fraction, " + ", options.test_fraction);
  sort_unique(words);
  const std::size_t n = words.size();
  // Fisher-Yates with our own Rng: std::shuffle's order differs between standard libraries.
  Rng rng(options.seed);
  for (std::size_t i = n; i > 1; --i) std::swap(words[i - 1], words[rng.below(i)]);
  const auto n_test = static_cast<std::size_t>(std::llround(n * options.test_fraction));
  const auto n_dev = static_cast<std::size_t>(std::llround(n * options.dev_fraction));
  HEED_CHECK(n_test + n_dev < n || n == 0, "only ", n, " words: ", n_dev, " for dev and ",
             n_test, " for test leave none for training");
  G2pSplit split;
  auto begin = std::make_move_iterator(words.begin());
  split.test.assign(begin, begin + n_test);
  split.dev.assign(begin + n_test, begin + n_test + n_dev);
  split.train.assign(begin + n_test + n_dev, std::make_move_iterator(words.end()));
  for (auto* part : {&split.train, &split.dev, &split.test})
    std::sort(part->begin(), part->end(), by_word);
  return split;
}

G2pSplit split_existing(std::vector<WordPronunciations> train,
                        std::vector<WordPronunciations> test, const G2pSplitOptions& options) {
  sort_unique(test);
  std::unordered_set<std::string> test_words;
  for (const auto& w : test) test_words.insert(w.word);
  const std::size_t before = train.size();
  std::erase_if(train, [&](const WordPronunciations& w) { return test_words.count(w.word) > 0; });
  G2pSplitOptions dev_only = options;
  dev_only.test_fraction = 0.0;
  G2pSplit split = split_by_word(std::move(train), dev_only);
  split.test = std::move(test);
  split.overlap_removed = before - (split.train.size() + split.dev.size());
  return split;
}

void write_g2p_split(const G2pSplit& split, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  HEED_CHECK(!ec && std::filesystem::is_directory(dir), dir, ": cannot create the output directory",
             ec ? " (" + ec.message() + ")" : std::string());
  const std::filesystem::path out(dir);
  std::vector<std::string> src, tgt;
  for (const auto& w : split.train) {
    for (const auto& p : w.pronunciations) {
      src.push_back(w.word);
      tgt.push_back(p);
    }
  }
  write_lines((out / "train.src").string(), src);
  write_lines((out / "train.tgt").string(), tgt);
  for (const auto& [name, words] : {std::pair{"dev", &split.dev}, std::pair{"test", &split.test}}) {
    src.clear();
    tgt.clear();
    for (const auto& w : *words) {
      src.push_back(w.word);
      std::string refs;
      for (const auto& p : w.pronunciations) {
        if (!refs.empty()) refs += '\t';
        refs += p;
      }
      tgt.push_back(std::move(refs));
    }
    write_lines((out / (std::string(name) + ".src")).string(), src);
    write_lines((out / (std::string(name) + ".tgt")).string(), tgt);
  }
}

}  // namespace heed
