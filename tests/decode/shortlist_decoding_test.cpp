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
#include "heed/decode/frozen_model.h"
#include "heed/decode/greedy.h"
#include "heed/kernels/gemm.h"
#include "heed/models/model_registry.h"
#include "heed/models/output_shortlist.h"
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

// A step over a shortlist returns its K columns (StepOutput::shortlist names their ids), each
// the full row's logit of that id; scattered back they are the full row with -inf elsewhere.
// In float64, and frozen for decoding in float32 at every precision (the K rows are packed as
// the whole weight is, so the columns are bit for bit the full row's).
void expect_shortlist_columns(const Seq2Seq& model, TokenBatch src, double tol, const std::string& what) {
  NoGradGuard ng;
  const std::vector<std::int32_t> y = {kBos, kBos, kBos};
  const Encoded full_enc = model.encode(src);
  DecoderState full_state = model.initial_state(full_enc);
  const StepOutput full_out = model.step(y, full_state, full_enc);
  EXPECT_EQ(full_out.shortlist, nullptr) << what;
  const Tensor full = full_out.logits.value().to(DType::f64);
  src.shortlist = {0, 1, 2, 3, 5, 8};
  const Encoded enc = model.encode(src);
  ASSERT_NE(enc.shortlist, nullptr) << what;
  EXPECT_EQ(enc.shortlist->weight.dim(0), 6) << what;
  DecoderState state = model.initial_state(enc);
  const StepOutput out = model.step(y, state, enc);
  ASSERT_EQ(out.shortlist, enc.shortlist) << what;
  const Tensor cut = out.logits.value().to(DType::f64);
  ASSERT_EQ(cut.shape(), Shape({3, 6})) << what;
  const Tensor scattered = scatter_shortlist(*out.shortlist, out.logits.value()).to(DType::f64);
  ASSERT_EQ(scattered.shape(), full.shape()) << what;
  for (std::int64_t b = 0; b < 3; ++b) {
    for (std::int64_t c = 0; c < 6; ++c)
      EXPECT_NEAR(cut.at({b, c}), full.at({b, src.shortlist[static_cast<std::size_t>(c)]}), tol)
          << what << " " << b << "," << c;
    for (std::int64_t v = 0; v < model.tgt_vocab(); ++v) {
      const bool in = std::binary_search(src.shortlist.begin(), src.shortlist.end(),
                                         static_cast<std::int32_t>(v));
      if (in)
        EXPECT_NEAR(scattered.at({b, v}), full.at({b, v}), tol) << what << " " << b << "," << v;
      else
        EXPECT_EQ(scattered.at({b, v}), -INFINITY) << what << " " << b << "," << v;
    }
  }
}

TEST_P(ShortlistKinds, StepLogitsAreTheShortlistsColumnsOfTheFullRows) {
  const auto model = build(tiny_config(GetParam()));
  expect_shortlist_columns(*model, make_batch(kSentences), 1e-12, "f64");
}

std::unique_ptr<Seq2Seq> build_f32(const ModelConfig& c, kernels::MatmulPrecision decoding) {
  Rng rng(7);
  auto m = make_model(c, rng, DType::f32);
  m->set_compute_type({kernels::MatmulPrecision::f32, decoding});
  m->eval();
  return m;
}

const kernels::MatmulPrecision kPrecisions[] = {
    kernels::MatmulPrecision::f32, kernels::MatmulPrecision::bf16, kernels::MatmulPrecision::int8};

TEST_P(ShortlistKinds, FrozenAtEveryPrecisionTheColumnsAreTheFullRowsOwn) {
  for (const auto p : kPrecisions) {
    const auto model = build_f32(tiny_config(GetParam()), p);
    const FrozenModel frozen(*model);
    expect_shortlist_columns(*model, make_batch(kSentences), 0.0,
                             std::string(kernels::matmul_precision_name(p)));
  }
}

TEST_P(ShortlistKinds, FrozenAtEveryPrecisionTheWholeVocabularyDecodesAsWithout) {
  for (const auto p : kPrecisions) {
    const auto model = build_f32(tiny_config(GetParam()), p);
    TokenBatch src = make_batch(kSentences);
    const DecodeResult greedy = decode(*model, src, false), beam = decode(*model, src, true);
    src.shortlist = all_ids(model->tgt_vocab());
    const std::string what =
        std::string(GetParam()) + " " + std::string(kernels::matmul_precision_name(p));
    expect_same(decode(*model, src, false), greedy, what + " greedy");
    expect_same(decode(*model, src, true), beam, what + " beam");
    src.shortlist = {0, 1, 2, 3, 6, 7};
    expect_within(decode(*model, src, true), src.shortlist, what + " small");
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

// On two threads a batch of 16 or more is decoded in row blocks (decode/sentence_blocks.h):
// each block keeps the batch's shortlist (the blocks once dropped it and decoded the whole
// vocabulary), and the result is the one-thread result.
TEST_P(ShortlistKinds, RowBlocksOnTwoThreadsKeepTheShortlist) {
  const auto model = build(tiny_config(GetParam()));
  std::vector<std::vector<std::int32_t>> many;
  for (int i = 0; i < 6; ++i) many.insert(many.end(), kSentences.begin(), kSentences.end());
  TokenBatch src = make_batch(many);  // 18 sentences
  src.shortlist = {0, 1, 2, 3, 6};
  const DecodeResult one = decode(*model, src, true);
  const kernels::ScopedNumThreads two(2);
  const DecodeResult blocks = decode(*model, src, true);
  expect_within(blocks, src.shortlist, "two threads");
  expect_same(blocks, one, "two threads against one");
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
