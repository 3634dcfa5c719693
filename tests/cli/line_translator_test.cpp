// LineTranslator (the library behind `heed translate`) over table-driven fake models: UNK
// replacement, empty lines, attention output, n-best, ensemble compatibility checks.
#include "heed/translate/line_translator.h"

#include <gtest/gtest.h>

#include "decode/fake_model.h"
#include "heed/base/error.h"

namespace heed {
namespace {

using testing::dist;
using testing::FakeModel;
using testing::Prefix;

constexpr std::int64_t kV = 6;  // 4 specials, "x" (4), "y" (5)

// Emits UNK, then x, then EOS (with a little mass elsewhere so beams have alternatives).
std::vector<double> unk_x_eos(std::int64_t, const Prefix& p) {
  if (p.empty()) return dist(kV, {{kUnk, 0.7}, {5, 0.3}});
  if (p.size() == 1) return dist(kV, {{4, 0.8}, {5, 0.2}});
  return dist(kV, {{kEos, 0.9}, {4, 0.1}});
}

LoadedModel fake(FakeModel::AlphaFn alpha = {}, const std::vector<std::string>& tgt = {"x", "y"},
                 const std::string& tokenizer = "whitespace") {
  LoadedModel m;
  m.model = std::make_unique<FakeModel>(kV, unk_x_eos, std::move(alpha));
  m.src_vocab = Vocabulary::from_tokens({"x", "y"});
  m.tgt_vocab = Vocabulary::from_tokens(tgt);
  m.src_tokenizer = make_tokenizer(tokenizer);
  m.tgt_tokenizer = make_tokenizer("whitespace");
  return m;
}

LineTranslator single(FakeModel::AlphaFn alpha = {}) {
  std::vector<LoadedModel> v;
  v.push_back(fake(std::move(alpha)));
  return LineTranslator(std::move(v), {"fake"});
}

// The precision given when the translator is made is told to every model once: their
// FrozenModels pack at it (fp32 when none is given).
TEST(LineTranslator, TellsEveryModelItsDecodingPrecisionOnce) {
  EXPECT_EQ(single().model(0).model->compute_type().decoding, kernels::MatmulPrecision::f32);
  std::vector<LoadedModel> v;
  v.push_back(fake());
  v.push_back(fake());
  const LineTranslator t(std::move(v), {"dirA", "dirB"}, kernels::MatmulPrecision::bf16);
  for (std::size_t i = 0; i < t.size(); ++i) {
    EXPECT_EQ(t.model(i).model->compute_type().decoding, kernels::MatmulPrecision::bf16);
    EXPECT_EQ(t.model(i).model->compute_type().training, kernels::MatmulPrecision::f32);
  }
}

TEST(LineTranslator, UnkBecomesTheMostAttendedSourcePiece) {
  const LineTranslator t = single();  // step t attends to source position t
  TranslateOptions o;
  o.decode.beam = 1;
  auto plain = t.translate({"hello world"}, o);
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_EQ(plain[0].nbest.at(0).text, "<unk> x");
  o.replace_unk = true;
  auto replaced = t.translate({"hello world", "a b c"}, o);
  EXPECT_EQ(replaced[0].nbest.at(0).text, "hello x");
  EXPECT_EQ(replaced[1].nbest.at(0).text, "a x");
  // The source pieces are the tokeniser's, with the EOS the encoder saw.
  EXPECT_EQ(replaced[0].source, (std::vector<std::string>{"hello", "world", "</s>"}));
  EXPECT_EQ(replaced[0].nbest[0].output, (std::vector<std::string>{"<unk>", "x", "</s>"}));
}

TEST(LineTranslator, UnkAttendingToTheSourceEosStays) {
  const LineTranslator t = single([](std::int64_t, const Prefix&, std::int64_t m) {
    std::vector<double> a(static_cast<std::size_t>(m), 0.0);
    a.back() = 1.0;  // one sentence per batch: the last position is its EOS
    return a;
  });
  TranslateOptions o;
  o.decode.beam = 1;
  o.batch_size = 1;
  o.replace_unk = true;
  EXPECT_EQ(t.translate({"hello world"}, o)[0].nbest.at(0).text, "<unk> x");
}

TEST(LineTranslator, EmptyLinesGiveEmptyResultsInPlace) {
  const LineTranslator t = single();
  TranslateOptions o;
  o.decode.beam = 3;
  o.decode.n_best = 2;
  o.replace_unk = true;
  std::size_t last_done = 0, calls = 0;
  auto r = t.translate({"", "p q", "   ", "r"}, o, [&](std::size_t done, std::size_t total) {
    EXPECT_EQ(total, 4u);
    EXPECT_GT(done, last_done);
    last_done = done;
    ++calls;
  });
  ASSERT_EQ(r.size(), 4u);
  EXPECT_TRUE(r[0].nbest.empty());
  EXPECT_TRUE(r[2].nbest.empty());  // whitespace only: no tokens
  ASSERT_EQ(r[1].nbest.size(), 2u);
  ASSERT_EQ(r[3].nbest.size(), 2u);
  EXPECT_EQ(r[1].nbest[0].text, "p x");
  EXPECT_EQ(r[3].nbest[0].text, "r x");
  EXPECT_GE(r[1].nbest[0].score, r[1].nbest[1].score);
  EXPECT_EQ(last_done, 4u);
  EXPECT_EQ(calls, 1u);  // both sentences fit one batch
  EXPECT_TRUE(t.translate({}, o).empty());
}

TEST(LineTranslator, AttentionMatrixMatchesTheTokens) {
  const LineTranslator t = single();
  TranslateOptions o;
  o.decode.beam = 2;
  o.keep_attention = true;
  auto r = t.translate({"a b c d", "e"}, o);
  for (const auto& tr : r) {
    const auto& h = tr.nbest.at(0);
    ASSERT_EQ(h.attention.size(), h.output.size() * tr.source.size());
    for (std::size_t row = 0; row < h.output.size(); ++row) {
      double sum = 0;
      for (std::size_t j = 0; j < tr.source.size(); ++j) sum += h.attention[row * tr.source.size() + j];
      EXPECT_NEAR(sum, 1.0, 1e-6);
      // The fake attends to position (step mod source length).
      EXPECT_EQ(h.attention[row * tr.source.size() + row % tr.source.size()], 1.0f);
    }
  }
  o.keep_attention = false;
  EXPECT_TRUE(t.translate({"a"}, o)[0].nbest[0].attention.empty());
}

TEST(LineTranslator, OptionErrors) {
  const LineTranslator t = single();
  TranslateOptions o;
  o.decode.beam = 2;
  o.decode.n_best = 3;
  EXPECT_THROW(t.translate({"a"}, o), Error);
  o.decode.n_best = 1;
  o.batch_size = 0;
  EXPECT_THROW(t.translate({"a"}, o), Error);
}

TEST(LineTranslator, EnsembleOfTheSameModelTwiceAgrees) {
  std::vector<LoadedModel> v;
  v.push_back(fake());
  v.push_back(fake());
  const LineTranslator two(std::move(v), {"a", "b"});
  const LineTranslator one = single();
  TranslateOptions o;
  o.decode.beam = 3;
  o.decode.n_best = 3;
  const auto r1 = one.translate({"p q", "r"}, o), r2 = two.translate({"p q", "r"}, o);
  for (std::size_t i = 0; i < r1.size(); ++i)
    for (std::size_t h = 0; h < 3; ++h) {
      EXPECT_EQ(r1[i].nbest[h].text, r2[i].nbest[h].text);
      EXPECT_NEAR(r1[i].nbest[h].score, r2[i].nbest[h].score, 1e-9);
    }
}

TEST(LineTranslator, ParallelBatchesGiveTheSameResults) {
  std::vector<LoadedModel> v;
  v.push_back(fake());
  v.push_back(fake());
  const LineTranslator two(std::move(v), {"a", "b"});
  std::vector<std::string> lines;
  for (int i = 0; i < 40; ++i) lines.push_back(i % 7 == 0 ? "" : std::string(1 + i % 5, 'q'));
  TranslateOptions o;
  o.decode.beam = 2;
  o.decode.n_best = 2;
  o.batch_size = 3;
  o.replace_unk = true;
  o.keep_attention = true;
  const auto serial = two.translate(lines, o);
  o.threads = 4;
  std::size_t last = 0;
  const auto parallel = two.translate(lines, o, [&](std::size_t done, std::size_t total) {
    EXPECT_GT(done, last);  // reported in order, under a lock
    EXPECT_EQ(total, lines.size());
    last = done;
  });
  EXPECT_EQ(last, lines.size());
  ASSERT_EQ(parallel.size(), serial.size());
  for (std::size_t i = 0; i < serial.size(); ++i) {
    EXPECT_EQ(parallel[i].source, serial[i].source);
    ASSERT_EQ(parallel[i].nbest.size(), serial[i].nbest.size());
    for (std::size_t h = 0; h < serial[i].nbest.size(); ++h) {
      EXPECT_EQ(parallel[i].nbest[h].text, serial[i].nbest[h].text);
      EXPECT_EQ(parallel[i].nbest[h].score, serial[i].nbest[h].score);
      EXPECT_EQ(parallel[i].nbest[h].attention, serial[i].nbest[h].attention);
    }
  }
}

TEST(LineTranslator, EnsembleMembersMustShareVocabulariesAndTokenisers) {
  auto expect_error = [](LoadedModel b, const std::string& what) {
    std::vector<LoadedModel> v;
    v.push_back(fake());
    v.push_back(std::move(b));
    try {
      LineTranslator(std::move(v), {"dirA", "dirB"});
      FAIL() << "no error for " << what;
    } catch (const Error& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("cannot ensemble dirA and dirB"), std::string::npos) << msg;
      EXPECT_NE(msg.find(what), std::string::npos) << msg;
    }
  };
  expect_error(fake({}, {"x", "z"}), "target vocabularies differ");
  expect_error(fake({}, {"x", "y", "z"}), "target vocabularies differ");
  expect_error(fake({}, {"x", "y"}, "char"), "source tokenisers differ (whitespace vs char)");
}

// A member whose target vocabulary lists x and y the other way round (each run builds its own
// from its data) is the same model under another numbering: mapped by token, the ensemble of
// the two translates exactly as the first alone.
TEST(LineTranslator, EnsembleMembersWithTheTargetTokensInAnotherOrder) {
  TranslateOptions o;
  o.decode.beam = 2;
  o.decode.n_best = 2;
  const auto one = single().translate({"a b"}, o);
  std::vector<LoadedModel> v;
  v.push_back(fake());
  LoadedModel swapped = fake({}, {"y", "x"});
  swapped.model = std::make_unique<FakeModel>(kV, [](std::int64_t s, const Prefix& own) {
    const auto swap = [](std::int32_t id) { return id == 4 ? 5 : id == 5 ? 4 : id; };
    Prefix p;
    for (std::int32_t id : own) p.push_back(swap(id));
    std::vector<double> d = unk_x_eos(s, p), out(d.size());
    for (std::size_t i = 0; i < d.size(); ++i) out[static_cast<std::size_t>(swap(static_cast<std::int32_t>(i)))] = d[i];
    return out;
  });
  v.push_back(std::move(swapped));
  const LineTranslator both(std::move(v), {"dirA", "dirB"});
  const auto two = both.translate({"a b"}, o);
  ASSERT_EQ(two[0].nbest.size(), one[0].nbest.size());
  for (std::size_t i = 0; i < one[0].nbest.size(); ++i) {
    EXPECT_EQ(two[0].nbest[i].text, one[0].nbest[i].text);
    EXPECT_NEAR(two[0].nbest[i].score, one[0].nbest[i].score, 1e-9);
  }
}

}  // namespace
}  // namespace heed
