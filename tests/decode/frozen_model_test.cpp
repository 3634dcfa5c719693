// FrozenModel and the model's precision: decoding's packed weights are objects kept with the
// parameters and handed to the products that use them; training's bf16 precision is the
// model's compute type (models/compute_type.h), which its passes hand to every op. Neither is
// a mode of the process: a product runs packed or in bf16 only when its model passed the
// handle or the precision.
#include "heed/decode/frozen_model.h"

#include <gtest/gtest.h>

#include <thread>
#include "support/bf16.h"

#include "decode/fake_model.h"
#include "heed/autograd/cross_entropy_op.h"
#include "heed/autograd/tape.h"
#include "heed/base/error.h"
#include "heed/decode/greedy.h"
#include "heed/kernels/bf16_products.h"
#include "heed/kernels/gemm.h"
#include "heed/kernels/packed_weight.h"
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
    c.bidirectional = true;
    c.enc_layers = c.dec_layers = 2;
  }
  return c;
}

std::vector<ModelConfig> configs() { return {small("bahdanau", "mlp"), small("luong", "general")}; }

const std::vector<std::vector<std::int32_t>> kSrc = {{4, 5, 6, 7, 8}, {9, 10}, {11, 12, 4, 6}};
const std::vector<std::vector<std::int32_t>> kTgtIn = {{kBos, 3, 4}, {kBos, 5, 6}, {kBos, 7, 8}};
const std::vector<std::int32_t> kTgtOut = {3, 4, kEos, 5, 6, kEos, 7, 8, kEos};

// One thread: every product runs on this thread, so its counters see all of them.
class OneThread : public ::testing::Test {
 protected:
  void SetUp() override {
    before_ = kernels::num_threads();
    kernels::set_num_threads(1);
  }
  void TearDown() override { kernels::set_num_threads(before_); }

 private:
  int before_ = 1;
};

using FrozenModelTest = OneThread;
using TrainingPrecision = OneThread;

std::size_t attached(const Seq2Seq& model) {
  std::size_t n = 0;
  for (const Var& w : model.weights()) n += w.packed_handle() != nullptr;
  return n;
}

TEST_F(FrozenModelTest, AttachesAHandleToEveryWeightWhileItLives) {
  Rng rng(3);
  auto model = make_model(configs()[0], rng, DType::f32);
  EXPECT_EQ(attached(*model), 0u);
  {
    FrozenModel outer(*model);  // the model's decoding precision: fp32
    EXPECT_EQ(attached(*model), model->weights().size());
    // While gradients are recorded the ops do not see the handles (a saliency pass on this
    // thread computes with the weights themselves); decoding, without gradients, does.
    EXPECT_EQ(model->weights()[0].packed(), nullptr);
    NoGradGuard no_grad;
    for (const Var& w : model->weights()) {
      EXPECT_EQ(w.packed()->data(), w.value().data<float>());
      EXPECT_EQ(w.packed()->precision(), kernels::MatmulPrecision::f32);
    }
    const kernels::PackedWeight* first = model->weights()[0].packed();
    {
      FrozenModel inner(*model);  // shares the handles
      EXPECT_EQ(model->weights()[0].packed(), first);
    }
    EXPECT_EQ(model->weights()[0].packed(), first);  // the outer one still holds them
    model->set_compute_type({.decoding = kernels::MatmulPrecision::bf16});  // while frozen
    EXPECT_THROW(FrozenModel{*model}, Error);
    model->set_compute_type({});
    EXPECT_EQ(attached(*model), model->weights().size());
  }
  EXPECT_EQ(attached(*model), 0u);  // detached with the last one
}

// A pass outside any FrozenModel (the forced alignment that saliency runs beside decodings
// on other threads) must not see handles another thread holds: that thread may detach and
// free them in the middle of the pass (found as heap corruption by the API's thread test).
TEST_F(FrozenModelTest, OnlyAThreadThatHoldsTheWeightsSeesTheirHandles) {
  Rng rng(3);
  auto model = make_model(configs()[0], rng, DType::f32);
  FrozenModel here(*model);
  const kernels::PackedWeight* mine = nullptr;
  {
    NoGradGuard no_grad;
    mine = model->weights()[0].packed();
  }
  ASSERT_NE(mine, nullptr);
  std::size_t seen_outside = 0, seen_inside = 0, seen_after = 0;
  const kernels::PackedWeight* shared = nullptr;
  std::thread other([&] {
    NoGradGuard no_grad;
    for (const Var& w : model->weights()) seen_outside += w.packed() != nullptr;
    {
      FrozenModel there(*model);
      for (const Var& w : model->weights()) seen_inside += w.packed() != nullptr;
      shared = model->weights()[0].packed();
    }
    for (const Var& w : model->weights()) seen_after += w.packed() != nullptr;
  });
  other.join();
  EXPECT_EQ(seen_outside, 0u);
  EXPECT_EQ(seen_inside, model->weights().size());
  EXPECT_EQ(shared, mine);  // the other thread's freeze shared this one's handles
  EXPECT_EQ(seen_after, 0u);
  NoGradGuard no_grad;
  EXPECT_EQ(model->weights()[0].packed(), mine);  // still held here
  EXPECT_EQ(attached(*model), model->weights().size());
}

