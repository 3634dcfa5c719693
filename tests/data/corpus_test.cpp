#include "heed/data/corpus.h"

#include <gtest/gtest.h>

#include "heed/base/error.h"
#include "heed/data/batch.h"

namespace heed {
namespace {
using Ids = std::vector<std::int32_t>;

struct Fixture {
  WhitespaceTokenizer tok;
  Vocabulary src_vocab = Vocabulary::from_tokens({"a", "b", "c"});  // a=4 b=5 c=6
  Vocabulary tgt_vocab = Vocabulary::from_tokens({"x", "y"});       // x=4 y=5
};

TEST(Corpus, EncodesAndAppendsEos) {
  Fixture f;
  ParallelText text{{"a b", "c q"}, {"x", "y y x"}};
  Corpus c = build_corpus(text, f.tok, f.src_vocab, f.tok, f.tgt_vocab);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c.src[0], (Ids{4, 5, 2}));
  EXPECT_EQ(c.src[1], (Ids{6, 3, 2}));
  EXPECT_EQ(c.tgt[1], (Ids{5, 5, 4, 2}));
  EXPECT_EQ(c.index, (std::vector<std::size_t>{0, 1}));
  CorpusOptions no_eos;
  no_eos.src_eos = false;
  EXPECT_EQ(build_corpus(text, f.tok, f.src_vocab, f.tok, f.tgt_vocab, no_eos).src[0], (Ids{4, 5}));
}

TEST(Corpus, DropsEmptyAndLongPairsAndCountsThem) {
  Fixture f;
  ParallelText text{{"a", "", "a b c a", "b", "c", "a"}, {"x", "x", "x", "  ", "x y x y", "y"}};
  CorpusOptions opts;
  opts.max_src_len = 3;  // counting EOS
  opts.max_tgt_len = 4;
  Corpus c = build_corpus(text, f.tok, f.src_vocab, f.tok, f.tgt_vocab, opts);
  EXPECT_EQ(c.index, (std::vector<std::size_t>{0, 5}));
  EXPECT_EQ(c.stats.read, 6u);
  EXPECT_EQ(c.stats.kept, 2u);
  EXPECT_EQ(c.stats.empty, 2u);
  EXPECT_EQ(c.stats.too_long, 2u);
  EXPECT_EQ(c.stats.dropped(), 4u);
  EXPECT_EQ(c.stats.summary(), "kept 2 of 6 sentence pairs (2 empty, 2 too long)");
}

TEST(Corpus, SourceOnlyKeepsEveryLine) {
  Fixture f;
  Corpus c = build_source_corpus({"a", "", "b c"}, f.tok, f.src_vocab);
  EXPECT_FALSE(c.has_target());
  EXPECT_EQ(c.src, (std::vector<Ids>{{4, 2}, {2}, {5, 6, 2}}));
  CorpusOptions opts;
  opts.max_src_len = 2;
  try {
    build_source_corpus({"a", "b c"}, f.tok, f.src_vocab, opts);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("input line 2 has 3 tokens"), std::string::npos);
  }
}

TEST(Corpus, CountTokensFeedsVocabularyBuild) {
  CharTokenizer tok;
  Vocabulary v = Vocabulary::build(count_tokens({"aab", "ba a"}, tok));
  EXPECT_EQ(v.tokens(), (std::vector<std::string>{"<pad>", "<s>", "</s>", "<unk>", "a", "b", "▁"}));
}

TEST(Batch, PadsAndShiftsTargets) {
  Fixture f;
  ParallelText text{{"a b c", "b"}, {"x", "y x y"}};
  Corpus c = build_corpus(text, f.tok, f.src_vocab, f.tok, f.tgt_vocab);
  Batch b = make_batch(c, {1, 0});
  EXPECT_EQ(b.size, 2u);
  EXPECT_EQ(b.src_len, 4u);
  EXPECT_EQ(b.tgt_len, 4u);
  EXPECT_EQ(b.src, (Ids{5, 2, 0, 0, /**/ 4, 5, 6, 2}));
  EXPECT_EQ(b.src_lengths, (Ids{2, 4}));
  EXPECT_EQ(b.tgt_out, (Ids{5, 4, 5, 2, /**/ 4, 2, 0, 0}));
  EXPECT_EQ(b.tgt_in, (Ids{1, 5, 4, 5, /**/ 1, 4, 0, 0}));
  EXPECT_EQ(b.tgt_lengths, (Ids{4, 2}));
  EXPECT_EQ(b.src_tokens, 6u);
  EXPECT_EQ(b.tgt_tokens, 6u);
  EXPECT_EQ(b.indices, (std::vector<std::size_t>{1, 0}));
  EXPECT_EQ(b.members, (std::vector<std::size_t>{1, 0}));
  EXPECT_EQ(b.padded_tokens(), 8u);
  EXPECT_THROW(make_batch(c, {}), Error);
  EXPECT_THROW(make_batch(c, {2}), Error);
}

TEST(Batch, SourceOnly) {
  Fixture f;
  Corpus c = build_source_corpus({"a b", "c"}, f.tok, f.src_vocab);
  Batch b = make_batch(c, {0, 1});
  EXPECT_EQ(b.src, (Ids{4, 5, 2, 6, 2, 0}));
  EXPECT_EQ(b.tgt_len, 0u);
  EXPECT_TRUE(b.tgt_in.empty());
  EXPECT_EQ(b.tgt_tokens, 0u);
}

}  // namespace
}  // namespace heed
