#include "heed/data/copy_map.h"

#include <gtest/gtest.h>

#include "heed/base/error.h"
#include "heed/data/batch.h"
#include "heed/data/corpus.h"

namespace heed {
namespace {
using Ids = std::vector<std::int32_t>;
using Words = std::vector<std::string>;
constexpr std::int32_t kPad = Vocabulary::kPad, kBos = Vocabulary::kBos, kEos = Vocabulary::kEos,
                       kUnk = Vocabulary::kUnk;

// The target vocabulary: x=4 y=5 name=6 (V = 7).
const Vocabulary kTgt = Vocabulary::from_tokens({"x", "y", "name"});

TEST(CopyMap, SourceWordsMapToTargetIdsOrExtendedIds) {
  // "my" and "Ada" are not target words: 7 and 8, in order of first appearance; "name" is 6.
  CopyMap map = make_copy_map({"my", "name", "is", "Ada", "my"}, true, kTgt);
  EXPECT_EQ(map.source, (Ids{7, 6, 8, 9, 7, kEos}));
  EXPECT_EQ(map.words, (Words{"my", "is", "Ada"}));
  EXPECT_EQ(make_copy_map({"x"}, false, kTgt).source, (Ids{4}));
  // A piece spelled like a special is a word like any other, never the special.
  EXPECT_EQ(make_copy_map({"<unk>", "</s>"}, false, kTgt).source, (Ids{7, 8}));
}

TEST(CopyMap, TargetsTakeTheExtendedIdOfASourceWordElseUnk) {
  CopyMap map = make_copy_map({"my", "name", "is", "Ada"}, true, kTgt);
  EXPECT_EQ(extended_targets({"Ada", "name", "Bob", "x"}, map, kTgt), (Ids{9, 6, kUnk, 4, kEos}));
}

TEST(CopyMap, DecodingGivesTheSourceWordsBack) {
  const Words words = {"my", "is", "Ada"};
  EXPECT_EQ(decode_extended({kBos, 9, 6, kUnk, 4, kEos, 7}, kTgt, words),
            (Words{"Ada", "name", "<unk>", "x"}));
  EXPECT_THROW(decode_extended({10}, kTgt, words), Error);  // past the sentence's words
}

TEST(CopyMap, CorpusAndBatchCarryTheMaps) {
  WhitespaceTokenizer tok;
  Vocabulary src = Vocabulary::from_tokens({"my", "name", "is"});
  ParallelText text{{"my name is Ada", "name Bob Cy"}, {"Ada", "Cy x Bob"}};
  CorpusOptions options;
  options.copy_vocab = &kTgt;
  Corpus c = build_corpus(text, tok, src, tok, kTgt, options);
  ASSERT_TRUE(c.has_copy());
  EXPECT_EQ(c.tgt[0], (Ids{kUnk, kEos}));  // the plain target: Ada is unknown
  EXPECT_EQ(c.tgt_copy[0], (Ids{9, kEos}));
  EXPECT_EQ(c.tgt_copy[1], (Ids{8, 4, 7, kEos}));
  Batch b = make_batch(c, {0, 1});
  EXPECT_EQ(b.extended, 3);
  EXPECT_EQ(b.src_copy, (Ids{7, 6, 8, 9, kEos,  //
                             6, 7, 8, kEos, kPad}));
  EXPECT_EQ(b.tgt_copy, (Ids{9, kEos, kPad, kPad,  //
                             8, 4, 7, kEos}));
  EXPECT_EQ(b.tgt_out, (Ids{kUnk, kEos, kPad, kPad, kUnk, 4, kUnk, kEos}));
  // Without copy_vocab, nothing of it.
  Corpus plain = build_corpus(text, tok, src, tok, kTgt);
  EXPECT_FALSE(plain.has_copy());
  EXPECT_TRUE(make_batch(plain, {0, 1}).src_copy.empty());
  // Source-only corpora (translation input) carry the maps too.
  Corpus input = build_source_corpus({"is Zed"}, tok, src, options);
  ASSERT_TRUE(input.has_copy());
  EXPECT_EQ(input.copy[0].source, (Ids{7, 8, kEos}));
}

}  // namespace
}  // namespace heed
