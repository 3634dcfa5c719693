// Model tests without PyTorch: finite-difference gradients of every parameter (double
// precision, tiny sizes), step() against forward(), padding invariance, configurations beyond
// the reference (LSTM / deeper / unidirectional encoders, tied embeddings, bridges, dropout)
// and config validation.
#include <gtest/gtest.h>

#include <algorithm>

#include "heed/autograd/cross_entropy_op.h"
#include "heed/autograd/concat_op.h"
#include "heed/autograd/index.h"
#include "heed/autograd/tape.h"
#include "heed/kernels/gemm.h"
#include "heed/models/model_registry.h"
#include "support/gradcheck.h"
#include "support/tiny_models.h"
#include "support/token_batches.h"

namespace heed {
namespace {

using testing::all_close;
using testing::gradcheck;
using testing::tiny_config;

TokenBatch batch(std::int64_t len, const std::vector<std::vector<std::int32_t>>& rows) {
  return testing::padded_batch(len, rows);
}

// Three sentences of different lengths (source and target), padded.
const TokenBatch kSrc = batch(5, {{4, 5, 6}, {7, 4, 5, 8, 4}, {6, 9}});
const TokenBatch kTgt = batch(4, {{kBos, 5, 6, 4}, {kBos, 7}, {kBos, 4, 8}});
const std::vector<std::int32_t> kTgtOut = {5, 6, 4, kEos, 7, kEos, kPad, kPad, 4, 8, kEos, kPad};


std::unique_ptr<Seq2Seq> build(const ModelConfig& c, std::uint64_t seed = 5) {
  Rng rng(seed);
  auto m = make_model(c, rng, DType::f64);
  m->eval();
  return m;
}

struct Case {
  std::string name;
  ModelConfig config;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  out.push_back({"bahdanau", tiny_config("bahdanau")});
  out.push_back({"noattn", tiny_config("noattn")});
  for (const ScoreSpec& e : attention_scores()) {  // every score
    ModelConfig c = tiny_config("luong");
    c.score = e.score;
    out.push_back({"luong_" + std::string(attention_score_name(e.score)), c});
  }
  ModelConfig nofeed = tiny_config("luong");
  nofeed.input_feed = false;
  out.push_back({"luong_no_input_feed", nofeed});
  ModelConfig local = tiny_config("luong");
  local.local_p = true;
  local.window = 1;
  out.push_back({"luong_local_p", local});
  ModelConfig bidir = tiny_config("luong");
  bidir.bidirectional = true;
  bidir.enc_hidden = 3;  // bridged from 2 x 3 to 4
  out.push_back({"luong_bidir_bridge", bidir});
  ModelConfig wide = tiny_config("luong");
  wide.enc_hidden = 3;  // unidirectional, but enc_hidden != dec_hidden: bridged too
  wide.score = AttentionScore::mlp;
  out.push_back({"luong_bridge_sizes", wide});
  ModelConfig tied = tiny_config("luong");
  tied.emb_dim = tied.dec_hidden;
  tied.tie_embeddings = true;
  out.push_back({"luong_tied", tied});
  ModelConfig lstm = tiny_config("bahdanau");
  lstm.encoder_cell = RnnCell::lstm;
  lstm.enc_layers = 2;
  out.push_back({"bahdanau_lstm2", lstm});
  ModelConfig uni = tiny_config("bahdanau");
  uni.bidirectional = false;
  uni.out_dim = uni.emb_dim;
  uni.tie_embeddings = true;
  out.push_back({"bahdanau_uni_tied", uni});
  ModelConfig uni_noattn = tiny_config("noattn");
  uni_noattn.bidirectional = false;
  uni_noattn.enc_layers = 2;
  out.push_back({"noattn_uni2", uni_noattn});
  ModelConfig location = tiny_config("bahdanau");  // docs/MODELS.md#location-aware-attention
  location.location_filters = 2;
  location.location_width = 3;
  out.push_back({"bahdanau_location", location});
  ModelConfig coverage = tiny_config("bahdanau");  // docs/MODELS.md#coverage
  coverage.coverage = true;
  out.push_back({"bahdanau_coverage", coverage});
  ModelConfig luong_features = tiny_config("luong");
  luong_features.score = AttentionScore::mlp;
  luong_features.location_filters = 3;
  luong_features.location_width = 5;
  luong_features.coverage = true;
  out.push_back({"luong_mlp_location_coverage", luong_features});
  out.push_back({"transformer", tiny_config("transformer")});
  ModelConfig post = tiny_config("transformer");  // post-norm, learned positions, tied, head 2
  post.transformer.norm = NormPlacement::post;
  post.transformer.positions = PositionEncoding::learned;
  post.transformer.max_positions = 6;
  post.transformer.alignment_layer = 1;
  post.transformer.alignment_head = 2;
  post.tie_embeddings = true;
  post.enc_layers = 1;
  out.push_back({"transformer_post_learned_tied", post});
  ModelConfig shared = tiny_config("transformer");  // one table for source, target and output
  shared.tgt_vocab = shared.src_vocab;
  shared.transformer.share_embeddings = true;
  shared.tie_embeddings = true;
  out.push_back({"transformer_shared_tied", shared});
  return out;
}

class EveryModel : public ::testing::TestWithParam<Case> {};

TEST_P(EveryModel, GradientsOfEveryParameter) {
  const Case& c = GetParam();
  auto model = build(c.config);
  std::vector<Var> params = model->parameters();
  // Through the loss, which ignores padded target positions (their logits read the PAD
  // embedding row, which as PyTorch's padding_idx receives no gradient); label smoothing
  // makes every other logit count, not just the targets'.
  EXPECT_TRUE(gradcheck(
      [&] { return cross_entropy(model->forward(kSrc, kTgt), kTgtOut, kPad, 0.2); }, params));
}

TEST_P(EveryModel, ForwardPackedIsForwardAtTheRealPositions) {
  const Case& c = GetParam();
  auto model = build(c.config);
  const std::vector<std::int64_t> rows = target_rows(kTgt);
  EXPECT_EQ(rows, (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 8, 9, 10}));
  EXPECT_EQ(pack_targets(kTgtOut, kTgt),
            (std::vector<std::int32_t>{5, 6, 4, kEos, 7, kEos, 4, 8, kEos}));
  Tensor full, packed;
  {
    NoGradGuard no_grad;
    full = model->forward(kSrc, kTgt).value();
    packed = model->forward_packed(kSrc, kTgt).value();
  }
  ASSERT_EQ(packed.shape(), Shape({9, model->tgt_vocab()}));
  for (std::size_t i = 0; i < rows.size(); ++i)
    EXPECT_TRUE(all_close(packed.select(0, static_cast<std::int64_t>(i)),
                          full.select(0, rows[i]), 1e-12, 1e-12)) << i;
  // The loss over the packed logits has the same gradients as over the padded ones.
  std::vector<Var> params = model->parameters();
  EXPECT_TRUE(gradcheck(
      [&] {
        return cross_entropy(model->forward_packed(kSrc, kTgt), pack_targets(kTgtOut, kTgt),
                             kPad, 0.2);
      },
      params));
}

// Teacher-forced logits (B*n, V) from step() calls.
Tensor stepped_logits(const Seq2Seq& model, const TokenBatch& src, const TokenBatch& tgt,
                      Tensor* alphas) {
  NoGradGuard no_grad;
  Encoded enc = model.encode(src);
  DecoderState state = model.initial_state(enc);
  const std::int64_t B = tgt.batch, n = tgt.len, V = model.tgt_vocab();
  Tensor out = Tensor::zeros({B, n, V}, DType::f64);
  if (model.has_attention()) *alphas = Tensor::zeros({B, n, src.len}, DType::f64);
  for (std::int64_t t = 0; t < n; ++t) {
    std::vector<std::int32_t> y;
    for (std::int64_t b = 0; b < B; ++b) y.push_back(tgt.ids[static_cast<std::size_t>(b * n + t)]);
    StepOutput s = model.step(y, state, enc);
    out.select(1, t).copy_from(s.logits.value());
    EXPECT_EQ(s.alpha.defined(), model.has_attention());
    if (s.alpha.defined()) alphas->select(1, t).copy_from(s.alpha.value());
  }
  return out.reshape({B * n, V});
}

TEST_P(EveryModel, StepMatchesForward) {
  const Case& c = GetParam();
  auto model = build(c.config);
  Tensor alphas, step_alphas;
  Tensor logits;
  {
    NoGradGuard no_grad;
    logits = model->forward(kSrc, kTgt, &alphas).value();
  }
  EXPECT_TRUE(all_close(stepped_logits(*model, kSrc, kTgt, &step_alphas), logits, 1e-12, 1e-10));
  EXPECT_EQ(alphas.defined(), model->has_attention());
  if (alphas.defined()) {
    EXPECT_TRUE(all_close(step_alphas, alphas, 1e-12, 1e-10));
  }
}

TEST_P(EveryModel, PaddingDoesNotChangeASentence) {
  const Case& c = GetParam();
  auto model = build(c.config);
  NoGradGuard no_grad;
  Tensor alphas;
  Tensor logits = model->forward(kSrc, kTgt, &alphas).value();
  const std::int64_t n = kTgt.len;
  for (std::int64_t b = 0; b < kSrc.batch; ++b) {
    const std::int64_t m_b = kSrc.lengths[b], n_b = 1 + std::count_if(
        kTgt.ids.begin() + b * n + 1, kTgt.ids.begin() + (b + 1) * n,
        [](std::int32_t y) { return y != kPad; });
    std::vector<std::int32_t> s(kSrc.ids.begin() + b * kSrc.len,
                                kSrc.ids.begin() + b * kSrc.len + m_b);
    std::vector<std::int32_t> y(kTgt.ids.begin() + b * n, kTgt.ids.begin() + b * n + n_b);
    Tensor alone_alphas;
    Tensor alone = model->forward(batch(m_b, {s}), batch(n_b, {y}), &alone_alphas).value();
    EXPECT_TRUE(all_close(alone, logits.slice(0, b * n, b * n + n_b), 1e-12, 1e-10)) << b;
    if (!alphas.defined()) continue;
    Tensor mine = alphas.select(0, b).slice(0, 0, n_b);
    EXPECT_TRUE(all_close(alone_alphas.select(0, 0), mine.slice(1, 0, m_b).contiguous(), 1e-12,
                          1e-10));
    for (double a : mine.slice(1, m_b, kSrc.len).contiguous().to_vector()) EXPECT_EQ(a, 0.0);
  }
}

// The models' fused decoders (Bahdanau; Luong with a dot-product score) against the same
// model run one step() at a time, on a batch big enough for two threads to split its rows:
// equal logits and equal gradients of every parameter.
TEST(Models, FusedDecodersMatchTheStepsOnTwoThreads) {
  std::vector<ModelConfig> configs{tiny_config("bahdanau"), tiny_config("luong")};
  ModelConfig dot = tiny_config("luong");
  dot.score = AttentionScore::scaled_dot;
  dot.input_feed = false;
  dot.dec_layers = dot.enc_layers = 1;
  configs.push_back(dot);
  std::vector<std::vector<std::int32_t>> srcs, tgts;
  for (std::int32_t i = 0; i < 19; ++i) {
    std::vector<std::int32_t> x, y{kBos};
    for (std::int32_t j = 0; j <= i % 5; ++j) x.push_back(4 + (i + 2 * j) % 6);
    for (std::int32_t j = 0; j < 1 + (i * 3) % 4; ++j) y.push_back(4 + (i + j) % 5);
    srcs.push_back(x);
    tgts.push_back(y);
  }
  const TokenBatch src = batch(5, srcs), tgt = batch(4, tgts);
  const int before = kernels::num_threads();
  kernels::set_num_threads(2);
  for (const ModelConfig& c : configs) {
    auto model = build(c);
    const std::vector<Var> params = model->parameters();
    const Tensor seed = testing::random_tensor({tgt.batch * tgt.len, model->tgt_vocab()}, 9);
    auto run = [&](bool fused) {
      for (const Var& p : params) p.zero_grad();
      Var logits;
      if (fused) {
        logits = model->forward(src, tgt);
      } else {
        Encoded enc = model->encode(src);
        DecoderState state = model->initial_state(enc);
        std::vector<Var> steps;
        for (std::int64_t t = 0; t < tgt.len; ++t) {
          std::vector<std::int32_t> y;
          for (std::int64_t b = 0; b < tgt.batch; ++b)
            y.push_back(tgt.ids[static_cast<std::size_t>(b * tgt.len + t)]);
          steps.push_back(model->step(y, state, enc).logits);
        }
        logits = reshape(stack(steps, 1), {tgt.batch * tgt.len, model->tgt_vocab()});
      }
      Tensor value = logits.value().clone();
      Tape::current().backward(logits, seed);
      std::vector<Tensor> grads;
      for (const Var& p : params) grads.push_back(p.grad().clone());
      return std::make_pair(value, grads);
    };
    auto [fused_value, fused_grads] = run(true);
    auto [step_value, step_grads] = run(false);
    EXPECT_TRUE(all_close(fused_value, step_value, 1e-12, 1e-10)) << c.kind;
    for (std::size_t i = 0; i < params.size(); ++i)
      EXPECT_TRUE(all_close(fused_grads[i], step_grads[i], 1e-11, 1e-9)) << c.kind << " " << i;
  }
  kernels::set_num_threads(before);
}

INSTANTIATE_TEST_SUITE_P(Models, EveryModel, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

TEST(Models, ReferenceParameterNames) {
  auto names = [](const Seq2Seq& m) {
    std::vector<std::string> out;
    for (auto& [n, _] : m.named_parameters()) out.push_back(n);
    return out;
  };
  ModelConfig b = tiny_config("bahdanau");
  EXPECT_EQ(names(*build(b)),
            (std::vector<std::string>{
                "src_emb.weight", "tgt_emb.weight", "encoder.weight_ih_l0", "encoder.weight_hh_l0",
                "encoder.bias_ih_l0", "encoder.bias_hh_l0", "encoder.weight_ih_l0_reverse",
                "encoder.weight_hh_l0_reverse", "encoder.bias_ih_l0_reverse",
                "encoder.bias_hh_l0_reverse", "W_init.weight", "W_init.bias",
                "attention.W_q.weight", "attention.U_h.weight", "attention.U_h.bias",
                "attention.v.weight", "decoder.weight_ih", "decoder.weight_hh", "decoder.bias_ih",
                "decoder.bias_hh", "W_o.weight", "W_o.bias", "W_out.weight", "W_out.bias"}));
  ModelConfig l = tiny_config("luong");
  l.bidirectional = true;
  l.dec_layers = l.enc_layers = 1;
  EXPECT_EQ(names(*build(l)),
            (std::vector<std::string>{
                "src_emb.weight", "tgt_emb.weight", "encoder.weight_ih_l0", "encoder.weight_hh_l0",
                "encoder.bias_ih_l0", "encoder.bias_hh_l0", "encoder.weight_ih_l0_reverse",
                "encoder.weight_hh_l0_reverse", "encoder.bias_ih_l0_reverse",
                "encoder.bias_hh_l0_reverse", "bridge_h.weight", "bridge_h.bias",
                "bridge_c.weight", "bridge_c.bias", "cells.0.weight_ih", "cells.0.weight_hh",
                "cells.0.bias_ih", "cells.0.bias_hh", "attention.W_a.weight", "W_c.weight",
                "W_s.weight", "W_s.bias"}));
}

TEST(Models, TiedEmbeddingsShareOneTensor) {
  ModelConfig c = tiny_config("bahdanau");
  c.out_dim = c.emb_dim;
  c.tie_embeddings = true;
  auto model = build(c);
  EXPECT_THROW(model->parameter("W_out.weight"), Error);
  EXPECT_NO_THROW(model->parameter("W_out.bias"));
  // Changing the embedding changes the output layer: the same storage.
  Var emb = model->parameter("tgt_emb.weight");
  NoGradGuard no_grad;
  Tensor before = model->forward(kSrc, kTgt).value().clone();
  emb.mutable_value().data<double>()[3 * c.emb_dim] += 1.0;  // row 3: never an input here
  Tensor after = model->forward(kSrc, kTgt).value();
  EXPECT_FALSE(all_close(after, before, 1e-9, 0));
}

TEST(Models, DropoutNeedsAnRngAndOnlyActsInTraining) {
  for (const char* kind : {"bahdanau", "luong", "noattn"}) {
    SCOPED_TRACE(kind);
    ModelConfig c = tiny_config(kind);
    c.dropout = 0.3;
    auto model = build(c);
    Tensor eval_logits;
    {
      NoGradGuard no_grad;
      eval_logits = model->forward(kSrc, kTgt).value().clone();
    }
    model->train();
    EXPECT_THROW(model->forward(kSrc, kTgt), Error);
    Tape::current().clear();
    Rng rng(3);
    model->set_rng(&rng);
    Var logits = model->forward(kSrc, kTgt);
    EXPECT_FALSE(all_close(logits.value(), eval_logits, 1e-9, 0));
    Var loss = cross_entropy(logits, std::vector<std::int32_t>(kTgt.ids.size(), 4), kPad);
    Tape::current().backward(loss);
    model->eval();
    NoGradGuard no_grad;
    EXPECT_TRUE(all_close(model->forward(kSrc, kTgt).value(), eval_logits, 0, 0));
  }
}

TEST(Models, ReorderRowsReplicatesTheEncoding) {
  auto model = build(tiny_config("luong"));
  NoGradGuard no_grad;
  Encoded enc = model->encode(kSrc);
  const std::vector<std::int64_t> rows = {2, 2, 0};
  Encoded r = reorder_rows(enc, rows);
  DecoderState s = model->initial_state(r);
  ASSERT_EQ(s.parts.size(), 6u);  // h_1, h_2, c_1, c_2, h~, alpha_0
  EXPECT_EQ(r.lengths, (std::vector<std::int64_t>{2, 2, 3}));
  StepOutput out = model->step(std::vector<std::int32_t>{kBos, kBos, kBos}, s, r);
  DecoderState s0 = model->initial_state(enc);
  StepOutput ref = model->step(std::vector<std::int32_t>{kBos, kBos, kBos}, s0, enc);
  // (Rows in other GEMM positions may round differently in the last bit.)
  EXPECT_TRUE(all_close(out.logits.value().select(0, 0), ref.logits.value().select(0, 2), 1e-13, 0));
  EXPECT_TRUE(all_close(out.logits.value().select(0, 2), ref.logits.value().select(0, 0), 1e-13, 0));
}

// The Transformer reads its encoder-decoder keys by row: reordering lists each hypothesis's
// rows of the one shared copy (composing when reordered again), and a step over the listed
// rows gives the rows it names.
TEST(Models, ReorderRowsListsTheTransformersKeys) {
  auto model = build(tiny_config("transformer"));
  NoGradGuard no_grad;
  Encoded enc = model->encode(kSrc);
  ASSERT_TRUE(enc.keys_by_row);
  const std::int64_t m = enc.keys.dim(1);
  Encoded r = reorder_rows(reorder_rows(enc, std::vector<std::int64_t>{2, 0, 1}),
                           std::vector<std::int64_t>{0, 0, 2});  // sentences 2, 2, 1
  EXPECT_TRUE(r.keys.same_node(enc.keys));
  ASSERT_EQ(r.key_rows.size(), static_cast<std::size_t>(3 * m));
  const std::vector<std::int64_t> sentence = {2, 2, 1};
  for (std::size_t b = 0; b < 3; ++b)
    for (std::int64_t j = 0; j < m; ++j)
      EXPECT_EQ(r.key_rows[b * static_cast<std::size_t>(m) + static_cast<std::size_t>(j)],
                sentence[b] * m + j);
  DecoderState s = model->initial_state(enc);
  s = reorder_rows(s, std::vector<std::int64_t>{2, 2, 1});
  StepOutput out = model->step(std::vector<std::int32_t>{kBos, kBos, kBos}, s, r);
  DecoderState s0 = model->initial_state(enc);
  StepOutput ref = model->step(std::vector<std::int32_t>{kBos, kBos, kBos}, s0, enc);
  for (std::int64_t b = 0; b < 3; ++b)
    EXPECT_TRUE(all_close(out.logits.value().select(0, b),
                          ref.logits.value().select(0, sentence[static_cast<std::size_t>(b)]), 1e-13, 0));
}

void expect_error(ModelConfig c, const std::string& fragment) {
  Rng rng(1);
  try {
    make_model(c, rng);
    ADD_FAILURE() << "no error, expected one mentioning '" << fragment << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(Models, ConfigValidation) {
  ModelConfig c = tiny_config("luong");
  c.tgt_vocab = 2;
  expect_error(c, "special tokens");
  c = tiny_config("bahdanau");
  c.emb_dim = 0;
  expect_error(c, "emb_dim");
  c = tiny_config("luong");
  c.encoder_cell = RnnCell::gru;
  expect_error(c, "must be lstm");
  c = tiny_config("luong");
  c.enc_layers = 1;
  expect_error(c, "enc_layers (1) must equal dec_layers (2)");
  c = tiny_config("luong");
  c.score = AttentionScore::dot;
  c.bidirectional = true;
  expect_error(c, "score dot needs");
  c = tiny_config("luong");
  c.local_p = true;
  c.window = 0;
  expect_error(c, "window");
  c = tiny_config("luong");
  c.tie_embeddings = true;
  expect_error(c, "set emb_dim = dec_hidden");
  c = tiny_config("bahdanau");
  c.tie_embeddings = true;
  expect_error(c, "set out_dim = emb_dim");
  c = tiny_config("bahdanau");
  c.dec_layers = 2;
  expect_error(c, "dec_layers");
  c = tiny_config("bahdanau");
  c.score = AttentionScore::general;
  expect_error(c, "additive (mlp)");
  c = tiny_config("noattn");
  c.local_p = true;
  expect_error(c, "local-p");
  c = tiny_config("bahdanau");
  c.dropout = 1.0;
  expect_error(c, "dropout");
}

TEST(Models, BadBatchesAreRefused) {
  auto model = build(tiny_config("bahdanau"));
  TokenBatch bad = kSrc;
  bad.ids[0] = 10;
  EXPECT_THROW(model->forward(bad, kTgt), Error);
  bad = kSrc;
  bad.lengths[1] = 0;
  EXPECT_THROW(model->forward(bad, kTgt), Error);
  bad = kSrc;
  bad.ids.pop_back();
  EXPECT_THROW(model->forward(bad, kTgt), Error);
  TokenBatch tgt = kTgt;
  tgt.ids[1] = 9;
  EXPECT_THROW(model->forward(kSrc, tgt), Error);
  EXPECT_THROW(model->forward(kSrc, batch(2, {{kBos, 4}})), Error);
  NoGradGuard no_grad;
  Encoded enc = model->encode(kSrc);
  DecoderState s = model->initial_state(enc);
  EXPECT_THROW(model->step(std::vector<std::int32_t>{kBos, kBos}, s, enc), Error);
  DecoderState empty;
  EXPECT_THROW(model->step(std::vector<std::int32_t>{kBos, kBos, kBos}, empty, enc), Error);
}

}  // namespace
}  // namespace heed
