// Beam search and greedy decoding against hand-checked searches over FakeModel's token tree.
#include "heed/decode/beam_search.h"

#include <cmath>
#include <functional>

#include <gtest/gtest.h>

#include "decode/fake_model.h"
#include "heed/decode/greedy.h"

namespace heed::testing {
namespace {

constexpr std::int64_t V = 6;
constexpr std::int32_t A = 4, Bt = 5, E = kEos;
using Toks = std::vector<std::int32_t>;

// Greedy takes A then A (0.5 * 0.36 = 0.18); beam 2 finds B EOS (0.4 * 0.9 = 0.36).
std::vector<double> greedy_trap(std::int64_t, const Prefix& p) {
  if (p.empty()) return dist(V, {{A, 0.5}, {Bt, 0.4}, {E, 0.1}});
  if (p == Prefix{A}) return dist(V, {{A, 0.36}, {Bt, 0.34}, {E, 0.3}});
  if (p == Prefix{Bt}) return dist(V, {{E, 0.9}, {A, 0.1}});
  return dist(V, {{E, 1.0}});
}

// EOS first (0.6) against A A A EOS (0.4 * 0.9 * 0.9 = 0.324): the short one wins on raw
// score, the long one under length normalisation.
std::vector<double> short_vs_long(std::int64_t, const Prefix& p) {
  if (p.empty()) return dist(V, {{E, 0.6}, {A, 0.4}});
  if (p.size() < 3 && p.back() == A) return dist(V, {{A, 0.9}, {E, 0.1}});
  return dist(V, {{E, 1.0}});
}

DecodeOptions opts(std::int64_t beam, std::int64_t n_best = 1) {
  DecodeOptions o;
  o.beam = beam;
  o.n_best = n_best;
  return o;
}

TEST(Greedy, TakesTheArgmaxAndStopsAtEos) {
  FakeModel model(V, greedy_trap);
  DecodeResult r = greedy_decode(model, make_batch({{7 % V, 4, 5}}));
  ASSERT_EQ(r.nbest.size(), 1u);
  const Hypothesis& h = r.best(0);
  EXPECT_EQ(h.tokens, (Toks{A, A, E}));
  EXPECT_EQ(h.length, 3);
  EXPECT_NEAR(h.raw_score, std::log(0.5 * 0.36), 1e-9);
  EXPECT_NEAR(h.score, h.raw_score, 1e-12);  // alpha = 0
  EXPECT_EQ(r.steps, 3);
  EXPECT_EQ(model.steps_run, 3);
  // Default attention of FakeModel: one-hot at |prefix| mod source length, real columns only.
  ASSERT_TRUE(h.attention.defined());
  EXPECT_EQ(h.attention.shape(), Shape({3, 3}));
  for (std::int64_t t = 0; t < 3; ++t)
    for (std::int64_t j = 0; j < 3; ++j) EXPECT_EQ(h.attention.at({t, j}), t == j ? 1.0 : 0.0);
}

TEST(BeamSearch, FindsWhatGreedyMisses) {
  FakeModel model(V, greedy_trap);
  DecodeResult r = beam_search(model, make_batch({{4, 4}}), opts(2, 2));
  ASSERT_EQ(r.nbest[0].size(), 2u);
  EXPECT_EQ(r.nbest[0][0].tokens, (Toks{Bt, E}));
  EXPECT_NEAR(r.nbest[0][0].raw_score, std::log(0.36), 1e-9);
  EXPECT_EQ(r.nbest[0][0].length, 2);
  EXPECT_EQ(r.nbest[0][1].tokens, (Toks{A, A, E}));
  EXPECT_NEAR(r.nbest[0][1].raw_score, std::log(0.18), 1e-9);
  EXPECT_EQ(r.steps, 3);
  // Beam 1 is greedy.
  DecodeResult g = beam_search(model, make_batch({{4, 4}}), opts(1));
  EXPECT_EQ(g.best(0).tokens, (Toks{A, A, E}));
}

TEST(BeamSearch, FinishedHypothesesAreFrozen) {
  FakeModel model(V, short_vs_long);
  DecodeResult r = beam_search(model, make_batch({{4}}), opts(2, 2));
  // [EOS] ended at step 1 and stayed in the beam, score and length unchanged, while A A A EOS
  // took three more steps.
  EXPECT_EQ(r.steps, 4);
  EXPECT_EQ(r.nbest[0][0].tokens, (Toks{E}));
  EXPECT_EQ(r.nbest[0][0].length, 1);
  EXPECT_NEAR(r.nbest[0][0].raw_score, std::log(0.6), 1e-9);
  EXPECT_EQ(r.nbest[0][1].tokens, (Toks{A, A, A, E}));
  EXPECT_EQ(r.nbest[0][1].length, 4);
  EXPECT_NEAR(r.nbest[0][1].raw_score, std::log(0.324), 1e-9);
}

TEST(BeamSearch, LengthNormalisationChangesTheRanking) {
  FakeModel model(V, short_vs_long);
  const double s_short = std::log(0.6), s_long = std::log(0.324);
  struct Case {
    LengthNorm norm;
    double alpha;
    bool long_wins;
  };
  for (Case c : {Case{LengthNorm::length, 0.0, false}, Case{LengthNorm::length, 1.0, true},
                 Case{LengthNorm::gnmt, 1.0, false}, Case{LengthNorm::gnmt, 3.0, true}}) {
    DecodeOptions o = opts(2, 2);
    o.norm = c.norm;
    o.alpha = c.alpha;
    DecodeResult r = beam_search(model, make_batch({{4}}), o);
    const double lp_long = c.norm == LengthNorm::length ? std::pow(4.0, c.alpha)
                                                        : std::pow(9.0 / 6.0, c.alpha);
    const Hypothesis& first = r.nbest[0][0];
    const Hypothesis& second = r.nbest[0][1];
    const Hypothesis& lng = c.long_wins ? first : second;
    const Hypothesis& shrt = c.long_wins ? second : first;
    EXPECT_EQ(lng.tokens, (Toks{A, A, A, E})) << c.alpha;
    EXPECT_EQ(shrt.tokens, (Toks{E})) << c.alpha;
    EXPECT_NEAR(lng.score, s_long / lp_long, 1e-9);
    EXPECT_NEAR(shrt.score, s_short, 1e-9);  // lp(1) = 1 for both norms
    EXPECT_NEAR(lng.raw_score, s_long, 1e-9);
    EXPECT_GE(first.score, second.score);
  }
}

TEST(BeamSearch, NBestIsSortedAndComplete) {
  FakeModel model(V, greedy_trap);
  DecodeResult r = beam_search(model, make_batch({{4, 4}}), opts(3, 3));
  ASSERT_EQ(r.nbest[0].size(), 3u);
  // Step 2 keeps B EOS (0.36), A A (0.18), A B (0.17); then A A EOS and A B EOS.
  EXPECT_EQ(r.nbest[0][0].tokens, (Toks{Bt, E}));
  EXPECT_EQ(r.nbest[0][1].tokens, (Toks{A, A, E}));
  EXPECT_EQ(r.nbest[0][2].tokens, (Toks{A, Bt, E}));
  EXPECT_NEAR(r.nbest[0][2].raw_score, std::log(0.17), 1e-9);
  for (int i = 0; i + 1 < 3; ++i) EXPECT_GE(r.nbest[0][i].score, r.nbest[0][i + 1].score);
}

TEST(BeamSearch, TiesGoToTheLowerTokenId) {
  FakeModel model(V, [](std::int64_t, const Prefix& p) {
    return p.empty() ? dist(V, {{A, 0.5}, {Bt, 0.5}}) : dist(V, {{E, 1.0}});
  });
  DecodeResult r = beam_search(model, make_batch({{4}}), opts(2, 2));
  EXPECT_EQ(r.nbest[0][0].tokens, (Toks{A, E}));
  EXPECT_EQ(r.nbest[0][1].tokens, (Toks{Bt, E}));
  EXPECT_EQ(greedy_decode(model, make_batch({{4}})).best(0).tokens, (Toks{A, E}));
}

std::vector<double> never_ends(std::int64_t, const Prefix&) {
  return dist(V, {{A, 0.6}, {Bt, 0.4}});
}

TEST(BeamSearch, MaxLength) {
  FakeModel model(V, never_ends);
  DecodeOptions o = opts(2);
  o.max_len = 3;
  DecodeResult r = beam_search(model, make_batch({{4, 4, 4, 4, 4, 4}}), o);
  EXPECT_EQ(r.steps, 3);
  EXPECT_EQ(r.best(0).tokens, (Toks{A, A, A}));  // no EOS: cut at the limit
  EXPECT_EQ(r.best(0).length, 3);
  EXPECT_NEAR(r.best(0).raw_score, 3 * std::log(0.6), 1e-9);

  // Default: int(len_a * |x| + len_b) with each sentence's own source length, so a
  // sentence's output does not depend on its batch mates.
  DecodeOptions d = opts(2, 2);
  d.len_a = 1.5;
  d.len_b = 2;
  DecodeResult rb = beam_search(model, make_batch({{4, 4, 4}, {4}}), d);  // int(6.5), int(3.5)
  EXPECT_EQ(rb.steps, 6);
  EXPECT_EQ(rb.best(0).length, 6);
  EXPECT_EQ(rb.best(1).length, 3);
  const DecodeResult alone = beam_search(model, make_batch({{4}}), d);
  EXPECT_EQ(rb.best(1).tokens, alone.best(0).tokens);
  EXPECT_EQ(rb.best(1).score, alone.best(0).score);
  EXPECT_EQ(rb.nbest[1][1].tokens, alone.nbest[0][1].tokens);
  const DecodeResult g = greedy_decode(model, make_batch({{4, 4, 4}, {4}}), d);
  EXPECT_EQ(g.best(0).length, 6);
  EXPECT_EQ(g.best(1).length, 3);
  EXPECT_EQ(g.best(1).tokens, greedy_decode(model, make_batch({{4}}), d).best(0).tokens);
  EXPECT_EQ(decode_max_steps(model, make_batch({{4, 4, 4}}), DecodeOptions{}), 16);
}

TEST(BeamSearch, ForcedLengthRunsEveryStepWithTheSameOutput) {
  FakeModel model(V, greedy_trap);
  DecodeOptions o = opts(2, 2);
  o.max_len = 7;
  DecodeResult stop = beam_search(model, make_batch({{4}}), o);
  o.stop_at_eos = false;
  model.steps_run = 0;
  DecodeResult forced = beam_search(model, make_batch({{4}}), o);
  EXPECT_EQ(stop.steps, 3);
  EXPECT_EQ(forced.steps, 7);
  EXPECT_EQ(model.steps_run, 7);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(forced.nbest[0][i].tokens, stop.nbest[0][i].tokens);
    EXPECT_DOUBLE_EQ(forced.nbest[0][i].raw_score, stop.nbest[0][i].raw_score);
  }
  DecodeOptions g;
  g.max_len = 7;
  g.stop_at_eos = false;
  DecodeResult gr = greedy_decode(model, make_batch({{4}}), g);
  EXPECT_EQ(gr.steps, 7);
  EXPECT_EQ(gr.best(0).tokens, (Toks{A, A, E}));
}

TEST(BeamSearch, AttentionRowsComeFromTheRightParents) {
  // Each row's attention names the prefix that produced it: [code(prefix), |prefix|, 0.5].
  FakeModel* self = nullptr;
  FakeModel model(V, greedy_trap, [&](std::int64_t, const Prefix& p, std::int64_t m) {
    std::vector<double> a(static_cast<std::size_t>(m), 0.5);
    a[0] = self->code_of(p);
    a[1] = static_cast<double>(p.size());
    return a;
  });
  self = &model;
  // Sentence 0 has 3 real positions of the batch's 4.
  DecodeResult r = beam_search(model, make_batch({{4, 4, 4}, {5, 5, 5, 5}}), opts(3, 3));
  for (std::size_t b = 0; b < 2; ++b) {
    const std::int64_t cols = b == 0 ? 3 : 4;
    for (const Hypothesis& h : r.nbest[b]) {
      ASSERT_EQ(h.attention.shape(), Shape({h.length, cols}));
      for (std::int64_t t = 0; t < h.length; ++t) {
        const Prefix prefix(h.tokens.begin(), h.tokens.begin() + t);
        EXPECT_EQ(h.attention.at({t, 0}), model.code_of(prefix)) << "row " << t;
        EXPECT_EQ(h.attention.at({t, 1}), static_cast<double>(t));
        EXPECT_EQ(h.attention.at({t, cols - 1}), 0.5);
      }
    }
  }
}

// Per-sentence pseudo-random distributions over the whole vocabulary.
std::vector<double> random_tree(std::int64_t sentence, const Prefix& p) {
  std::uint64_t h = 1469598103934665603ull + static_cast<std::uint64_t>(sentence) * 7919;
  for (auto t : p) h = (h ^ static_cast<std::uint64_t>(t + 1)) * 1099511628211ull;
  std::vector<double> l(static_cast<std::size_t>(V));
  for (std::int64_t v = 0; v < V; ++v) {
    h = (h ^ static_cast<std::uint64_t>(v + 17)) * 1099511628211ull;
    l[static_cast<std::size_t>(v)] = static_cast<double>(h >> 11) / 9007199254740992.0 * 4.0;
  }
  return l;
}

// Every hypothesis of at most max_len tokens (ending at EOS or the limit), by brute force.
void enumerate(const FakeModel& model, std::int64_t sentence, Prefix& p, double score,
               std::int64_t max_len, std::vector<std::pair<Prefix, double>>& out) {
  if (!p.empty() && (p.back() == kEos || static_cast<std::int64_t>(p.size()) == max_len)) {
    out.emplace_back(p, score);
    return;
  }
  std::vector<double> l = random_tree(sentence, p);
  double mx = l[0], s = 0;
  for (double x : l) mx = std::max(mx, x);
  for (double x : l) s += std::exp(x - mx);
  for (std::int32_t v = 0; v < V; ++v) {
    p.push_back(v);
    enumerate(model, sentence, p, score + l[static_cast<std::size_t>(v)] - mx - std::log(s), max_len, out);
    p.pop_back();
  }
}

TEST(BeamSearch, ExhaustiveBeamFindsTheBestSequence) {
  FakeModel model(V, random_tree);
  const std::int64_t max_len = 3;
  for (double alpha : {0.0, 1.0}) {
    DecodeOptions o = opts(V * V * V, 5);
    o.max_len = max_len;
    o.alpha = alpha;
    DecodeResult r = beam_search(model, make_batch({{4}, {5, 5}}), o);
    for (std::int64_t b = 0; b < 2; ++b) {
      std::vector<std::pair<Prefix, double>> all;
      Prefix p;
      enumerate(model, b, p, 0.0, max_len, all);
      auto normed = [&](const std::pair<Prefix, double>& h) {
        return h.second / std::pow(static_cast<double>(h.first.size()), alpha);
      };
      std::stable_sort(all.begin(), all.end(),
                       [&](const auto& x, const auto& y) { return normed(x) > normed(y); });
      for (std::size_t i = 0; i < 5; ++i) {
        const Hypothesis& h = r.nbest[static_cast<std::size_t>(b)][i];
        EXPECT_EQ(h.tokens, all[i].first) << "sentence " << b << " rank " << i;
        EXPECT_NEAR(h.raw_score, all[i].second, 1e-9);
        EXPECT_NEAR(h.score, normed(all[i]), 1e-9);
      }
    }
  }
}

TEST(BeamSearch, BatchedEqualsOneSentenceAtATime) {
  FakeModel model(V, random_tree);
  DecodeOptions o = opts(3, 3);
  o.max_len = 6;
  DecodeResult both = beam_search(model, make_batch({{4, 5}, {5, 4, 4}}), o);
  // FakeModel's sentence index is the batch row, so sentence 0 can be decoded alone.
  DecodeResult single = beam_search(model, make_batch({{4, 5}}), o);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(single.nbest[0][i].tokens, both.nbest[0][i].tokens);
    EXPECT_DOUBLE_EQ(single.nbest[0][i].raw_score, both.nbest[0][i].raw_score);
  }
}

