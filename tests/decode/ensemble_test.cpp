// Ensemble: log of the mean of the members' probabilities, mean attention, and decoding
// through it (the packed encoding survives reorder_rows).
#include "heed/decode/ensemble.h"

#include <cmath>

#include <gtest/gtest.h>

#include "decode/fake_model.h"
#include "heed/autograd/softmax_op.h"
#include "heed/autograd/tape.h"
#include "heed/decode/beam_search.h"
#include "heed/decode/greedy.h"
#include "heed/decode/sentence_blocks.h"
#include "heed/kernels/gemm.h"

namespace heed::testing {
namespace {

constexpr std::int64_t V = 6;
constexpr std::int32_t A = 4, Bt = 5, E = kEos;

std::vector<double> probs_one(std::int64_t, const Prefix& p) {
  if (p.empty()) return {0.05, 0.05, 0.1, 0.1, 0.6, 0.1};
  if (p.size() == 1) return {0.05, 0.05, 0.3, 0.1, 0.2, 0.3};
  return {0.0, 0.0, 1.0, 0.0, 0.0, 0.0};
}
std::vector<double> probs_two(std::int64_t, const Prefix& p) {
  if (p.empty()) return {0.05, 0.05, 0.1, 0.1, 0.1, 0.6};
  if (p.size() == 1) return {0.1, 0.1, 0.5, 0.1, 0.1, 0.1};
  return {0.0, 0.0, 1.0, 0.0, 0.0, 0.0};
}
std::vector<double> as_logits(std::vector<double> p, double scale) {
  // Any logits with the same softmax: log p * 1 + a row constant.
  for (double& x : p) x = (x > 0 ? std::log(x) : -40.0) + scale;
  return p;
}

std::shared_ptr<FakeModel> member(int which, FakeModel::AlphaFn alpha = {}, DType dt = DType::f64) {
  return std::make_shared<FakeModel>(
      V,
      [which](std::int64_t s, const Prefix& p) {
        return as_logits(which == 1 ? probs_one(s, p) : probs_two(s, p), which == 1 ? 3.0 : -2.0);
      },
      std::move(alpha), dt);
}

// The mixture as one model: what the ensemble must behave like.
std::shared_ptr<FakeModel> mixture() {
  return std::make_shared<FakeModel>(V, [](std::int64_t s, const Prefix& p) {
    std::vector<double> a = probs_one(s, p), b = probs_two(s, p), m(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) m[i] = 0.5 * (a[i] + b[i]);
    return as_logits(m, 0.0);
  });
}

TEST(Ensemble, LogMeanSoftmax) {
  Tensor x = Tensor::from({2, 3}, {1, 2, 3, 0, 0, -INFINITY}, DType::f64);
  Tensor y = Tensor::from({2, 3}, {3, 2, 1, 5, -INFINITY, -INFINITY}, DType::f64);
  Tensor out = log_mean_softmax({x, y});
  auto sm = [](std::vector<double> v) {
    double s = 0;
    for (double& e : v) s += (e = std::exp(e));
    for (double& e : v) e /= s;
    return v;
  };
  std::vector<double> p0 = sm({1, 2, 3}), q0 = sm({3, 2, 1});
  for (int j = 0; j < 3; ++j) EXPECT_NEAR(out.at({0, j}), std::log(0.5 * (p0[j] + q0[j])), 1e-12);
  EXPECT_NEAR(out.at({1, 0}), std::log(0.5 * (0.5 + 1.0)), 1e-12);
  EXPECT_NEAR(out.at({1, 1}), std::log(0.25), 1e-12);
  EXPECT_EQ(out.at({1, 2}), -INFINITY);  // zero probability in both members
  // One member: plain log_softmax.
  Tensor one = log_mean_softmax({x});
  EXPECT_NEAR(one.at({0, 2}), std::log(p0[2]), 1e-12);
}

TEST(Ensemble, StepAveragesProbabilitiesAndAttention) {
  auto a1 = [](std::int64_t, const Prefix&, std::int64_t m) { return std::vector<double>(m, 0.2); };
  auto a2 = [](std::int64_t, const Prefix&, std::int64_t m) {
    std::vector<double> a(m, 0.0);
    a[1] = 1.0;
    return a;
  };
  Ensemble ens({member(1, a1), member(2, a2)});
  TokenBatch src = make_batch({{4, 4}, {5, 5, 5}});
  NoGradGuard ng;
  Encoded enc = ens.encode(src);
  DecoderState st = ens.initial_state(enc);
  EXPECT_EQ(st.parts.size(), 6u);
  std::vector<std::int32_t> y{kBos, kBos};
  StepOutput out = ens.step(y, st, enc);
  Tensor lp = log_softmax(out.logits).value();
  std::vector<double> p = probs_one(0, {}), q = probs_two(0, {});
  for (std::int64_t v = 0; v < V; ++v) {
    EXPECT_NEAR(out.logits.value().at({0, v}), std::log(0.5 * (p[v] + q[v])), 1e-9);
    EXPECT_NEAR(lp.at({1, v}), std::log(0.5 * (p[v] + q[v])), 1e-9);  // log_softmax gives it back
  }
  // Sentence 0 has 2 real positions: FakeModel writes zeros past them.
  EXPECT_NEAR(out.alpha.value().at({0, 0}), 0.1, 1e-12);
  EXPECT_NEAR(out.alpha.value().at({0, 1}), 0.6, 1e-12);
  EXPECT_NEAR(out.alpha.value().at({0, 2}), 0.0, 1e-12);
  EXPECT_NEAR(out.alpha.value().at({1, 2}), 0.1, 1e-12);
  // The members saw their own state: the second step follows the prefix.
  y = {A, A};
  out = ens.step(y, st, enc);
  p = probs_one(0, {A});
  q = probs_two(0, {A});
  EXPECT_NEAR(out.logits.value().at({0, E}), std::log(0.5 * (p[E] + q[E])), 1e-9);
}

const TokenBatch kMixSource = make_batch({{4, 4}, {5, 5, 5}});

DecodeOptions mix_options() {
  DecodeOptions o;
  o.beam = 3;
  o.n_best = 3;
  o.max_len = 5;
  return o;
}

// The ensemble's 3-best of kMixSource are the mixture's: tokens, scores and attention.
void expect_beams_like_the_mixture(const Seq2Seq& ens) {
  DecodeResult a = beam_search(ens, kMixSource, mix_options()),
               b = beam_search(*mixture(), kMixSource, mix_options());
  for (std::size_t s = 0; s < 2; ++s)
    for (std::size_t i = 0; i < 3; ++i) {
      EXPECT_EQ(a.nbest[s][i].tokens, b.nbest[s][i].tokens);
      EXPECT_NEAR(a.nbest[s][i].raw_score, b.nbest[s][i].raw_score, 1e-9);
      EXPECT_EQ(a.nbest[s][i].attention.to_vector(), b.nbest[s][i].attention.to_vector());
    }
}

TEST(Ensemble, DecodesLikeTheMixture) {
  Ensemble ens({member(1), member(2)});
  auto mix = mixture();
  const TokenBatch& src = kMixSource;
  const DecodeOptions o = mix_options();
  expect_beams_like_the_mixture(ens);
  DecodeResult ga = greedy_decode(ens, src, o), gb = greedy_decode(*mix, src, o);
  for (std::size_t s = 0; s < 2; ++s) EXPECT_EQ(ga.best(s).tokens, gb.best(s).tokens);
  // Each member alone decodes differently: A first vs B first.
  EXPECT_EQ(greedy_decode(*member(1), src, o).best(0).tokens.front(), A);
  EXPECT_EQ(greedy_decode(*member(2), src, o).best(0).tokens.front(), Bt);
}

// A member whose vocabulary lists the tokens in another order (member 2 with A and B
// swapped, and EOS moved) joins through a map by token: the Ensemble reads and writes the
// first member's ids, and decodes like the mixture of the two in one order.
TEST(Ensemble, MembersWithTheTokensInAnotherOrderAreMappedByToken) {
  const std::vector<std::int32_t> to_member = {0, 1, 3, 2, 5, 4};  // first's id -> member's
  std::vector<std::int32_t> to_first(to_member.size());
  for (std::size_t v = 0; v < to_member.size(); ++v)
    to_first[static_cast<std::size_t>(to_member[v])] = static_cast<std::int32_t>(v);
  auto relabelled = std::make_shared<FakeModel>(V, [to_member, to_first](std::int64_t s,
                                                                          const Prefix& own) {
    Prefix p;
    for (std::int32_t id : own) p.push_back(to_first[static_cast<std::size_t>(id)]);
    const std::vector<double> l = as_logits(probs_two(s, p), -2.0);
    std::vector<double> out(l.size());
    for (std::size_t v = 0; v < l.size(); ++v) out[static_cast<std::size_t>(to_member[v])] = l[v];
    return out;
  });
  expect_beams_like_the_mixture(Ensemble({member(1), relabelled}, {{}, to_member}));
  // Without the map the same members make another, wrong, mixture.
  Ensemble unmapped({member(1), relabelled});
  DecodeResult b = beam_search(*mixture(), kMixSource, mix_options());
  DecodeResult c = beam_search(unmapped, kMixSource, mix_options());
  bool differs = false;
  for (std::size_t s = 0; s < 2; ++s)
    differs = differs || c.nbest[s][0].tokens != b.nbest[s][0].tokens ||
              std::abs(c.nbest[s][0].raw_score - b.nbest[s][0].raw_score) > 1e-6;
  EXPECT_TRUE(differs);
  // A map must be a permutation of the vocabulary, one a member.
  EXPECT_THROW(Ensemble({member(1), member(2)}, {{}, {0, 1, 2, 3, 4}}), Error);
  EXPECT_THROW(Ensemble({member(1), member(2)}, {{}, {0, 1, 2, 3, 4, 4}}), Error);
  EXPECT_THROW(Ensemble({member(1), member(2)}, {{}, {0, 1, 2, 3, 4, 6}}), Error);
  EXPECT_THROW(Ensemble({member(1), member(2)}, {{}}), Error);
}

// Two threads decode the batch in two row blocks at once (decode/sentence_blocks.h), each
// padded to its own longest sentence, so the two blocks' packed encodings differ in width:
// each thread keeps its own cache, and the result is the mixture's.
TEST(Ensemble, ConcurrentRowBlocksOfDifferentLengths) {
  const kernels::ScopedNumThreads two(2);
  Ensemble ens({member(1), member(2)});
  auto mix = mixture();
  std::vector<std::vector<std::int32_t>> rows;
  for (int i = 0; i < 2 * static_cast<int>(detail::kMinSentencesPerBlock); ++i)
    rows.push_back(std::vector<std::int32_t>(i < 8 ? 2 : 6, 4));
  const TokenBatch src = make_batch(rows);
  DecodeOptions o;
  o.beam = 2;
  o.n_best = 2;
  o.max_len = 5;
  for (int round = 0; round < 3; ++round) {  // the threads meet in a different order each time
    const DecodeResult a = beam_search(ens, src, o), b = beam_search(*mix, src, o);
    const DecodeResult ga = greedy_decode(ens, src, o), gb = greedy_decode(*mix, src, o);
    ASSERT_EQ(a.nbest.size(), rows.size());
    for (std::size_t r = 0; r < rows.size(); ++r) {
      EXPECT_EQ(a.best(r).tokens, b.best(r).tokens) << r;
      EXPECT_NEAR(a.best(r).raw_score, b.best(r).raw_score, 1e-9) << r;
      EXPECT_EQ(ga.best(r).tokens, gb.best(r).tokens) << r;
    }
  }
}

TEST(Ensemble, OfOneIsTheModel) {
  auto m = member(1, {}, DType::f32);
  Ensemble ens({m});
  TokenBatch src = make_batch({{4, 4}, {5}});
  DecodeOptions o;
  o.beam = 2;
  o.n_best = 2;
  DecodeResult a = beam_search(ens, src, o), b = beam_search(*m, src, o);
  for (std::size_t s = 0; s < 2; ++s)
    for (std::size_t i = 0; i < 2; ++i) {
      EXPECT_EQ(a.nbest[s][i].tokens, b.nbest[s][i].tokens);
      EXPECT_NEAR(a.nbest[s][i].raw_score, b.nbest[s][i].raw_score, 1e-5);
    }
}

// CTC rescoring reads the ensemble's CTC head: each frame the log of the mean of the members'
// softmaxes, as its output; a member without a head is named.
TEST(Ensemble, CtcLogitsAverageTheMembersHeads) {
  auto a = member(1), b = member(2);
  a->ctc = Tensor::from({1, 2, 3}, {1, 2, 3, 0, 0, -INFINITY}, DType::f64);
  b->ctc = Tensor::from({1, 2, 3}, {3, 2, 1, 5, -INFINITY, -INFINITY}, DType::f64);
  const TokenBatch src = make_batch({{4, 5}});
  const Tensor z = Ensemble({a, b}).ctc_logits(src);
  ASSERT_EQ(z.shape(), (Shape{1, 2, 3}));
  const Tensor expected = log_mean_softmax({a->ctc.reshape({2, 3}), b->ctc.reshape({2, 3})});
  for (int f = 0; f < 2; ++f)
    for (int v = 0; v < 3; ++v) EXPECT_EQ(z.at({0, f, v}), expected.at({f, v})) << f << " " << v;
  b->ctc = Tensor();
  try {
    Ensemble({a, b}).ctc_logits(src);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("member 2 of 2 has none"), std::string::npos) << e.what();
  }
}

TEST(Ensemble, Errors) {
  EXPECT_THROW(Ensemble({}), Error);
  auto small = std::make_shared<FakeModel>(4, [](std::int64_t, const Prefix&) {
    return std::vector<double>(4, 0.0);
  });
  EXPECT_THROW(Ensemble({member(1), small}), Error);
  Ensemble ens({member(1), member(2)});
  NoGradGuard ng;
  Encoded foreign = member(1)->encode(make_batch({{4}}));  // not packed by the ensemble
  ens.encode(make_batch({{4, 4}}));
  EXPECT_THROW(ens.initial_state(foreign), Error);
}

}  // namespace
}  // namespace heed::testing
