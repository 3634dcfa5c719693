#pragma once
// Train/dev/test splits of a pronunciation dictionary for G2P, made BY WORD: all
// pronunciations of a word land in the same split, so a test word is never seen in
// training. Files (docs/cli/data.md): `train.src`/`train.tgt` hold one line per (word,
// pronunciation); `dev`/`test` hold one line per word, every pronunciation in `*.tgt`,
// tab-separated (the references `heed score --metric g2p` takes).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "heed/data/pronunciation_dictionary.h"

namespace heed {

struct G2pSplit {
  std::vector<WordPronunciations> train, dev, test;  // each sorted by word
  std::size_t overlap_removed = 0;  // existing-split mode: train words also in test, dropped
};

struct G2pSplitOptions {
  double dev_fraction = 0.05;
  double test_fraction = 0.05;
  std::uint64_t seed = 1234;
};

// Sorts the words, shuffles them with Rng(seed) and takes round(N * test_fraction) words
// for test, round(N * dev_fraction) for dev, the rest for train. The split depends only
// on the set of words and the seed, not on the order they came in.
G2pSplit split_by_word(std::vector<WordPronunciations> words, const G2pSplitOptions& options);

// An existing train/test split: test is kept as given, words also found in test are
// removed from train (counted in overlap_removed), and dev is carved from train with
// options.dev_fraction and options.seed (options.test_fraction is unused).
G2pSplit split_existing(std::vector<WordPronunciations> train,
                        std::vector<WordPronunciations> test, const G2pSplitOptions& options);

// Writes train/dev/test .src and .tgt into dir (created if missing), each atomically.
void write_g2p_split(const G2pSplit& split, const std::string& dir);

// Pronunciations of a split (the number of train lines).
std::size_t count_pronunciations(const std::vector<WordPronunciations>& words);

}  // namespace heed
