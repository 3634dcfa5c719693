#pragma once
// Corpus: sentence pairs as token ids, ready for batching. Building one tokenises each
// line, maps pieces to ids, appends EOS and drops pairs that are empty or too long,
// keeping each kept pair's line number in the files.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "heed/data/copy_map.h"
#include "heed/data/text_file.h"
#include "heed/data/tokenizer.h"
#include "heed/data/vocabulary.h"

namespace heed {

struct CorpusOptions {
  // Longest source / target sequence kept, counted as the model sees it: with the EOS
  // that is appended (so a target of n tokens here is y_1..y_{n-1} EOS). 0 = no limit.
  std::size_t max_src_len = 0;
  std::size_t max_tgt_len = 0;
  // Append EOS to every source sentence (the target always ends in EOS).
  bool src_eos = true;
  // Copy attention (model.copy): the target vocabulary each pair's copy map points into
  // (data/copy_map.h); null: no copy maps.
  const Vocabulary* copy_vocab = nullptr;
};

// What building a corpus left out.
struct CorpusStats {
  std::size_t read = 0;       // pairs read
  std::size_t kept = 0;
  std::size_t empty = 0;      // dropped: a side had no tokens
  std::size_t too_long = 0;   // dropped: a side exceeded its length limit
  std::size_t dropped() const { return empty + too_long; }
  std::string summary() const;  // "kept K of N sentence pairs (E empty, L too long)"
};

struct Corpus {
  std::vector<std::vector<std::int32_t>> src;  // each with EOS when src_eos
  std::vector<std::vector<std::int32_t>> tgt;  // y_1..y_n with y_n = EOS; empty for source-only
  std::vector<std::size_t> index;              // 0-based line number of each pair in the files
  // With CorpusOptions::copy_vocab: each pair's copy map, and its target over the extended
  // vocabulary (y_1..y_n, EOS last; empty for source-only). Empty otherwise.
  std::vector<CopyMap> copy;
  std::vector<std::vector<std::int32_t>> tgt_copy;
  CorpusStats stats;
  std::size_t size() const { return src.size(); }
  bool has_target() const { return !tgt.empty(); }
  bool has_copy() const { return !copy.empty(); }
};

// Tokenises and filters a parallel text.
Corpus build_corpus(const ParallelText& text, const Tokenizer& src_tokenizer,
                    const Vocabulary& src_vocab, const Tokenizer& tgt_tokenizer,
                    const Vocabulary& tgt_vocab, const CorpusOptions& options = {});

// Source-only corpus for translation input: every line is kept (also empty ones) so the
// output has one line per input line; a line longer than max_src_len is an error naming it.
Corpus build_source_corpus(const std::vector<std::string>& lines, const Tokenizer& tokenizer,
                           const Vocabulary& vocab, const CorpusOptions& options = {});

// Counts the tokens of every line, for Vocabulary::build.
TokenCounter count_tokens(const std::vector<std::string>& lines, const Tokenizer& tokenizer);

}  // namespace heed
