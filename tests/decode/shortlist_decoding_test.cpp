// Decoding with a vocabulary shortlist (models/output_shortlist.h,
// docs/DECODING.md#vocabulary-shortlists):
// a shortlist holding the whole vocabulary decodes exactly as no shortlist (greedy, beam with
// n-best, an ensemble, copy attention; every decoder kind), a small one only ever emits its
// tokens with finite scores (the -inf logits pass beam search's normalisation, the ensemble's
// mean of log-probabilities and copy attention's mixture), and bad shortlists are refused.
#include <algorithm>
#include <cmath>
#include <numeric>

#include <gtest/gtest.h>

#include "decode/fake_model.h"
#include "heed/autograd/tape.h"
#include "heed/base/error.h"
#include "heed/decode/beam_search.h"
#include "heed/decode/ensemble.h"
#include "heed/decode/greedy.h"
#include "heed/models/model_registry.h"
#include "support/tiny_models.h"

namespace heed::testing {
namespace {

const std::vector<std::vector<std::int32_t>> kSentences = {{4, 5, 6, 7, 8}, {9, 5}, {6, 8, 4, 7}};

std::unique_ptr<Seq2Seq> build(const ModelConfig& c, std::uint64_t seed = 7) {
  Rng rng(seed);
  auto m = make_model(c, rng, DType::f64);
  m->eval();
  return m;
}

std::vector<std::int32_t> all_ids(std::int64_t vocab) {
  std::vector<std::int32_t> ids(static_cast<std::size_t>(vocab));
  std::iota(ids.begin(), ids.end(), 0);
  return ids;
}

DecodeOptions beam_options() {
  DecodeOptions o;
  o.beam = 3;
  o.n_best = 3;
  o.max_len = 8;
  o.alpha = 1.0;
  return o;
}

DecodeResult decode(const Seq2Seq& m, const TokenBatch& src, bool beam) {
  NoGradGuard ng;
  DecodeOptions o = beam_options();
  if (!beam) {
    o.beam = 1;
    o.n_best = 1;
  }
  return beam ? beam_search(m, src, o) : greedy_decode(m, src, o);
}

void expect_same(const DecodeResult& a, const DecodeResult& b, const std::string& what) {
  ASSERT_EQ(a.nbest.size(), b.nbest.size()) << what;
  for (std::size_t s = 0; s < a.nbest.size(); ++s) {
    ASSERT_EQ(a.nbest[s].size(), b.nbest[s].size()) << what;
    for (std::size_t h = 0; h < a.nbest[s].size(); ++h) {
      EXPECT_EQ(a.nbest[s][h].tokens, b.nbest[s][h].tokens) << what << " sentence " << s;
      EXPECT_NEAR(a.nbest[s][h].score, b.nbest[s][h].score, 1e-12) << what;
    }
  }
}

// Every hypothesis uses only ids in `allowed` or, with copy attention, its sentence's source
// words (copied: their ids in copy_ids, in or outside the vocabulary), with a finite score.
void expect_within(const DecodeResult& r, const std::vector<std::int32_t>& allowed,
                   const std::string& what, const TokenBatch* copy_src = nullptr) {
  for (std::size_t s = 0; s < r.nbest.size(); ++s)
    for (const Hypothesis& h : r.nbest[s]) {
      EXPECT_TRUE(std::isfinite(h.score)) << what;
      for (std::int32_t t : h.tokens) {
        bool copied = false;
        if (copy_src)
          for (std::int64_t j = 0; j < copy_src->len; ++j)
            copied |= copy_src->copy_ids[static_cast<std::size_t>(
                          static_cast<std::int64_t>(s) * copy_src->len + j)] == t;
        EXPECT_TRUE(copied || std::binary_search(allowed.begin(), allowed.end(), t))
            << what << ": token " << t << " is outside the shortlist";
      }
    }
}

class ShortlistKinds : public ::testing::TestWithParam<const char*> {};

TEST_P(ShortlistKinds, WholeVocabularyDecodesAsWithout) {
  const auto model = build(tiny_config(GetParam()));
  TokenBatch src = make_batch(kSentences);
  const DecodeResult greedy = decode(*model, src, false), beam = decode(*model, src, true);
  src.shortlist = all_ids(model->tgt_vocab());
  expect_same(decode(*model, src, false), greedy, std::string(GetParam()) + " greedy");
  expect_same(decode(*model, src, true), beam, std::string(GetParam()) + " beam");
}

TEST_P(ShortlistKinds, StepLogitsAreTheFullRowsOrMinusInfinity) {
  const auto model = build(tiny_config(GetParam()));
  TokenBatch src = make_batch(kSentences);
  NoGradGuard ng;
  const std::vector<std::int32_t> y = {kBos, kBos, kBos};
  const Encoded full_enc = model->encode(src);
  DecoderState full_state = model->initial_state(full_enc);
  const Tensor full = model->step(y, full_state, full_enc).logits.value();
  src.shortlist = {0, 1, 2, 3, 5, 8};
  const Encoded enc = model->encode(src);
  ASSERT_NE(enc.shortlist, nullptr);
  EXPECT_EQ(enc.shortlist->weight.dim(0), 6);
  DecoderState state = model->initial_state(enc);
  const Tensor cut = model->step(y, state, enc).logits.value();
  ASSERT_EQ(cut.shape(), full.shape());
  for (std::int64_t b = 0; b < 3; ++b)
    for (std::int64_t v = 0; v < model->tgt_vocab(); ++v) {
      const bool in = std::binary_search(src.shortlist.begin(), src.shortlist.end(),
                                         static_cast<std::int32_t>(v));
      if (in)
        EXPECT_NEAR(cut.at({b, v}), full.at({b, v}), 1e-12) << b << "," << v;
      else
        EXPECT_EQ(cut.at({b, v}), -INFINITY) << b << "," << v;
    }
}

TEST_P(ShortlistKinds, SmallShortlistEmitsOnlyItsTokens) {
  const auto model = build(tiny_config(GetParam()));
  TokenBatch src = make_batch(kSentences);
  src.shortlist = {0, 1, 2, 3, 6};
  expect_within(decode(*model, src, false), src.shortlist, "greedy");
  expect_within(decode(*model, src, true), src.shortlist, "beam");
  // Only the specials: every hypothesis is UNK... or EOS, still with a finite score.
  src.shortlist = {0, 1, 2, 3};
  expect_within(decode(*model, src, true), src.shortlist, "specials only");
}

INSTANTIATE_TEST_SUITE_P(Decoders, ShortlistKinds,
                         ::testing::Values("bahdanau", "luong", "transformer", "noattn"));

TEST(ShortlistDecoding, EnsembleReadsTheShortlistOfEveryMember) {
  std::vector<std::shared_ptr<const Seq2Seq>> members;
  members.push_back(build(tiny_config("bahdanau"), 1));
  ModelConfig other = tiny_config("bahdanau");
  other.dec_hidden = 5;
  members.push_back(build(other, 2));
  const Ensemble ensemble(members);
  TokenBatch src = make_batch(kSentences);
  const DecodeResult greedy = decode(ensemble, src, false), beam = decode(ensemble, src, true);
  src.shortlist = all_ids(ensemble.tgt_vocab());
  expect_same(decode(ensemble, src, false), greedy, "ensemble greedy");
  expect_same(decode(ensemble, src, true), beam, "ensemble beam");
  src.shortlist = {0, 1, 2, 3, 4, 7};
  expect_within(decode(ensemble, src, true), src.shortlist, "ensemble");
}

TEST(ShortlistDecoding, CopyAttentionMixesTheShortlistWithCopying) {
  ModelConfig c = tiny_config("bahdanau");
  c.copy = true;
  const auto model = build(c);
  TokenBatch src = make_batch({{4, 5, 6}, {7, 4, 5, 8, 4}, {6, 7}});
  src.copy_ids = {4, 9, 5, 0,  0,  //
                  7, 4, 9, 10, 4,  //
                  6, 9, 0, 0,  0};
  src.extended = 2;
  const DecodeResult greedy = decode(*model, src, false), beam = decode(*model, src, true);
  src.shortlist = all_ids(model->tgt_vocab());
  expect_same(decode(*model, src, false), greedy, "copy greedy");
  expect_same(decode(*model, src, true), beam, "copy beam");
  src.shortlist = {0, 1, 2, 3, 5};
  expect_within(decode(*model, src, false), src.shortlist, "copy greedy", &src);
  expect_within(decode(*model, src, true), src.shortlist, "copy beam", &src);
}

TEST(ShortlistDecoding, BadShortlistsAreRefused) {
  const auto model = build(tiny_config("bahdanau"));
  TokenBatch src = make_batch(kSentences);
  auto refused = [&](std::vector<std::int32_t> ids, const std::string& expected) {
    src.shortlist = std::move(ids);
    try {
      (void)model->encode(src);
      ADD_FAILURE() << "accepted a shortlist, expected: " << expected;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  };
  refused({0, 1, 2, 3, 9}, "shortlist id 9 at position 4 is outside the target vocabulary [0, 9)");
  refused({0, 1, 2, 3, -1}, "shortlist id -1 at position 4 is outside");
  refused({0, 1, 2, 3, 6, 5}, "sorted and unique, got 6 before 5 at position 5");
  refused({0, 1, 2, 3, 5, 5}, "sorted and unique, got 5 before 5");
  refused({0, 1, 2, 5}, "must hold the special ids 0-3, 3 is missing");
}

}  // namespace
}  // namespace heed::testing
