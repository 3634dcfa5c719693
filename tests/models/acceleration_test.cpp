// Each fused whole-sequence decoder (src/heed/fused/) is an acceleration of a decoder's step:
// teacher forcing through it must give what the step loop gives, in value, attention and
// gradient of every parameter (double precision), for every configuration it accepts. The
// configurations it refuses must fall back to the step loop.
#include <gtest/gtest.h>

#include "heed/autograd/cross_entropy_op.h"
#include "heed/autograd/tape.h"
#include "heed/models/encoder_decoder.h"
#include "heed/models/model_registry.h"
#include "support/gradcheck.h"
#include "support/token_batches.h"

namespace heed {
namespace {

using testing::all_close;

TokenBatch batch(std::int64_t len, const std::vector<std::vector<std::int32_t>>& rows) {
  return testing::padded_batch(len, rows);
}

const TokenBatch kSrc = batch(5, {{4, 5, 6}, {7, 4, 5, 8, 4}, {6, 9}});
const TokenBatch kTgt = batch(4, {{kBos, 5, 6, 4}, {kBos, 7}, {kBos, 4, 8}});
const std::vector<std::int32_t> kTgtOut = {5, 6, 4, kEos, 7, kEos, kPad, kPad, 4, 8, kEos, kPad};

struct Run {
  Tensor logits, alphas;
  std::vector<Tensor> grads;
};

Run teacher_forced(EncoderDecoder& model, bool accelerated) {
  model.set_accelerations(accelerated);
  model.zero_grad();
  Run r;
  Var logits = model.forward(kSrc, kTgt, &r.alphas);
  Var loss = cross_entropy(logits, kTgtOut, kPad, 0.1);
  Tape::current().backward(loss);
  r.logits = logits.value().clone();
  for (const Var& p : model.parameters()) r.grads.push_back(p.grad().clone());
  return r;
}

ModelConfig base(ModelKind kind) {
  ModelConfig c;
  c.kind = kind;
  c.src_vocab = 10;
  c.tgt_vocab = 9;
  c.emb_dim = 4;
  c.enc_hidden = 3;
  c.dec_hidden = 6;
  if (kind == ModelKind::luong) {
    c.enc_hidden = 6;
    c.enc_layers = c.dec_layers = 2;
    c.bidirectional = false;
    c.score = AttentionScore::general;
  }
  return c;
}

// The same weights (same seed) with and without the fused op.
void expect_equal_paths(const ModelConfig& c, const std::string& what) {
  Rng rng(7);
  auto model = make_model(c, rng, DType::f64);
  auto* ed = dynamic_cast<EncoderDecoder*>(model.get());
  ASSERT_NE(ed, nullptr) << what;
  const Run fused = teacher_forced(*ed, true);
  const Run loop = teacher_forced(*ed, false);
  EXPECT_TRUE(all_close(fused.logits, loop.logits, 1e-12, 1e-10)) << what << ": logits";
  if (model->has_attention()) {
    EXPECT_TRUE(all_close(fused.alphas, loop.alphas, 1e-12, 1e-10)) << what << ": attention";
  }
  ASSERT_EQ(fused.grads.size(), loop.grads.size());
  const auto names = model->named_parameters();
  for (std::size_t i = 0; i < fused.grads.size(); ++i)
    EXPECT_TRUE(all_close(fused.grads[i], loop.grads[i], 1e-12, 1e-9))
        << what << ": gradient of " << names[i].first;
}

TEST(Accelerations, GruAdditiveDecoderEqualsTheBahdanauStep) {
  expect_equal_paths(base(ModelKind::bahdanau), "bahdanau");
  ModelConfig c = base(ModelKind::bahdanau);
  c.encoder_cell = RnnCell::lstm;
  c.enc_layers = 2;
  c.tie_embeddings = true;
  c.out_dim = c.emb_dim;
  expect_equal_paths(c, "bahdanau, 2-layer LSTM encoder, tied embeddings");
}

TEST(Accelerations, LstmDotDecoderEqualsTheLuongStep) {
  for (const ScoreSpec& e : attention_scores()) {
    if (!e.fused) continue;
    const AttentionScore score = e.score;
    for (bool feed : {true, false}) {
      ModelConfig c = base(ModelKind::luong);
      c.score = score;
      c.input_feed = feed;
      expect_equal_paths(c, std::string(enum_name(score)) + (feed ? " with" : " without") +
                                " input feeding");
    }
  }
  ModelConfig c = base(ModelKind::luong);
  c.bidirectional = true;
  c.enc_hidden = 3;  // bridges from [->; <-]
  expect_equal_paths(c, "general, bidirectional encoder");
}

// Configurations without a fused op run the step loop both times: still equal.
TEST(Accelerations, OtherConfigurationsRunTheStepLoop) {
  expect_equal_paths(base(ModelKind::noattn), "noattn");
  for (const ScoreSpec& e : attention_scores()) {
    if (e.fused) continue;
    const AttentionScore score = e.score;
    ModelConfig c = base(ModelKind::luong);
    c.score = score;
    expect_equal_paths(c, std::string(enum_name(score)));
  }
  ModelConfig c = base(ModelKind::luong);
  c.local_p = true;
  c.window = 2;
  expect_equal_paths(c, "local-p");
}

}  // namespace
}  // namespace heed
