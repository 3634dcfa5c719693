// Hard attention as a model choice (model.attention.mode: hard, docs/MODELS.md#hard-attention):
// the decoders sample through the model's Rng in training and record what REINFORCE needs,
// decline their fused ops, decode with the argmax or the soft context, and soft models are
// untouched (no random draws, no trace).
#include <gtest/gtest.h>

#include "heed/autograd/cross_entropy_op.h"
#include "heed/autograd/elementwise_op.h"
#include "heed/autograd/tape.h"
#include "heed/models/encoder_decoder.h"
#include "heed/models/model_registry.h"
#include "heed/train/reinforce.h"
#include "support/gradcheck.h"
#include "support/token_batches.h"

namespace heed {
namespace {

using testing::all_close;
using testing::padded_batch;

const TokenBatch kSrc = padded_batch(5, {{4, 5, 6}, {7, 4, 5, 8, 4}, {6, 9}});
const TokenBatch kTgt = padded_batch(4, {{kBos, 5, 6, 4}, {kBos, 7}, {kBos, 4, 8}});
const std::vector<std::int32_t> kTgtOut = {5, 6, 4, kEos, 7, kEos, kPad, kPad, 4, 8, kEos, kPad};

ModelConfig base(ModelKind kind, AttentionMode mode) {
  ModelConfig c;
  c.kind = kind;
  c.src_vocab = 10;
  c.tgt_vocab = 9;
  c.emb_dim = 4;
  c.enc_hidden = 3;
  c.dec_hidden = 6;
  if (kind == ModelKind::luong) {
    c.enc_hidden = 6;
    c.bidirectional = false;
    c.score = AttentionScore::general;  // a score with a fused op
  }
  c.attention_mode = mode;
  return c;
}

std::unique_ptr<Seq2Seq> build(const ModelConfig& c, std::uint64_t seed = 7) {
  Rng rng(seed);
  return make_model(c, rng, DType::f64);
}

Tensor eval_logits(Seq2Seq& model, bool accelerated) {
  dynamic_cast<EncoderDecoder&>(model).set_accelerations(accelerated);
  model.eval();
  NoGradGuard g;
  return model.forward(kSrc, kTgt).value().clone();
}

const ModelConfig kConfigs[] = {base(ModelKind::bahdanau, AttentionMode::hard),
                                base(ModelKind::luong, AttentionMode::hard)};

TEST(HardAttentionModel, DeclinesTheFusedOps) {
  for (const ModelConfig& c : kConfigs) {
    const std::string what(enum_name(c.kind));
    auto hard = build(c);
    ModelConfig s = c;
    s.attention_mode = AttentionMode::soft;
    auto soft = build(s);
    const Tensor with = eval_logits(*hard, true), without = eval_logits(*hard, false);
    // The fused ops compute soft attention: had one run, "with" would equal the soft model.
    EXPECT_TRUE(all_close(with, without, 0, 0)) << what;
    EXPECT_FALSE(all_close(with, eval_logits(*soft, true), 1e-9, 1e-9)) << what;
  }
}

TEST(HardAttentionModel, ExpectationDecodingIsTheSoftModel) {
  for (ModelConfig c : kConfigs) {
    c.hard_eval = HardEval::expectation;
    ModelConfig s = c;
    s.attention_mode = AttentionMode::soft;
    // Same seed, same parameters: the mode adds none.
    auto hard = build(c), soft = build(s);
    EXPECT_TRUE(all_close(eval_logits(*hard, false), eval_logits(*soft, false), 0, 0))
        << enum_name(c.kind);
  }
}

TEST(HardAttentionModel, StepReturnsTheWeightsAndReadsTheArgmax) {
  // Bahdanau attends before its first step from s_0 alone: alpha_1 is the soft model's.
  ModelConfig c = base(ModelKind::bahdanau, AttentionMode::hard), s = c;
  s.attention_mode = AttentionMode::soft;
  auto hard = build(c), soft = build(s);
  hard->eval();
  soft->eval();
  NoGradGuard g;
  Encoded eh = hard->encode(kSrc), es = soft->encode(kSrc);
  DecoderState sh = hard->initial_state(eh), ss = soft->initial_state(es);
  const std::vector<std::int32_t> bos(3, kBos);
  StepOutput oh = hard->step(bos, sh, eh), os = soft->step(bos, ss, es);
  ASSERT_TRUE(oh.alpha.defined());
  EXPECT_TRUE(all_close(oh.alpha.value(), os.alpha.value(), 0, 0));
  // The state after the step is the GRU's on [e; h_argmax]: it differs from the soft one.
  EXPECT_FALSE(all_close(sh.parts[0].value(), ss.parts[0].value(), 1e-9, 1e-9));
}

struct TrainRun {
  Tensor logits;
  std::vector<Tensor> log_probs;
  std::vector<Tensor> grads;
};

// One teacher-forced training pass with the REINFORCE loss, samples drawn from Rng(seed).
TrainRun train_pass(Seq2Seq& model, std::uint64_t seed, bool accelerated = true) {
  dynamic_cast<EncoderDecoder&>(model).set_accelerations(accelerated);
  model.train();
  model.zero_grad();
  Rng rng(seed);
  HardAttentionTrace trace;
  model.set_rng(&rng);
  model.set_hard_attention_trace(&trace);
  Var logits = model.forward_packed(kSrc, kTgt);
  const std::vector<std::int32_t> targets = pack_targets(kTgtOut, kTgt);
  CrossEntropyResult ce = cross_entropy_with_count(logits, targets, kPad);
  ReinforceBaseline baseline;
  ReinforceOptions o;
  o.entropy_weight = 0.01;
  Var loss = add(ce.loss, reinforce_loss(trace, sentence_nll(logits.value(), targets, kTgt.lengths),
                                          kTgt.lengths, static_cast<double>(ce.count), o,
                                          baseline));
  Tape::current().backward(loss);
  TrainRun r;
  r.logits = logits.value().clone();
  for (const Var& lp : trace.log_prob) r.log_probs.push_back(lp.value().clone());
  for (const Var& p : model.parameters()) r.grads.push_back(p.grad().clone());
  model.set_hard_attention_trace(nullptr);
  model.set_rng(nullptr);
  return r;
}

TEST(HardAttentionModel, TrainingSamplesRepeatWithTheSeedAndTrainTheScores) {
  for (ModelConfig c : {kConfigs[0], kConfigs[1], [] {
         ModelConfig l = base(ModelKind::luong, AttentionMode::hard);
         l.local_p = true;
         l.window = 1;
         return l;
       }()}) {
    const std::string what = std::string(enum_name(c.kind)) + (c.local_p ? " local-p" : "");
    auto model = build(c);
    const TrainRun a = train_pass(*model, 5), b = train_pass(*model, 5, /*accelerated=*/false);
    ASSERT_EQ(a.log_probs.size(), static_cast<std::size_t>(kTgt.len)) << what;  // one per step
    EXPECT_TRUE(all_close(a.logits, b.logits, 0, 0)) << what;
    for (std::size_t t = 0; t < a.log_probs.size(); ++t)
      EXPECT_TRUE(all_close(a.log_probs[t], b.log_probs[t], 0, 0)) << what;
    for (std::size_t i = 0; i < a.grads.size(); ++i)
      EXPECT_TRUE(all_close(a.grads[i], b.grads[i], 0, 0)) << what;
    // Another seed draws other positions somewhere in 4 steps x 3 sentences.
    bool differs = false;
    for (std::uint64_t seed : {6, 7, 8}) {
      const TrainRun o = train_pass(*model, seed);
      for (std::size_t t = 0; t < o.log_probs.size(); ++t)
        differs = differs || !all_close(o.log_probs[t], a.log_probs[t], 0, 0);
    }
    EXPECT_TRUE(differs) << what;
    // REINFORCE reaches the score's parameters (the sampled context passes them nothing).
    const auto names = model->named_parameters();
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (names[i].first.rfind("attention.", 0) != 0) continue;
      double norm = 0;
      const Tensor& g = a.grads[i];
      for (std::int64_t k = 0; k < g.numel(); ++k) norm += std::abs(g.data<double>()[k]);
      EXPECT_GT(norm, 0.0) << what << ": " << names[i].first;
    }
  }
}

TEST(HardAttentionModel, SoftTrainingDrawsNothingAndRecordsNothing) {
  for (ModelConfig c : kConfigs) {
    c.attention_mode = AttentionMode::soft;
    auto model = build(c);
    model->train();
    Rng rng(5);
    const std::string before = rng.state();
    HardAttentionTrace trace;
    model->set_rng(&rng);
    model->set_hard_attention_trace(&trace);
    model->forward(kSrc, kTgt);
    EXPECT_EQ(rng.state(), before) << enum_name(c.kind);
    EXPECT_TRUE(trace.log_prob.empty()) << enum_name(c.kind);
    model->set_hard_attention_trace(nullptr);
  }
}

// training.hard_soft_mix: a batch that reads the soft expectation trains exactly as the soft
// model does (same parameters, same logits), draws nothing and records nothing; switched off
// again, the model samples.
TEST(HardAttentionModel, ExpectationBatchesTrainAsTheSoftModel) {
  for (const ModelConfig& c : kConfigs) {
    const std::string what(enum_name(c.kind));
    ModelConfig s = c;
    s.attention_mode = AttentionMode::soft;
    auto hard = build(c), soft = build(s);
    Rng rng(5), unused(5);
    const std::string before = rng.state();
    HardAttentionTrace trace;
    hard->train();
    hard->set_rng(&rng);
    hard->set_hard_attention_trace(&trace);
    hard->set_hard_attention_expectation(true);
    soft->train();
    soft->set_rng(&unused);
    dynamic_cast<EncoderDecoder&>(*hard).set_accelerations(false);
    dynamic_cast<EncoderDecoder&>(*soft).set_accelerations(false);
    const Tensor mixed = hard->forward(kSrc, kTgt).value().clone();
    EXPECT_TRUE(all_close(mixed, soft->forward(kSrc, kTgt).value(), 0, 0)) << what;
    EXPECT_EQ(rng.state(), before) << what;
    EXPECT_TRUE(trace.log_prob.empty()) << what;
    hard->set_hard_attention_expectation(false);
    hard->forward(kSrc, kTgt);
    EXPECT_NE(rng.state(), before) << what;
    EXPECT_EQ(trace.log_prob.size(), static_cast<std::size_t>(kTgt.len)) << what;
    hard->set_hard_attention_trace(nullptr);
    hard->set_rng(nullptr);
    soft->set_rng(nullptr);
  }
}

TEST(HardAttentionModel, NoAttentionRefusesHard) {
  ModelConfig c = base(ModelKind::noattn, AttentionMode::hard);
  try {
    validate_model_config(c);
    FAIL() << "noattn with hard attention was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("model.attention.mode"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace heed
