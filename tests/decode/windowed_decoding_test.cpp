// Windowed decoding (docs/MODELS.md#windowed-decoding, DecodeOptions::window): every step after
// the first attends only around the median of the previous step's weights, exactly 0 elsewhere;
// a window wider than the source changes nothing; the median rule itself.
#include <gtest/gtest.h>

#include "decode/fake_model.h"
#include "heed/decode/beam_search.h"
#include "heed/decode/ensemble.h"
#include "heed/decode/greedy.h"
#include "heed/models/decoder_attention.h"
#include "heed/models/model_registry.h"
#include "support/gradcheck.h"

namespace heed::testing {
namespace {

ModelConfig small(const std::string& kind, const std::string& score) {
  ModelConfig c;
  c.kind = parse_enum<ModelKind>(kind, "model.kind");
  c.src_vocab = 13;
  c.tgt_vocab = 11;
  c.emb_dim = 8;
  c.enc_hidden = 6;
  c.dec_hidden = 12;
  c.score = parse_enum<AttentionScore>(score, "model.score");
  if (kind == "luong") {
    c.encoder_cell = RnnCell::lstm;
    c.bidirectional = false;
    c.enc_hidden = 12;
  }
  return c;
}

std::vector<ModelConfig> configs() {
  ModelConfig location = small("bahdanau", "mlp");
  location.location_filters = 3;
  location.location_width = 3;
  return {small("bahdanau", "mlp"), location, small("luong", "general")};
}

const std::vector<std::vector<std::int32_t>> kSentences = {
    {4, 5, 6, 7, 8, 9, 10, 11, 12}, {9, 10, 4, 5}, {11, 12, 4, 6, 7, 8, 5}};

// The median of a row: the first position where the cumulative weight reaches half the total.
std::int64_t median(const Tensor& a, std::int64_t t) {
  double total = 0, cum = 0;
  for (std::int64_t j = 0; j < a.dim(1); ++j) total += a.at({t, j});
  for (std::int64_t j = 0; j < a.dim(1); ++j)
    if ((cum += a.at({t, j})) >= total / 2) return j;
  return a.dim(1) - 1;
}

void expect_windowed(const Hypothesis& h, const AttentionWindow& w, const std::string& what) {
  ASSERT_TRUE(h.attention.defined()) << what;
  for (std::int64_t t = 1; t < h.length; ++t) {
    const std::int64_t p = median(h.attention, t - 1);
    double inside = 0;
    for (std::int64_t j = 0; j < h.attention.dim(1); ++j) {
      if (j < p - w.before || j > p + w.after)
        EXPECT_EQ(h.attention.at({t, j}), 0.0) << what << " step " << t << " position " << j;
      else
        inside += h.attention.at({t, j});
    }
    EXPECT_NEAR(inside, 1.0, 1e-12) << what << " step " << t;
  }
}

TEST(WindowedDecoding, WeightsOutsideTheWindowAreExactlyZero) {
  for (const ModelConfig& c : configs()) {
    Rng rng(5);
    auto model = make_model(c, rng, DType::f64);
    TokenBatch src = make_batch(kSentences);
    DecodeOptions o;
    o.max_len = 8;
    o.stop_at_eos = false;
    o.beam = 3;
    o.n_best = 3;
    o.window = {1, 2};
    const std::string kind(enum_name(c.kind));
    DecodeResult g = greedy_decode(*model, src, o);
    DecodeResult b = beam_search(*model, src, o);
    DecodeOptions unwindowed = o;
    unwindowed.window = {};
    DecodeResult free = greedy_decode(*model, src, unwindowed);
    bool changed = false;
    for (std::size_t s = 0; s < kSentences.size(); ++s) {
      expect_windowed(g.best(s), o.window, kind + " greedy " + std::to_string(s));
      for (std::size_t i = 0; i < 3; ++i)
        expect_windowed(b.nbest[s][i], o.window, kind + " beam " + std::to_string(s));
      // The first step is not windowed.
      EXPECT_TRUE(all_close(g.best(s).attention.select(0, 0), free.best(s).attention.select(0, 0),
                            0, 0));
      changed = changed || !all_close(g.best(s).attention, free.best(s).attention, 1e-9, 0);
    }
    EXPECT_TRUE(changed) << kind << ": a window of 4 positions changed no weight";
  }
}

TEST(WindowedDecoding, AWindowWiderThanTheSourceChangesNothing) {
  for (const ModelConfig& c : configs()) {
    Rng rng(6);
    auto model = make_model(c, rng, DType::f64);
    TokenBatch src = make_batch(kSentences);
    DecodeOptions o;
    o.max_len = 8;
    o.beam = 3;
    o.n_best = 3;
    DecodeOptions wide = o;
    wide.window = {src.len, src.len};  // [p - m, p + m] covers every position
    for (bool beam : {false, true}) {
      DecodeResult a = beam ? beam_search(*model, src, o) : greedy_decode(*model, src, o);
      DecodeResult w = beam ? beam_search(*model, src, wide) : greedy_decode(*model, src, wide);
      for (std::size_t s = 0; s < kSentences.size(); ++s)
        for (std::size_t i = 0; i < a.nbest[s].size(); ++i) {
          EXPECT_EQ(a.nbest[s][i].tokens, w.nbest[s][i].tokens);
          EXPECT_EQ(a.nbest[s][i].raw_score, w.nbest[s][i].raw_score);
          EXPECT_TRUE(all_close(a.nbest[s][i].attention, w.nbest[s][i].attention, 0, 0));
        }
    }
  }
}

TEST(WindowedDecoding, ReachesTheMembersOfAnEnsemble) {
  // An ensemble of one model twice decodes as the model: the window reached both members.
  Rng rng(8);
  std::shared_ptr<const Seq2Seq> model = make_model(configs()[1], rng, DType::f64);
  Ensemble twice({model, model});
  TokenBatch src = make_batch(kSentences);
  DecodeOptions o;
  o.max_len = 8;
  o.beam = 2;
  o.n_best = 2;
  o.window = {0, 1};
  const DecodeResult one = beam_search(*model, src, o), two = beam_search(twice, src, o);
  for (std::size_t s = 0; s < kSentences.size(); ++s) {
    EXPECT_EQ(one.best(s).tokens, two.best(s).tokens);
    EXPECT_TRUE(all_close(one.best(s).attention, two.best(s).attention, 1e-12, 0));
    expect_windowed(two.best(s), o.window, "ensemble " + std::to_string(s));
  }
}

TEST(WindowedDecoding, TheWindowIsAroundTheMedianOfThePreviousWeights) {
  // Row 0: median at 2 (0.1 + 0.2 + 0.3 >= 0.5); row 1: all weight at 0; row 2: the first
  // step (no previous weights): every position.
  Tensor a = Tensor::from({3, 5}, {0.1, 0.2, 0.3, 0.2, 0.2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0},
                          DType::f64);
  std::vector<std::int64_t> from, to;
  attention_window(a, AttentionWindow{1, 1}, from, to);
  EXPECT_EQ(from, (std::vector<std::int64_t>{1, 0, 0}));
  EXPECT_EQ(to, (std::vector<std::int64_t>{4, 2, 5}));
  attention_window(a, AttentionWindow{0, 3}, from, to);
  EXPECT_EQ(from, (std::vector<std::int64_t>{2, 0, 0}));
  EXPECT_EQ(to, (std::vector<std::int64_t>{5, 4, 5}));
}

}  // namespace
}  // namespace heed::testing
