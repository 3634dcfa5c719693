#include "heed/data/corpus.h"

#include "heed/base/error.h"

namespace heed {

std::string CorpusStats::summary() const {
  return detail::concat("kept ", kept, " of ", read, " sentence pairs (", empty, " empty, ",
                        too_long, " too long)");
}

Corpus build_corpus(const ParallelText& text, const Tokenizer& src_tokenizer,
                    const Vocabulary& src_vocab, const Tokenizer& tgt_tokenizer,
                    const Vocabulary& tgt_vocab, const CorpusOptions& options) {
  HEED_CHECK(text.source.size() == text.target.size(), "parallel text has ", text.source.size(),
             " source but ", text.target.size(), " target sentences");
  Corpus corpus;
  corpus.stats.read = text.size();
  for (std::size_t i = 0; i < text.size(); ++i) {
    const std::vector<std::string> src_pieces = src_tokenizer.encode(text.source[i]);
    const std::vector<std::string> tgt_pieces = tgt_tokenizer.encode(text.target[i]);
    std::vector<std::int32_t> src = src_vocab.encode(src_pieces);
    std::vector<std::int32_t> tgt = tgt_vocab.encode(tgt_pieces);
    if (src.empty() || tgt.empty()) {
      ++corpus.stats.empty;
      continue;
    }
    if (options.src_eos) src.push_back(Vocabulary::kEos);
    tgt.push_back(Vocabulary::kEos);
    if ((options.max_src_len > 0 && src.size() > options.max_src_len) ||
        (options.max_tgt_len > 0 && tgt.size() > options.max_tgt_len)) {
      ++corpus.stats.too_long;
      continue;
    }
    if (options.copy_vocab) {
      CopyMap map = make_copy_map(src_pieces, options.src_eos, *options.copy_vocab);
      corpus.tgt_copy.push_back(extended_targets(tgt_pieces, map, *options.copy_vocab));
      corpus.copy.push_back(std::move(map));
    }
    corpus.src.push_back(std::move(src));
    corpus.tgt.push_back(std::move(tgt));
    corpus.index.push_back(i);
  }
  corpus.stats.kept = corpus.size();
  return corpus;
}

Corpus build_source_corpus(const std::vector<std::string>& lines, const Tokenizer& tokenizer,
                           const Vocabulary& vocab, const CorpusOptions& options) {
  Corpus corpus;
  corpus.stats.read = lines.size();
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::vector<std::string> pieces = tokenizer.encode(lines[i]);
    std::vector<std::int32_t> src = vocab.encode(pieces);
    if (options.src_eos) src.push_back(Vocabulary::kEos);
    if (options.copy_vocab)
      corpus.copy.push_back(make_copy_map(pieces, options.src_eos, *options.copy_vocab));
    HEED_CHECK(options.max_src_len == 0 || src.size() <= options.max_src_len, "input line ", i + 1,
               " has ", src.size(), " tokens, more than the model's maximum source length ",
               options.max_src_len);
    corpus.src.push_back(std::move(src));
    corpus.index.push_back(i);
  }
  corpus.stats.kept = corpus.size();
  return corpus;
}

TokenCounter count_tokens(const std::vector<std::string>& lines, const Tokenizer& tokenizer) {
  TokenCounter counter;
  for (const auto& line : lines) counter.add(tokenizer.encode(line));
  return counter;
}

}  // namespace heed