// A sentence's k hypotheses begin alike, so the first step runs once a sentence and every
// later step once a hypothesis; the search is the one of k rows from the start (above).
TEST(BeamSearch, TheFirstStepRunsOnceASentence) {
  FakeModel model(V, random_tree);
  DecodeOptions o = opts(3, 3);
  o.max_len = 4;
  o.stop_at_eos = false;
  beam_search(model, make_batch({{4, 5}, {5, 4, 4}}), o);
  EXPECT_EQ(model.step_rows, (std::vector<std::int64_t>{2, 6, 6, 6}));
}

TEST(BeamSearch, BeamOneEqualsGreedy) {
  for (DType dtype : {DType::f64, DType::f32}) {
    FakeModel model(V, random_tree, {}, dtype);
    DecodeOptions o = opts(1);
    o.max_len = 8;
    TokenBatch src = make_batch({{4, 5}, {5, 4, 4}, {4}});
    DecodeResult g = greedy_decode(model, src, o), b = beam_search(model, src, o);
    for (std::size_t s = 0; s < 3; ++s) {
      EXPECT_EQ(g.best(s).tokens, b.best(s).tokens);
      EXPECT_NEAR(g.best(s).raw_score, b.best(s).raw_score, 1e-5);
      EXPECT_EQ(g.best(s).attention.dtype(), dtype);
    }
  }
}