TEST_F(FrozenModelTest, DecodingStepsRunOnThePackedWeightsAndAgreeWithThePlainPath) {
  for (const ModelConfig& c : configs()) {
    Rng rng(5);
    auto model = make_model(c, rng, DType::f32);
    model->eval();
    NoGradGuard ng;
    const TokenBatch src = make_batch(kSrc);
    const std::vector<std::int32_t> bos(kSrc.size(), kBos);
    auto first_step = [&] {
      Encoded enc = model->encode(src);
      DecoderState state = model->initial_state(enc);
      return model->step(bos, state, enc).logits.value().clone();
    };
    const std::size_t bf16_before = kernels::bf16_products_run_on_this_thread();
    const Tensor plain = first_step();
    EXPECT_TRUE(all_close(first_step(), plain, 0, 0)) << "the plain path is deterministic";
    EXPECT_EQ(kernels::bf16_products_run_on_this_thread(), bf16_before);
    for (const auto precision : {kernels::MatmulPrecision::f32, kernels::MatmulPrecision::bf16}) {
      model->set_compute_type({.decoding = precision});
      FrozenModel frozen(*model);
      const Tensor packed = first_step();
      if (precision == kernels::MatmulPrecision::bf16 && frozen.products() == 0) continue;
      EXPECT_GT(frozen.products(), 0u) << "no product ran on a packed weight";
      EXPECT_GT(frozen.packed(), 0u);
      // fp32: the same products summed in another order; bf16: inputs rounded (2^-8).
      const double tol = precision == kernels::MatmulPrecision::f32 ? 1e-5 : 3e-2;
      EXPECT_TRUE(all_close(packed, plain, tol, tol)) << kernels::matmul_precision_name(precision);
      // Decoding's bf16 is the packed weights' own: no training-style bf16 product ran.
      EXPECT_EQ(kernels::bf16_products_run_on_this_thread(), bf16_before);
    }
    EXPECT_TRUE(all_close(first_step(), plain, 0, 0)) << "unfrozen again: the plain path";
  }
}

// The Transformer: every weight it multiplies by while decoding (each layer's attention
// projections, the queries and the keys and values of the encoder-decoder attention among
// them, which read blocks of the stacked in_proj_weight; the feed-forward layers; the output
// layer) runs its products on the packed copy, at fp32 and at bf16.
TEST_F(FrozenModelTest, EveryProductOfTheTransformerRunsOnItsPackedWeight) {
  ModelConfig c;
  c.kind = ModelKind::transformer;
  c.src_vocab = 13;
  c.tgt_vocab = 11;
  c.transformer.d_model = 16;
  c.transformer.heads = 2;
  c.transformer.ff_dim = 32;
  c.enc_layers = c.dec_layers = 2;
  for (const auto precision : {kernels::MatmulPrecision::f32, kernels::MatmulPrecision::bf16}) {
    if (precision == kernels::MatmulPrecision::bf16 && !kernels::bf16_products_available())
      continue;
    Rng rng(5);
    auto model = make_model(c, rng, DType::f32);
    model->eval();
    model->set_compute_type({.decoding = precision});
    DecodeOptions o;
    o.max_len = 6;
    FrozenModel frozen(*model);
    greedy_decode(*model, make_batch(kSrc), o);
    NoGradGuard no_grad;
    std::size_t products = 0;
    for (auto& [name, w] : model->named_parameters()) {
      if (w.value().ndim() != 2 || name.find("_emb.") != std::string::npos) continue;
      ASSERT_NE(w.packed(), nullptr) << name;
      EXPECT_GT(w.packed()->products(), 0u) << name << " ran no product on its packed copy ("
                                            << kernels::matmul_precision_name(precision) << ")";
      products += w.packed()->products();
    }
    EXPECT_EQ(frozen.products(), products);
  }
}

TEST_F(FrozenModelTest, GreedyDecodingGivesTheSameTokensFrozenOnceOrPerCall) {
  Rng rng(9);
  auto model = make_model(configs()[1], rng, DType::f32);
  model->eval();
  DecodeOptions o;
  o.max_len = 6;
  const TokenBatch src = make_batch(kSrc);
  const DecodeResult per_call = greedy_decode(*model, src, o);
  FrozenModel frozen(*model);
  const DecodeResult once = greedy_decode(*model, src, o);
  EXPECT_GT(frozen.products(), 0u);
  for (std::size_t s = 0; s < kSrc.size(); ++s) {
    EXPECT_EQ(once.best(s).tokens, per_call.best(s).tokens);
    EXPECT_EQ(once.best(s).raw_score, per_call.best(s).raw_score);
  }
}

