// The models against the PyTorch reference (tests/golden/models_*.safetensors, written by
// tools/make_model_goldens.py): the same weights, loaded by name, give the same logits, loss
// (with and without label smoothing), parameter gradients and teacher-forced attention.
#include <gtest/gtest.h>

#include "heed/autograd/cross_entropy_op.h"
#include "heed/autograd/elementwise_op.h"
#include "heed/autograd/tape.h"
#include "heed/models/model_registry.h"
#include "heed/store/checkpoint.h"
#include "heed/train/coverage_loss.h"
#include "support/golden.h"

namespace heed {
namespace {

using testing::expect_close_to_golden;
using testing::golden_group;
using testing::load_golden;

TokenBatch tokens(const Tensor& t, const std::vector<std::int64_t>& lengths) {
  TokenBatch b;
  b.batch = t.dim(0);
  b.len = t.dim(1);
  for (double v : t.to_vector()) b.ids.push_back(static_cast<std::int32_t>(v));
  b.lengths = lengths;
  return b;
}

std::vector<std::int64_t> int_vector(const Tensor& t) {
  std::vector<std::int64_t> out;
  for (double v : t.to_vector()) out.push_back(static_cast<std::int64_t>(v));
  return out;
}

ModelConfig base(const std::string& kind) {
  ModelConfig c;
  c.kind = parse_enum<ModelKind>(kind, "model.kind");
  c.src_vocab = 11;
  c.tgt_vocab = 13;
  c.emb_dim = 5;
  return c;
}

// The reference's Bahdanau / NoAttention(emb_dim=5, enc_hidden=4, dec_hidden=6, attn_dim=5,
// out_dim=7).
ModelConfig gru_model(const std::string& kind) {
  ModelConfig c = base(kind);
  c.enc_hidden = 4;
  c.dec_hidden = 6;
  c.attn_dim = 5;
  c.out_dim = 7;
  return c;
}

// The reference's Luong(emb_dim=5, hidden=6, layers, score, ...).
ModelConfig luong(const std::string& score, int layers) {
  ModelConfig c = base("luong");
  c.enc_hidden = c.dec_hidden = 6;
  c.enc_layers = c.dec_layers = layers;
  c.bidirectional = false;
  c.score = parse_enum<AttentionScore>(score, "model.score");
  return c;
}

void check_case(const std::string& name, const ModelConfig& config) {
  SCOPED_TRACE(name);
  const SafeTensorsFile g = load_golden(name);
  Rng rng(1);
  std::unique_ptr<Seq2Seq> model = make_model(config, rng, DType::f64);
  load_into(*model, golden_group(g, "param."), name);
  model->eval();

  const std::vector<std::int64_t> src_len = int_vector(g.get("in.src_len"));
  const TokenBatch src = tokens(g.get("in.src"), src_len);
  const TokenBatch tgt_in = tokens(g.get("in.tgt_in"), {});
  std::vector<std::int32_t> tgt_out;
  for (double v : g.get("in.tgt_out").to_vector()) tgt_out.push_back(static_cast<std::int32_t>(v));

  const Tensor& ref_logits = g.get("out.logits");
  for (double smoothing : {0.0, 0.1}) {
    const std::string tag = smoothing > 0 ? "_ls" : "";
    model->zero_grad();
    Tensor alphas;
    Var logits = model->forward(src, tgt_in, &alphas);
    Var loss = cross_entropy(logits, tgt_out, kPad, smoothing);
    expect_close_to_golden(logits.value().reshape(ref_logits.shape()), ref_logits, "logits");
    expect_close_to_golden(loss.value().reshape({1}), g.get("out.loss" + tag), "loss" + tag);
    if (g.contains("out.alpha"))
      expect_close_to_golden(alphas, g.get("out.alpha"), "alpha");
    else
      EXPECT_FALSE(alphas.defined());
    Tape::current().backward(loss);
    for (const auto& [pname, p] : model->named_parameters())
      expect_close_to_golden(p.grad(), g.get("grad" + tag + "." + pname), "grad" + tag + "." + pname);
  }

  // step() under teacher forcing gives the same attention (the golden's own protocol).
  if (g.contains("out.alpha")) {
    NoGradGuard no_grad;
    Encoded enc = model->encode(src);
    DecoderState state = model->initial_state(enc);
    const Tensor& ref_alpha = g.get("out.alpha");
    for (std::int64_t t = 0; t < tgt_in.len; ++t) {
      std::vector<std::int32_t> y;
      for (std::int64_t b = 0; b < tgt_in.batch; ++b) y.push_back(tgt_in.ids[b * tgt_in.len + t]);
      StepOutput out = model->step(y, state, enc);
      expect_close_to_golden(out.alpha.value(), ref_alpha.select(1, t).contiguous(),
                             "step alpha " + std::to_string(t));
      expect_close_to_golden(out.logits.value(), ref_logits.select(1, t).contiguous(),
                             "step logits " + std::to_string(t));
    }
  }
}

TEST(ModelGolden, Bahdanau) { check_case("models_bahdanau", gru_model("bahdanau")); }

TEST(ModelGolden, BahdanauLocationAware) {
  ModelConfig c = gru_model("bahdanau");
  c.location_filters = 3;
  c.location_width = 3;
  check_case("models_bahdanau_location", c);
}

TEST(ModelGolden, BahdanauCoverage) {
  ModelConfig c = gru_model("bahdanau");
  c.coverage = true;
  check_case("models_bahdanau_coverage", c);
}

// The coverage loss as the trainer adds it (train/encoder_decoder_task.cpp): the teacher-forced
// steps' weights recorded on the tape, lambda / N times the sum, N the real target tokens.
TEST(ModelGolden, BahdanauCoverageLoss) {
  const std::string name = "models_bahdanau_coverage";
  ModelConfig c = gru_model("bahdanau");
  c.coverage = true;
  const SafeTensorsFile g = load_golden(name);
  Rng rng(1);
  std::unique_ptr<Seq2Seq> model = make_model(c, rng, DType::f64);
  load_into(*model, golden_group(g, "param."), name);
  model->train();  // the trace is recorded in training (no dropout here)
  std::vector<Var> trace;
  model->set_attention_trace(&trace);

  const TokenBatch src = tokens(g.get("in.src"), int_vector(g.get("in.src_len")));
  const TokenBatch tgt_in = tokens(g.get("in.tgt_in"), {});
  std::vector<std::int32_t> tgt_out;
  std::vector<std::int64_t> n(static_cast<std::size_t>(tgt_in.batch), 0);
  for (double v : g.get("in.tgt_out").to_vector()) {
    tgt_out.push_back(static_cast<std::int32_t>(v));
    if (v != kPad) ++n[(tgt_out.size() - 1) / static_cast<std::size_t>(tgt_in.len)];
  }
  double N = 0;
  for (auto k : n) N += static_cast<double>(k);
  model->zero_grad();
  Var ce = cross_entropy(model->forward(src, tgt_in), tgt_out, kPad, 0.0);
  ASSERT_EQ(trace.size(), static_cast<std::size_t>(tgt_in.len));
  Var cov = coverage_loss(trace, n, 1.0, N);
  expect_close_to_golden(cov.value().reshape({1}), g.get("out.coverage_loss"), "coverage loss");
  Var total = add(ce, cov);
  expect_close_to_golden(total.value().reshape({1}), g.get("out.loss_cov"), "loss_cov");
  Tape::current().backward(total);
  for (const auto& [pname, p] : model->named_parameters())
    expect_close_to_golden(p.grad(), g.get("grad_cov." + pname), "grad_cov." + pname);
}

TEST(ModelGolden, NoAttention) { check_case("models_noattn", gru_model("noattn")); }

TEST(ModelGolden, LuongGeneralInputFeeding) {
  check_case("models_luong_general_feed", luong("general", 2));
}

TEST(ModelGolden, LuongDotWithoutInputFeeding) {
  ModelConfig c = luong("dot", 2);
  c.input_feed = false;
  check_case("models_luong_dot_nofeed", c);
}

TEST(ModelGolden, LuongConcat) {
  ModelConfig c = luong("concat", 1);
  c.attn_dim = 5;
  check_case("models_luong_concat", c);
}

TEST(ModelGolden, LuongMlp) {
  ModelConfig c = luong("mlp", 1);
  c.attn_dim = 5;
  check_case("models_luong_mlp", c);
}

TEST(ModelGolden, LuongLocation) {
  ModelConfig c = luong("location", 1);
  c.max_src_len = 8;
  check_case("models_luong_location", c);
}

TEST(ModelGolden, LuongLocalP) {
  ModelConfig c = luong("general", 1);
  c.local_p = true;
  c.window = 2;
  check_case("models_luong_local_p", c);
}

TEST(ModelGolden, LuongBidirectionalBridge) {
  ModelConfig c = luong("general", 2);
  c.bidirectional = true;
  check_case("models_luong_bidir", c);
}

// The Transformer on nn.TransformerEncoder / nn.TransformerDecoder (tools/reference/
// transformer.py): pre-norm with sinusoidal positions; post-norm with learned positions, tied
// embeddings and the first layer's second head as the attention.
TEST(ModelGolden, Transformer) {
  check_case("models_transformer", testing::golden_model_config(load_golden("models_transformer")));
}

TEST(ModelGolden, TransformerPostNormLearnedTied) {
  check_case("models_transformer_post",
             testing::golden_model_config(load_golden("models_transformer_post")));
}

// One table for the source, the target and the output layer (share_embeddings with
// tie_embeddings, a joint vocabulary of 13): the gradient of src_emb.weight gathers all three.
TEST(ModelGolden, TransformerSharedTiedEmbeddings) {
  const ModelConfig c = testing::golden_model_config(load_golden("models_transformer_shared"));
  EXPECT_TRUE(c.transformer.share_embeddings);
  check_case("models_transformer_shared", c);
}

}  // namespace
}  // namespace heed