TEST(BeamSearch, FloatModelsGiveTheSameSearch) {
  FakeModel m64(V, greedy_trap), m32(V, greedy_trap, {}, DType::f32);
  DecodeResult a = beam_search(m64, make_batch({{4}}), opts(2, 2));
  DecodeResult b = beam_search(m32, make_batch({{4}}), opts(2, 2));
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(a.nbest[0][i].tokens, b.nbest[0][i].tokens);
    EXPECT_NEAR(a.nbest[0][i].raw_score, b.nbest[0][i].raw_score, 1e-5);
  }
}

TEST(BeamSearch, BeamWiderThanTheVocabulary) {
  FakeModel model(V, greedy_trap);
  DecodeResult r = beam_search(model, make_batch({{4}}), opts(10, 2));
  EXPECT_EQ(r.nbest[0][0].tokens, (Toks{Bt, E}));
  EXPECT_EQ(r.nbest[0][1].tokens, (Toks{A, A, E}));
}

TEST(BeamSearch, RejectsBadOptions) {
  FakeModel model(V, greedy_trap);
  TokenBatch src = make_batch({{4}});
  EXPECT_THROW(beam_search(model, src, opts(0)), Error);
  EXPECT_THROW(beam_search(model, src, opts(2, 3)), Error);
  DecodeOptions o;
  o.len_a = 0;
  o.len_b = 0.5;
  EXPECT_THROW(beam_search(model, src, o), Error);
  EXPECT_THROW(parse_enum<LengthNorm>("avg", "--norm"), Error);
  EXPECT_EQ(parse_enum<LengthNorm>("gnmt", "--norm"), LengthNorm::gnmt);
  TokenBatch bad = src;
  bad.lengths = {2};
  EXPECT_THROW(greedy_decode(model, bad), Error);
}

}  // namespace
}  // namespace heed::testing
