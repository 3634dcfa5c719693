#include "heed/translate/alignment.h"

#include <gtest/gtest.h>

#include "heed/base/error.h"

namespace heed {
namespace {

using Links = std::vector<metrics::AlignmentLink>;
using Pieces = std::vector<std::string>;

TEST(AlignmentMode, Parses) {
  EXPECT_EQ(parse_alignment_mode("hard").mode, AlignmentMode::hard);
  EXPECT_EQ(parse_alignment_mode("soft").mode, AlignmentMode::soft);
  const auto t = parse_alignment_mode("0.25");
  EXPECT_EQ(t.mode, AlignmentMode::threshold);
  EXPECT_FLOAT_EQ(t.threshold, 0.25f);
  EXPECT_EQ(parse_alignment_mode("1").mode, AlignmentMode::threshold);
  for (const char* bad : {"", "0", "-0.5", "1.5", "Hard", "0.5x", "nan", "inf"}) {
    try {
      parse_alignment_mode(bad);
      FAIL() << bad;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("expected hard, soft or a threshold in (0, 1]"),
                std::string::npos)
          << e.what();
    }
  }
}

// Three source pieces + EOS, three output pieces + EOS.
//            a     b     c     </s>
const std::vector<float> kWeights = {0.7f, 0.2f, 0.1f, 0.0f,    // x
                                     0.1f, 0.3f, 0.4f, 0.2f,    // y
                                     0.0f, 0.1f, 0.1f, 0.8f,    // z: most to the EOS
                                     0.0f, 0.0f, 0.1f, 0.9f};   // </s>
const Pieces kSource = {"a", "b", "c", "</s>"};
const Pieces kOutput = {"x", "y", "z", "</s>"};

TEST(Alignment, HardLinksEachOutputPieceToItsMostAttendedSourcePieceButNotEos) {
  const auto tok = make_tokenizer(TokenizerKind::whitespace);
  const auto m = make_attention_matrix(kSource, kOutput, kWeights);
  EXPECT_EQ(m.source, (Pieces{"a", "b", "c"}));
  EXPECT_EQ(m.output, (Pieces{"x", "y", "z"}));
  EXPECT_EQ(alignment_links(m, {}, *tok, *tok), (Links{{0, 0}, {2, 1}}));
  EXPECT_EQ(alignment_text(m, {}, *tok, *tok), "0-0 2-1");
}

TEST(Alignment, ThresholdKeepsEveryLinkAtOrAboveIt) {
  const auto tok = make_tokenizer(TokenizerKind::whitespace);
  const auto m = make_attention_matrix(kSource, kOutput, kWeights);
  EXPECT_EQ(alignment_text(m, parse_alignment_mode("0.3"), *tok, *tok), "0-0 1-1 2-1");
  EXPECT_EQ(alignment_text(m, parse_alignment_mode("0.1"), *tok, *tok),
            "0-0 1-0 2-0 0-1 1-1 2-1 1-2 2-2");
  EXPECT_EQ(alignment_text(m, parse_alignment_mode("1"), *tok, *tok), "");
}

TEST(Alignment, SoftWritesTheRowsWithoutEos) {
  const auto tok = make_tokenizer(TokenizerKind::whitespace);
  // An output without a final EOS (a hypothesis cut at the length limit) keeps every row.
  const auto m = make_attention_matrix(kSource, {"x", "y"},
                                       std::span<const float>(kWeights).first(8));
  EXPECT_EQ(alignment_text(m, parse_alignment_mode("soft"), *tok, *tok),
            "0.7000,0.2000,0.1000 0.1000,0.3000,0.4000");
}

TEST(Alignment, ShapeMismatchIsAnError) {
  const auto tok = make_tokenizer(TokenizerKind::whitespace);
  const auto m = make_attention_matrix(kSource, kOutput, std::span<const float>(kWeights).first(12));
  EXPECT_THROW(alignment_text(m, {}, *tok, *tok), Error);
}

TEST(WordPositions, MarksOfCharsAndSentencePieceAndWhitespaceWords) {
  const auto chars = make_tokenizer(TokenizerKind::chars);
  EXPECT_EQ(chars->word_positions(chars->encode("ab cd e")),
            (std::vector<std::int32_t>{0, 0, -1, 1, 1, -1, 2}));
  // SentencePiece's pieces: a mark starts a word; a lone mark belongs to none.
  const std::string M = "\xE2\x96\x81";  // U+2581
  EXPECT_EQ(chars->word_positions({M + "the", M + "ca", "t", "s", M, "!", M + "x"}),
            (std::vector<std::int32_t>{0, 1, 1, 1, -1, 2, 3}));
  const auto words = make_tokenizer(TokenizerKind::whitespace);
  EXPECT_EQ(words->word_positions({M + "a", "b", "c"}),
            (std::vector<std::int32_t>{0, 1, 2}));
}

TEST(Alignment, WordsMergeTheLinksOfTheirPieces) {
  // Source "ab c" in characters: a b ▁ c </s>; output "x yz": x ▁ y z </s>.
  const auto chars = make_tokenizer(TokenizerKind::chars);
  const Pieces source = {"a", "b", "\xE2\x96\x81", "c", "</s>"};
  const Pieces output = {"x", "\xE2\x96\x81", "y", "z", "</s>"};
  const std::vector<float> w = {0.6f, 0.4f, 0.0f, 0.0f, 0.0f,   // x -> a
                                0.0f, 0.0f, 0.9f, 0.1f, 0.0f,   // ▁ -> the space
                                0.1f, 0.0f, 0.0f, 0.9f, 0.0f,   // y -> c
                                0.0f, 0.7f, 0.0f, 0.3f, 0.0f,   // z -> b
                                0.0f, 0.0f, 0.0f, 0.0f, 1.0f};
  const auto m = make_attention_matrix(source, output, w);
  // In pieces the output space links the source space.
  EXPECT_EQ(alignment_text(m, {}, *chars, *chars), "0-0 2-1 3-2 1-3");
  AlignmentOptions words;
  words.words = true;
  // Pieces: x(0)->a(0), y(1)->c(1), z(1)->b(0); the spaces link no word.
  EXPECT_EQ(alignment_text(m, words, *chars, *chars), "0-0 0-1 1-1");
  words.mode = AlignmentMode::soft;
  // Word rows: x's row; the mean of y's and z's rows. Word columns: a + b, c.
  EXPECT_EQ(alignment_text(m, words, *chars, *chars), "1.0000,0.0000 0.4000,0.6000");
}

}  // namespace
}  // namespace heed