// forward_packed + loss + backward at a precision: the loss, the gradients, and how many bf16
// products ran on this thread.
struct TrainStep {
  double loss = 0;
  std::vector<Tensor> grads;
  std::size_t bf16_products = 0;
};

TrainStep train_step(Seq2Seq& model, kernels::MatmulPrecision precision) {
  model.set_compute_type({.training = precision});
  model.zero_grad();
  const std::size_t before = kernels::bf16_products_run_on_this_thread();
  TrainStep r;
  Var logits = model.forward_packed(make_batch(kSrc), make_batch(kTgtIn));
  Var loss = cross_entropy(logits, kTgtOut, kPad);
  r.loss = loss.value().item();
  Tape::current().backward(loss);
  for (const Var& p : model.parameters()) r.grads.push_back(p.grad().clone());
  r.bf16_products = kernels::bf16_products_run_on_this_thread() - before;
  return r;
}

TEST_F(TrainingPrecision, Bf16RunsOnlyWhenPassedAndFp32StaysExact) {
  HEED_SKIP_WITHOUT_BF16();
  kernels::require_bf16_products();
  for (const ModelConfig& c : configs()) {
    Rng rng(11);
    auto model = make_model(c, rng, DType::f32);
    model->train();
    const TrainStep fp32 = train_step(*model, kernels::MatmulPrecision::f32);
    const TrainStep again = train_step(*model, kernels::MatmulPrecision::f32);
    EXPECT_EQ(fp32.bf16_products, 0u) << "fp32 training ran a bf16 product";
    EXPECT_EQ(fp32.loss, again.loss);
    const TrainStep bf16 = train_step(*model, kernels::MatmulPrecision::bf16);
    EXPECT_GT(bf16.bf16_products, 0u);
    EXPECT_NE(bf16.loss, fp32.loss) << "bf16 asked for, but the products were not rounded";
    EXPECT_NEAR(bf16.loss, fp32.loss, 2e-2 * std::abs(fp32.loss));
    // A bf16 step leaves nothing behind: the next fp32 step is exactly the first.
    const TrainStep after = train_step(*model, kernels::MatmulPrecision::f32);
    EXPECT_EQ(after.bf16_products, 0u);
    EXPECT_EQ(after.loss, fp32.loss);
    for (std::size_t i = 0; i < fp32.grads.size(); ++i)
      EXPECT_TRUE(all_close(after.grads[i], fp32.grads[i], 0, 0)) << "parameter " << i;
  }
}

// The model's training precision is its training passes' only: the same model in evaluation
// mode (validation) runs fp32 products, and decoding's are those of its packed weights.
TEST_F(TrainingPrecision, TheModelsTrainingPrecisionRunsOnlyInTrainingMode) {
  HEED_SKIP_WITHOUT_BF16();
  Rng rng(17);
  auto model = make_model(configs()[0], rng, DType::f32);
  model->set_compute_type({.training = kernels::MatmulPrecision::bf16});
  NoGradGuard no_grad;
  const std::size_t start = kernels::bf16_products_run_on_this_thread();
  model->eval();
  const Tensor eval = model->forward_packed(make_batch(kSrc), make_batch(kTgtIn)).value().clone();
  EXPECT_EQ(kernels::bf16_products_run_on_this_thread(), start) << "evaluation ran bf16";
  model->set_compute_type({});
  EXPECT_TRUE(all_close(model->forward_packed(make_batch(kSrc), make_batch(kTgtIn)).value(),
                        eval, 0, 0));
  model->set_compute_type({.training = kernels::MatmulPrecision::bf16});
  model->train();
  model->forward_packed(make_batch(kSrc), make_batch(kTgtIn));
  EXPECT_GT(kernels::bf16_products_run_on_this_thread(), start);
}

TEST_F(TrainingPrecision, TheBackwardPassKeepsThePrecisionOfItsForward) {
  HEED_SKIP_WITHOUT_BF16();
  // bf16 forward, backward: the backward products are bf16 too (more bf16 products than the
  // forward pass alone runs).
  Rng rng(13);
  auto model = make_model(configs()[0], rng, DType::f32);
  model->train();
  model->set_compute_type({.training = kernels::MatmulPrecision::bf16});
  model->zero_grad();
  const std::size_t start = kernels::bf16_products_run_on_this_thread();
  Var logits = model->forward_packed(make_batch(kSrc), make_batch(kTgtIn));
  Var loss = cross_entropy(logits, kTgtOut, kPad);
  const std::size_t forward = kernels::bf16_products_run_on_this_thread() - start;
  Tape::current().backward(loss);
  const std::size_t total = kernels::bf16_products_run_on_this_thread() - start;
  EXPECT_GT(forward, 0u);
  EXPECT_GT(total, forward);
}

}  // namespace
}  // namespace heed::testing
