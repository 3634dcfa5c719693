#include "heed/metrics/chrf.h"

#include <gtest/gtest.h>

#include "heed/base/error.h"
#include "heed/metrics/bleu.h"

namespace heed::metrics {
namespace {

using Refs = std::vector<std::vector<std::string>>;

ChrfOptions beta3(bool eps_smoothing, bool whitespace = false) {
  ChrfOptions o;
  o.beta = 3;
  o.eps_smoothing = eps_smoothing;
  o.whitespace = whitespace;
  return o;
}

double corpus(const std::vector<std::string>& hyps, const std::vector<std::string>& refs,
              const ChrfOptions& o) {
  Refs per_segment;
  for (const auto& r : refs) per_segment.push_back({r});
  return corpus_chrf(hyps, per_segment, o);
}

TEST(Chrf, SacreBleuReadmeExample) {
  const std::vector<std::string> hyps = {"The dog bit the man.", "It wasn't surprising.",
                                         "The man had just bitten him."};
  const Refs streams = {
      {"The dog bit the man.", "It was not unexpected.", "The man bit him first."},
      {"The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."}};
  double s = corpus_chrf(hyps, references_per_segment(streams));
  EXPECT_EQ(format_chrf(s), "chrF2 = 59.73");
}

TEST(Chrf, EpsSmoothingCases) {  // test_chrf.py: test_chrf (beta 3, eps smoothing)
  const ChrfOptions o = beta3(true);
  EXPECT_NEAR(corpus({"abcdefg"}, {"hijklmnop"}, o), 0.0, 1e-4);
  EXPECT_NEAR(corpus({"a"}, {"b"}, o), 0.0, 1e-4);
  EXPECT_NEAR(corpus({""}, {"b"}, o), 0.0, 1e-4);
  EXPECT_NEAR(corpus({""}, {"ref"}, o), 0.0, 1e-4);
  EXPECT_NEAR(corpus({""}, {"reference"}, o), 0.0, 1e-4);
  EXPECT_NEAR(corpus({"aa"}, {"ab"}, o), 8.3333, 1e-4);
  EXPECT_NEAR(corpus({"a", "b"}, {"a", "c"}, o), 8.3333, 1e-4);
  EXPECT_NEAR(corpus({"a"}, {"a"}, o), 16.6667, 1e-4);
  EXPECT_NEAR(corpus({"a b c"}, {"a b c"}, o), 50.0, 1e-4);
  EXPECT_NEAR(corpus({"a b c"}, {"abc"}, o), 50.0, 1e-4);
  EXPECT_NEAR(corpus({" risk assessment must be made of those who are qualified and expertise in the sector - these are the scientists ."},
                     {"risk assessment has to be undertaken by those who are qualified and expert in that area - that is the scientists ."}, o),
              63.361730, 1e-4);
  EXPECT_NEAR(corpus({" Die    Beziehung zwischen  Obama und Netanjahu ist nicht gerade  freundlich. "},
                     {"Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich."}, o),
              64.1302698, 1e-4);
  EXPECT_NEAR(corpus({"Niemand hat die Absicht, eine Mauer zu errichten"},
                     {"Niemand hat die Absicht, eine Mauer zu errichten"}, o),
              100.0, 1e-4);
}

TEST(Chrf, EffectiveOrderCases) {  // test_chrf.py: test_chrf_eff_order (sacreBLEU's default)
  const ChrfOptions o = beta3(false);
  EXPECT_NEAR(corpus({"a"}, {"a"}, o), 100.0, 1e-4);
  EXPECT_NEAR(corpus({""}, {"reference"}, o), 0.0, 1e-4);
  EXPECT_NEAR(corpus({"a b c"}, {"a b c"}, o), 100.0, 1e-4);
  EXPECT_NEAR(corpus({"a b c"}, {"abc"}, o), 100.0, 1e-4);
  EXPECT_NEAR(corpus({""}, {"c"}, o), 0.0, 1e-4);
  EXPECT_NEAR(corpus({"a", "b"}, {"a", "c"}, o), 50.0, 1e-4);
  EXPECT_NEAR(corpus({"aa"}, {"ab"}, o), 25.0, 1e-4);
}

TEST(Chrf, KeepWhitespaceCases) {  // test_chrf.py: test_chrf_keep_whitespace
  const ChrfOptions o = beta3(false, true);
  EXPECT_NEAR(corpus({"Die Beziehung zwischen Obama und Netanjahu ist nicht gerade freundlich."},
                     {"Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich."}, o),
              67.3481606, 1e-4);
  EXPECT_NEAR(corpus({"risk assessment must be made of those who are qualified and expertise in the sector - these are the scientists ."},
                     {"risk assessment has to be undertaken by those who are qualified and expert in that area - that is the scientists ."}, o),
              65.2414427, 1e-4);
}

TEST(Chrf, SentenceLevelCzech) {  // test_chrf.py: test_chrf_sentence_level (chrF2, eps smoothing)
  ChrfOptions o;
  o.eps_smoothing = true;
  EXPECT_NEAR(sentence_chrf("Co nás nejvíc trápí, protože lékaři si vybírají, kdo bude žít a kdo zemře.",
                            {"Nejvíce smutní jsme z toho, že musíme rozhodovat o tom, kdo bude žít a kdo zemře."}, o),
              39.14078509, 1e-4);
  EXPECT_NEAR(sentence_chrf("Nebo prostě nemají vybavení, které by jim pomohlo, uvedli lékaři.",
                            {"A někdy nemáme ani potřebný materiál, abychom jim pomohli, popsali lékaři."}, o),
              31.22557079, 1e-4);
  EXPECT_NEAR(sentence_chrf("Lapali po dechu, jejich životy skončily dřív, než skutečně začaly.",
                            {"Lapali po dechu a pak jejich život skončil - dřív, než skutečně mohl začít, připomněli."}, o),
              57.15704367, 1e-4);
}

// Expected values from a line-by-line Python transcription of sacreBLEU 2.x's CHRF (see
// bleu_test.cpp, same corpus).
TEST(Chrf, GermanCorpusAgreesWithReference) {
  const std::vector<std::string> hyps = {
      "Ein Mann fährt Fahrrad.", "Zwei Hunde spielen im Schnee, 3.5 Stunden lang!",
      "Eine Frau (mit Hut) liest ein Buch.", "Die Kinder laufen am Strand entlang...",
      "ÜBER DEN WOLKEN: 1990-2000", "\"Hallo\", sagte er.", "", "Ein älterer Mann sitzt auf einer Bank"};
  const Refs refs = {{"Ein Mann fährt ein Fahrrad."},
                     {"Zwei Hunde spielen im Schnee."},
                     {"Eine Frau mit einem Hut liest ein Buch.", "Eine Frau liest ein Buch."},
                     {"Kinder rennen am Strand entlang."},
                     {"Über den Wolken: 1990-2000."},
                     {"„Hallo“, sagte er."},
                     {"Ein leerer Satz."},
                     {"Ein alter Mann sitzt auf einer Parkbank."}};
  ChrfOptions o;
  EXPECT_NEAR(corpus_chrf(hyps, refs, o), 64.3242633928, 1e-8);
  o.word_order = 2;
  EXPECT_NEAR(corpus_chrf(hyps, refs, o), 62.4163795910, 1e-8);
  EXPECT_EQ(format_chrf(62.4163795910, o), "chrF2++ = 62.42");
  o.lowercase = true;
  EXPECT_NEAR(corpus_chrf(hyps, refs, o), 70.1870319857, 1e-8);
  o.word_order = 0;
  EXPECT_NEAR(corpus_chrf(hyps, refs, o), 72.3675490222, 1e-8);
}

TEST(Chrf, HandWorkedCases) {
  EXPECT_NEAR(sentence_chrf("the cat sat", {"the cat sat"}), 100.0, 1e-9);
  EXPECT_EQ(sentence_chrf("xyz", {"abc"}), 0.0);
  // Whitespace is removed: spacing does not matter.
  EXPECT_NEAR(sentence_chrf("thecat sat", {"the cat sat"}), 100.0, 1e-9);
  // Case matters unless lowercased.
  EXPECT_LT(sentence_chrf("THE CAT", {"the cat"}), 1.0);
  ChrfOptions lc;
  lc.lowercase = true;
  EXPECT_NEAR(sentence_chrf("THE CÄT", {"the cät"}, lc), 100.0, 1e-9);
  // Characters are code points: "ä" is one unigram, so "äb" vs "ab": 1 of 2 unigrams match
  // on each side, no bigram: P = R = 1/2 over effective order 1... 2 (bigrams exist on both
  // sides, none match): avg P = avg R = 1/4, F = 1/4.
  EXPECT_NEAR(sentence_chrf("äb", {"ab"}), 25.0, 1e-9);
}

TEST(Chrf, RejectsBadInput) {
  EXPECT_THROW(corpus_chrf({"a"}, {}), Error);
  EXPECT_THROW(corpus_chrf({"a"}, {{""}}), Error);
}

}  // namespace
}  // namespace heed::metrics
