// The decoders over the real models (random weights, float64): every hypothesis that beam
// search or greedy decoding returns must score, under teacher forcing with model.forward,
// exactly its raw score, with the same attention rows. This checks the state reordering and
// back-tracking against real multi-part states (Luong's stacks, input feeding, local-p, the
// attention's previous weights and coverage); beam search of width 1 is greedy decoding.
#include <cmath>

#include <gtest/gtest.h>

#include "decode/fake_model.h"
#include "support/gradcheck.h"
#include "heed/autograd/softmax_op.h"
#include "heed/autograd/tape.h"
#include "heed/decode/beam_search.h"
#include "heed/decode/ensemble.h"
#include "heed/decode/greedy.h"
#include "heed/kernels/gemm.h"
#include "heed/models/model_registry.h"

namespace heed::testing {
namespace {

ModelConfig small(const std::string& kind, const std::string& score = "mlp", bool local_p = false) {
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
    c.bidirectional = true;
    c.enc_layers = c.dec_layers = 2;
    c.local_p = local_p;
    c.window = 2;
  }
  return c;
}

// With the attention's state (docs/MODELS.md#location-aware-attention, #coverage): the previous
// weights and the coverage vector, reordered with the rest of the state by beam search.
ModelConfig with_features(ModelConfig c, std::int64_t filters, bool coverage) {
  c.location_filters = filters;
  c.location_width = 3;
  c.coverage = coverage;
  return c;
}

// The Transformer: its decoder state is the self-attention's position caches, which beam
// search reorders by index (models/position_cache.h).
ModelConfig transformer() {
  ModelConfig c = small("transformer");
  c.transformer.d_model = 8;
  c.transformer.heads = 2;
  c.transformer.ff_dim = 16;
  c.enc_layers = c.dec_layers = 2;
  return c;
}

std::vector<ModelConfig> configs() {
  return {small("bahdanau"), small("luong", "general"), small("luong", "mlp", true),
          small("noattn"), with_features(small("bahdanau"), 4, true),
          with_features(small("luong", "concat"), 2, true), transformer()};
}

const std::vector<std::vector<std::int32_t>> kSentences = {
    {4, 5, 6, 7, 8}, {9, 10}, {11, 12, 4, 6}};

// Teacher-forced log-probability of tokens for one sentence, and its attention (n, m).
std::pair<double, Tensor> teacher_forced(const Seq2Seq& model, const std::vector<std::int32_t>& src,
                                         const std::vector<std::int32_t>& tokens) {
  NoGradGuard ng;
  std::vector<std::int32_t> in{kBos};
  in.insert(in.end(), tokens.begin(), tokens.end() - 1);
  Tensor alphas;
  Var logits = model.forward(make_batch({src}), make_batch({in}), &alphas);
  Tensor lp = log_softmax(logits).value();
  double s = 0;
  for (std::size_t t = 0; t < tokens.size(); ++t)
    s += lp.at({static_cast<std::int64_t>(t), tokens[t]});
  return {s, alphas};
}

void expect_consistent(const Seq2Seq& model, const Hypothesis& h,
                       const std::vector<std::int32_t>& src, const std::string& what) {
  auto [score, alphas] = teacher_forced(model, src, h.tokens);
  EXPECT_NEAR(h.raw_score, score, 1e-9) << what;
  EXPECT_EQ(h.attention.defined(), alphas.defined()) << what;
  if (!h.attention.defined()) return;
  ASSERT_EQ(h.attention.shape(), Shape({h.length, static_cast<std::int64_t>(src.size())})) << what;
  for (std::int64_t t = 0; t < h.length; ++t)
    for (std::int64_t j = 0; j < h.attention.dim(1); ++j)
      EXPECT_NEAR(h.attention.at({t, j}), alphas.at({0, t, j}), 1e-9) << what << " t=" << t;
}

TEST(RealModels, GreedyAndBeamHypothesesScoreAsUnderTeacherForcing) {
  for (const ModelConfig& c : configs()) {
    Rng rng(7);
    auto model = make_model(c, rng, DType::f64);
    TokenBatch src = make_batch(kSentences);
    DecodeOptions o;
    o.max_len = 7;
    o.beam = 4;
    o.n_best = 4;
    DecodeResult g = greedy_decode(*model, src, o);
    DecodeResult b = beam_search(*model, src, o);
    DecodeOptions one = o;
    one.beam = one.n_best = 1;
    DecodeResult b1 = beam_search(*model, src, one);
    for (std::size_t s = 0; s < kSentences.size(); ++s) {
      const std::string what = std::string(enum_name(c.kind)) + "/" + std::string(enum_name(c.score)) + " sentence " + std::to_string(s);
      expect_consistent(*model, g.best(s), kSentences[s], what + " greedy");
      EXPECT_EQ(b1.best(s).tokens, g.best(s).tokens) << what;
      for (std::size_t i = 0; i < 4; ++i)
        expect_consistent(*model, b.nbest[s][i], kSentences[s], what + " beam " + std::to_string(i));
    }
  }
}

TEST(RealModels, EnsembleOfDifferentArchitectures) {
  Rng rng(3);
  std::vector<std::shared_ptr<const Seq2Seq>> members;
  for (const ModelConfig& c : configs()) members.push_back(make_model(c, rng, DType::f64));
  Ensemble ens(members);
  TokenBatch src = make_batch(kSentences);
  DecodeOptions o;
  o.max_len = 6;
  o.beam = 3;
  o.n_best = 3;
  DecodeResult b = beam_search(ens, src, o);
  for (std::size_t s = 0; s < kSentences.size(); ++s)
    for (std::size_t i = 0; i < 3; ++i)
      expect_consistent(ens, b.nbest[s][i], kSentences[s], "ensemble " + std::to_string(s));
}

TEST(RealModels, LearnedPositionsEndTheDecodeAtTheirLastPosition) {
  // A Transformer with 4 learned positions can place 4 decoder steps: greedy and beam search
  // (alone and in an ensemble with an unbounded member) stop there, as at max_len, where a
  // fifth step would throw; each hypothesis still scores as under teacher forcing.
  ModelConfig c = transformer();
  c.transformer.positions = PositionEncoding::learned;
  c.transformer.max_positions = 6;
  Rng rng(5);
  std::shared_ptr<const Seq2Seq> bounded = make_model(c, rng, DType::f64);
  c.transformer.max_positions = 4;
  Rng rng4(5);
  std::shared_ptr<const Seq2Seq> model = make_model(c, rng4, DType::f64);
  EXPECT_EQ(bounded->max_output_steps(), 6);
  EXPECT_EQ(model->max_output_steps(), 4);
  // Sources of at most 3 tokens: within the 4 positions too.
  const std::vector<std::vector<std::int32_t>> sentences = {{4, 5, 6}, {9, 10}, {11, 12, 4}};
  const TokenBatch src = make_batch(sentences);
  DecodeOptions o;  // len_a |x| + len_b: 2 * 3 + 10 = 16 steps unbounded
  o.beam = 3;
  o.n_best = 3;
  o.stop_at_eos = false;
  const DecodeResult g = greedy_decode(*model, src, o), b = beam_search(*model, src, o);
  EXPECT_EQ(g.steps, 4);
  EXPECT_EQ(b.steps, 4);
  for (std::size_t s = 0; s < sentences.size(); ++s) {
    EXPECT_LE(g.best(s).length, 4);
    expect_consistent(*model, g.best(s), sentences[s], "greedy " + std::to_string(s));
    for (std::size_t i = 0; i < 3; ++i) {
      EXPECT_LE(b.nbest[s][i].length, 4);
      expect_consistent(*model, b.nbest[s][i], sentences[s], "beam " + std::to_string(i));
    }
  }
  Rng rng_b(3);
  std::shared_ptr<const Seq2Seq> recurrent = make_model(small("bahdanau"), rng_b, DType::f64);
  EXPECT_EQ(recurrent->max_output_steps(), 0);
  Ensemble ens({recurrent, bounded, model});
  EXPECT_EQ(ens.max_output_steps(), 4);
  EXPECT_EQ(beam_search(ens, src, o).steps, 4);
  Ensemble free({recurrent});
  EXPECT_EQ(beam_search(free, src, o).steps, 16);
}

TEST(RealModels, TwoThreadsDecodeBlocksOfTheBatchWithTheSameResults) {
  // 21 sentences of lengths 1..7: with two threads each decodes a block of the batch (its
  // own padding); every sentence must come out exactly as with one thread.
  std::vector<std::vector<std::int32_t>> sentences;
  for (std::int32_t i = 0; i < 21; ++i) {
    std::vector<std::int32_t> s;
    for (std::int32_t j = 0; j <= i % 7; ++j) s.push_back(4 + (i * 5 + j * 3) % 9);
    sentences.push_back(s);
  }
  const TokenBatch src = make_batch(sentences);
  const int before = kernels::num_threads();
  for (const ModelConfig& c : configs()) {
    Rng rng(11);
    auto model = make_model(c, rng, DType::f64);
    DecodeOptions o;  // max_len 0: each sentence's limit comes from its own length
    o.len_a = 1.0;
    o.len_b = 2.0;
    o.beam = 3;
    o.n_best = 2;
    kernels::set_num_threads(1);
    DecodeResult g1 = greedy_decode(*model, src, o), b1 = beam_search(*model, src, o);
    kernels::set_num_threads(2);
    DecodeResult g2 = greedy_decode(*model, src, o), b2 = beam_search(*model, src, o);
    kernels::set_num_threads(before);
    ASSERT_EQ(g2.nbest.size(), sentences.size());
    ASSERT_EQ(b2.nbest.size(), sentences.size());
    EXPECT_EQ(g2.steps, g1.steps) << c.kind;
    for (std::size_t s = 0; s < sentences.size(); ++s) {
      const std::string what = std::string(enum_name(c.kind)) + "/" + std::string(enum_name(c.score)) + " sentence " + std::to_string(s);
      EXPECT_EQ(g2.best(s).tokens, g1.best(s).tokens) << what;
      EXPECT_NEAR(g2.best(s).raw_score, g1.best(s).raw_score, 1e-12) << what;
      if (g1.best(s).attention.defined()) {
        EXPECT_TRUE(all_close(g2.best(s).attention, g1.best(s).attention, 1e-12, 1e-12)) << what;
      }
      for (std::size_t i = 0; i < 2; ++i) {
        EXPECT_EQ(b2.nbest[s][i].tokens, b1.nbest[s][i].tokens) << what << " beam " << i;
        EXPECT_NEAR(b2.nbest[s][i].score, b1.nbest[s][i].score, 1e-12) << what;
      }
    }
  }
}

TEST(RealModels, Float32) {
  Rng rng(5);
  auto model = make_model(small("bahdanau"), rng, DType::f32);
  TokenBatch src = make_batch(kSentences);
  DecodeOptions o;
  o.max_len = 7;
  o.beam = 3;
  o.n_best = 3;
  DecodeResult b = beam_search(*model, src, o);
  for (std::size_t s = 0; s < kSentences.size(); ++s) {
    EXPECT_EQ(b.best(s).attention.dtype(), DType::f32);
    auto [score, alphas] = teacher_forced(*model, kSentences[s], b.best(s).tokens);
    EXPECT_NEAR(b.best(s).raw_score, score, 1e-4);
  }
}

}  // namespace
}  // namespace heed::testing
