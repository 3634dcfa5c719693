// heed::Translator (include/heed/translator.h) on a model trained through heed::Trainer: the
// same translations as `heed translate`, n-best lists with scores, attention, saliency and
// alignments of the documented shapes, concurrent calls on one Translator giving what serial
// calls give, and bad options and directories refused as heed::Error.
#include <heed/trainer.h>
#include <heed/translator.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "api/trained_model.h"

namespace heed {
namespace {

using testing::ScratchDir;

class TranslatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Trainer trainer = Trainer::from_yaml(testing::reversal_config(dir_));
    ASSERT_EQ(trainer.train().step, 40);
  }
  ScratchDir dir_{"heed_api"};
};

// Everything a result holds, as text, to compare whole results.
std::string dump(const std::vector<Translator::Result>& results) {
  std::ostringstream os;
  os.precision(9);
  for (const auto& r : results) {
    os << "source " << r.source.size() << " skipped " << r.skipped << "\n";
    for (const auto& h : r.nbest) {
      os << h.text << " | " << h.score << " | " << h.alignment << " |";
      for (float a : h.attention) os << " " << a;
      os << " |";
      for (float s : h.saliency) os << " " << s;
      os << "\n";
    }
  }
  return os.str();
}

TEST_F(TranslatorTest, TranslatesAsTheCommandDoes) {
  const Translator t = Translator::load(dir_.path("model"));
  EXPECT_TRUE(t.has_attention());
  const std::vector<std::string> lines = testing::reversal_sources();
  std::ofstream(dir_.path("in.txt")) << [&] {
    std::string s;
    for (const auto& l : lines) s += l + "\n";
    return s;
  }();
  // stdout alone: the progress line goes to stderr.
  const auto cli = testing::run_shell("(" + testing::heed_binary() + " translate -m " +
                                      dir_.path("model") + " -k 3 -i " + dir_.path("in.txt") +
                                      " 2>/dev/null)");
  ASSERT_EQ(cli.exit_code, 0) << cli.output;
  Translator::Options o;
  o.beam = 3;
  const std::vector<Translator::Result> results = t.translate(lines, o);
  ASSERT_EQ(results.size(), lines.size());
  std::string api;
  for (const auto& r : results) api += r.best() + "\n";
  EXPECT_EQ(api, cli.output);
  EXPECT_TRUE(results[2].nbest.empty());  // the empty line
  EXPECT_EQ(results[2].best(), "");
  EXPECT_EQ(t.translate(lines[0], o).best(), results[0].best());
}

TEST_F(TranslatorTest, NBestAttentionSaliencyAndAlignments) {
  const Translator t = Translator::load(dir_.path("model"), "last");
  Translator::Options o;
  o.beam = 4;
  o.n_best = 3;
  o.attention = true;
  o.saliency = true;
  o.alignment = "hard";
  const auto results = t.translate(testing::reversal_sources(), o);
  for (const auto& r : results) {
    if (r.source.empty()) continue;
    EXPECT_EQ(r.source.back(), "</s>");
    ASSERT_EQ(r.nbest.size(), 3u);
    for (std::size_t k = 0; k < r.nbest.size(); ++k) {
      const auto& h = r.nbest[k];
      if (k > 0) {
        EXPECT_GE(r.nbest[k - 1].score, h.score);
      }
      ASSERT_EQ(h.attention.size(), h.tokens.size() * r.source.size());
      for (std::size_t row = 0; row < h.tokens.size(); ++row) {
        double sum = 0;
        for (std::size_t j = 0; j < r.source.size(); ++j) sum += h.attention[row * r.source.size() + j];
        EXPECT_NEAR(sum, 1.0, 1e-4);
      }
      // Hard alignments: "i-j" pairs, one per output piece at most.
      std::istringstream links(h.alignment);
      std::string link;
      std::size_t n = 0;
      while (links >> link) {
        ++n;
        EXPECT_NE(link.find('-'), std::string::npos) << link;
      }
      EXPECT_LE(n, h.tokens.size());
      if (k == 0) {
        ASSERT_EQ(h.saliency.size(), h.tokens.size() * r.source.size()) << h.text;
        for (float s : h.saliency) EXPECT_TRUE(std::isfinite(s) && s >= 0);
      } else {
        EXPECT_TRUE(h.saliency.empty());
      }
    }
  }
  o.attention = o.saliency = false;
  o.alignment.clear();
  for (const auto& h : t.translate("abcd", o).nbest) {
    EXPECT_TRUE(h.attention.empty() && h.saliency.empty() && h.alignment.empty());
  }
}

