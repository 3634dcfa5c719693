#include "heed/data/sentencepiece_tokenizer.h"

#include <gtest/gtest.h>

#include "data/temp_dir.h"
#include "heed/base/error.h"

namespace heed {
namespace {
using testing::TempDir;

std::vector<std::string> training_text() {
  std::vector<std::string> lines;
  const char* base[] = {
      "Ein Mann mit einem orangefarbenen Hut, der etwas anstarrt.",
      "Ein Boston Terrier läuft über saftig-grünes Gras vor einem weißen Zaun.",
      "Ein Mädchen in einem Karateanzug bricht ein Brett mit einem Tritt.",
      "Fünf Leute in Winterjacken und mit Helmen stehen im Schnee.",
      "Leute reparieren das Dach eines Hauses.",
      "Ein Mann in einer Weste sitzt auf einem Stuhl und hält Magazine.",
  };
  for (int r = 0; r < 20; ++r)
    for (const char* s : base) lines.push_back(std::string(s) + (r % 2 ? "" : " Ja."));
  return lines;
}

TEST(SentencePieceTokenizer, TrainsUnigramAndRoundTripsExactly) {
  TempDir dir;
  auto lines = training_text();
  SentencePieceOptions opts;
  opts.vocab_size = 120;
  auto tok = SentencePieceTokenizer::train(lines, dir.file("sp.model"), opts);
  EXPECT_EQ(tok.name(), "sentencepiece");
  EXPECT_LE(tok.piece_count(), 120);
  EXPECT_TRUE(std::filesystem::exists(dir.file("sp.model")));
  for (const auto& s : lines) {
    auto pieces = tok.encode(s);
    EXPECT_FALSE(pieces.empty());
    EXPECT_EQ(tok.decode(pieces), s);
  }
  // Spaces are kept as written, also runs of them.
  for (std::string s : {"Ein  Mann  ", "Hut,Zaun", " Leute"}) EXPECT_EQ(tok.decode(tok.encode(s)), s);
}

TEST(SentencePieceTokenizer, TrainsBpeAndReloads) {
  TempDir dir;
  auto lines = training_text();
  SentencePieceOptions opts;
  opts.vocab_size = 100;
  opts.model_type = SpmModelType::bpe;
  auto trained = SentencePieceTokenizer::train(lines, dir.file("bpe.model"), opts);
  auto loaded = SentencePieceTokenizer::load(dir.file("bpe.model"));
  auto via_factory = make_tokenizer("sentencepiece", false, dir.file("bpe.model"));
  for (const auto& s : lines) {
    EXPECT_EQ(loaded.encode(s), trained.encode(s));
    EXPECT_EQ(via_factory->encode(s), trained.encode(s));
    EXPECT_EQ(loaded.decode(loaded.encode(s)), s);
  }
}

TEST(SentencePieceTokenizer, Lowercases) {
  TempDir dir;
  SentencePieceOptions opts;
  opts.vocab_size = 80;
  opts.lowercase = true;
  auto tok = SentencePieceTokenizer::train(training_text(), dir.file("lc.model"), opts);
  EXPECT_TRUE(tok.lowercase());
  EXPECT_EQ(tok.decode(tok.encode("Ein MÄDCHEN")), "ein mädchen");
}

TEST(SentencePieceTokenizer, ReportsBadInputs) {
  TempDir dir;
  SentencePieceOptions opts;
  EXPECT_THROW(SentencePieceTokenizer::train({}, dir.file("x.model"), opts), Error);
  opts = {};
  opts.character_coverage = 1.5;
  EXPECT_THROW(SentencePieceTokenizer::train(training_text(), dir.file("x.model"), opts), Error);
  try {
    SentencePieceTokenizer::load(dir.file("missing.model"));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("missing.model"), std::string::npos);
  }
  std::string junk = dir.write("junk.model", "not a model");
  EXPECT_THROW(SentencePieceTokenizer::load(junk), Error);
}

}  // namespace
}  // namespace heed
