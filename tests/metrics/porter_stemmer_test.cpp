#include "heed/metrics/porter_stemmer.h"

#include <gtest/gtest.h>

namespace heed::metrics {
namespace {

TEST(PorterStemmer, OriginalAlgorithm) {
  PorterStemmer s;
  // Examples of Porter (1980), steps 1a to 5.
  EXPECT_EQ(s.stem("caresses"), "caress");
  EXPECT_EQ(s.stem("ponies"), "poni");
  EXPECT_EQ(s.stem("cats"), "cat");
  EXPECT_EQ(s.stem("agreed"), "agre");
  EXPECT_EQ(s.stem("plastered"), "plaster");
  EXPECT_EQ(s.stem("motoring"), "motor");
  EXPECT_EQ(s.stem("running"), "run");
  EXPECT_EQ(s.stem("happy"), "happi");
  EXPECT_EQ(s.stem("relational"), "relat");
  EXPECT_EQ(s.stem("generalization"), "gener");
  EXPECT_EQ(s.stem("1990s"), "1990");
  EXPECT_EQ(s.stem(""), "");
  // Where NLTK's default mode (rouge-score's stemmer) differs (docs/METRICS.md, "ROUGE"): it
  // keeps a y after a vowel (day, dai here), lists "news" as irregular and stems "used" to use.
  EXPECT_EQ(s.stem("days"), "dai");
  EXPECT_EQ(s.stem("news"), "new");
  EXPECT_EQ(s.stem("used"), "us");
}

TEST(PorterStemmer, ReusedForManyWords) {
  PorterStemmer s;  // libstemmer's buffer is reused; earlier results must not leak
  EXPECT_EQ(s.stem("generalizations"), "gener");
  EXPECT_EQ(s.stem("it"), "it");
  EXPECT_EQ(s.stem("hopping"), "hop");
}

}  // namespace
}  // namespace heed::metrics