// Threads with and without saliency at once: a saliency pass once computed with the packed
// weights another thread's decoding had attached (different sums, and a crash in oneDNN
// when that decoding ended and detached them); Var::packed() now ignores them while
// gradients are recorded.
TEST_F(TranslatorTest, ConcurrentCallsGiveWhatSerialCallsGive) {
  const Translator t = Translator::load(dir_.path("model"));
  std::vector<std::string> lines;
  for (int k = 0; k < 4; ++k)
    for (const auto& l : testing::reversal_sources()) lines.push_back(l + std::string(k, 'a'));
  Translator::Options o;
  o.beam = 3;
  o.n_best = 2;
  o.attention = true;
  o.alignment = "0.2";
  Translator::Options with_saliency = o;
  with_saliency.saliency = true;
  const std::string serial = dump(t.translate(lines, o));
  const std::string serial_saliency = dump(t.translate(lines, with_saliency));
  constexpr int kThreads = 4, kRounds = 3;
  std::vector<std::string> got(kThreads * kRounds);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] {
      for (int round = 0; round < kRounds; ++round)
        got[i * kRounds + round] = dump(t.translate(lines, i % 2 ? with_saliency : o));
    });
  for (auto& th : threads) th.join();
  for (int i = 0; i < kThreads; ++i)
    for (int round = 0; round < kRounds; ++round)
      EXPECT_EQ(got[i * kRounds + round], i % 2 ? serial_saliency : serial) << "thread " << i;
}

TEST_F(TranslatorTest, BadOptionsAndDirectoriesAreErrors) {
  const Translator t = Translator::load(dir_.path("model"));
  Translator::Options o;
  o.beam = 2;
  o.n_best = 3;
  EXPECT_THROW(t.translate("abc", o), Error);
  o.n_best = 1;
  o.alignment = "sideways";
  EXPECT_THROW(t.translate("abc", o), Error);
  o.alignment.clear();
  o.beam = 0;
  EXPECT_THROW(t.translate("abc", o), Error);
  try {
    Translator::load(dir_.path("no-such-model"));
    FAIL() << "a missing directory was loaded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no-such-model"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Translator::load_ensemble({}), Error);
  // Long sources are skipped, not translated.
  o.beam = 1;
  o.max_input_tokens = 3;
  const auto r = t.translate("abcdefgh", o);
  EXPECT_TRUE(r.skipped);
  EXPECT_TRUE(r.nbest.empty());
}

// Options::shortlist: a shortlist of every target piece translates as none; one of a single
// frequent piece emits only it; a bad file is an Error naming its line.
TEST_F(TranslatorTest, Shortlists) {
  const Translator t = Translator::load(dir_.path("model"));
  std::ifstream vocab(dir_.path("model") + "/tgt.vocab");
  std::string piece, all;
  for (int line = 0; std::getline(vocab, piece); ++line)
    if (line >= 4) all += (all.empty() ? "" : "\t") + piece;
  const std::string header = "heed-shortlist\t1\ttop-k=1\tfrequent=";
  std::ofstream(dir_.path("all.shortlist"))
      << header << std::count(all.begin(), all.end(), '\t') + 1 << "\tfrom=attention\n" << all << "\n";
  std::ofstream(dir_.path("a.shortlist")) << header << "1\tfrom=attention\na\n";
  std::ofstream(dir_.path("bad.shortlist")) << header << "1\tfrom=attention\na\nb\tc\td\n";
  Translator::Options o;
  o.beam = 3;
  o.n_best = 2;
  o.attention = true;
  const std::string full = dump(t.translate(testing::reversal_sources(), o));
  o.shortlist = dir_.path("all.shortlist");
  EXPECT_EQ(dump(t.translate(testing::reversal_sources(), o)), full);
  o.shortlist = dir_.path("a.shortlist");
  for (const auto& r : t.translate(testing::reversal_sources(), o))
    for (const auto& h : r.nbest)
      for (const std::string& p : h.tokens) EXPECT_TRUE(p == "a" || p == "</s>" || p == "<unk>") << p;
  o.shortlist = dir_.path("bad.shortlist");
  try {
    t.translate("abc", o);
    FAIL() << "a bad shortlist was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.shortlist line 3: 2 target pieces, more than top-k=1"),
              std::string::npos) << e.what();
  }
}

TEST_F(TranslatorTest, AnEnsembleOfOneModelTranslatesAsTheModel) {
  const Translator one = Translator::load(dir_.path("model"));
  const Translator ensemble = Translator::load_ensemble({dir_.path("model"), dir_.path("model")});
  Translator::Options o;
  o.beam = 2;
  const auto a = one.translate(testing::reversal_sources(), o);
  const auto b = ensemble.translate(testing::reversal_sources(), o);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].best(), b[i].best());
  o.saliency = true;
  EXPECT_THROW(ensemble.translate("abc", o), Error);
}

}  // namespace
}  // namespace heed
