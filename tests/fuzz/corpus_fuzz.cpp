// libFuzzer harness: the text-file and corpus readers (data/text_file.h, data/corpus.h)
// with the character and whitespace tokenisers. The first input byte picks the tokeniser,
// lowercasing and a length limit; the rest is the file. Any input must either be read or be
// refused with heed::Error, and what is read must tokenise, build a vocabulary and a corpus.
#include "fuzz/fuzz_input.h"
#include "heed/base/error.h"
#include "heed/data/corpus.h"
#include "heed/data/text_file.h"
#include "heed/data/tokenizer.h"
#include "heed/data/vocabulary.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace heed;
  if (size == 0) return 0;
  const std::uint8_t mode = data[0];
  const std::string path = fuzz::write_input("in.txt", data + 1, size - 1);
  std::vector<std::string> lines;
  try {
    lines = read_lines(path);
  } catch (const Error&) {
    return 0;
  }
  const auto tokenizer = make_tokenizer(mode & 1 ? "whitespace" : "char", (mode & 2) != 0);
  for (const auto& line : lines)
    for (const auto& piece : tokenizer->encode(line))
      fuzz::require(!piece.empty(), "tokenisers never produce empty pieces");
  VocabularyOptions vo;
  vo.max_size = mode & 4 ? 8 : 0;
  const Vocabulary vocab = Vocabulary::build(count_tokens(lines, *tokenizer), vo);
  CorpusOptions co;
  co.max_src_len = (mode >> 3) & 7;
  co.max_tgt_len = (mode >> 3) & 7;
  co.src_eos = (mode & 64) == 0;
  ParallelText text;
  text.source = lines;
  text.target = lines;
  const Corpus c = build_corpus(text, *tokenizer, vocab, *tokenizer, vocab, co);
  fuzz::require(c.stats.kept == c.size() && c.stats.kept + c.stats.dropped() == lines.size(),
                "corpus statistics add up");
  for (const auto& ids : c.src)
    for (const auto id : ids)
      fuzz::require(id >= 0 && static_cast<std::size_t>(id) < vocab.size(), "ids in range");
  try {
    build_source_corpus(lines, *tokenizer, vocab, co);
  } catch (const Error&) {  // a line over max_src_len is an error naming it
  }
  // The two-file reader on the same file as both sides.
  fuzz::require(read_parallel(path, path).size() == lines.size(), "read_parallel agrees");
  return 0;
}
