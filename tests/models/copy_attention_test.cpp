// Copy attention (model.copy, models/pointer_generator.h): gradients of every parameter
// through the copy loss (double precision, tiny sizes), the step's extended distribution
// against teacher forcing, p_gen's parameters and the refusals.
#include <gtest/gtest.h>

#include <cmath>

#include "heed/autograd/copy_loss_op.h"
#include "heed/autograd/tape.h"
#include "heed/models/model_registry.h"
#include "heed/models/pointer_generator.h"
#include "support/gradcheck.h"
#include "support/tiny_models.h"
#include "support/token_batches.h"

namespace heed {
namespace {

using testing::all_close;
using testing::gradcheck;
using testing::tiny_config;

// Three sentences (tgt_vocab 9): their copy maps hold extended ids 9 and 10 (two words the
// target vocabulary lacks), and their targets copy them.
TokenBatch source() {
  TokenBatch b = testing::padded_batch(5, {{4, 5, 6}, {7, 4, 5, 8, 4}, {6, 9}});
  b.copy_ids = {4, 9, 5, 0, 0,  //
                7, 4, 9, 10, 4,  //
                6, 9, 0, 0, 0};
  b.extended = 2;
  return b;
}
const TokenBatch kTgt = testing::padded_batch(4, {{kBos, 5, kUnk, 4}, {kBos, kUnk}, {kBos, kUnk, 8}});
const std::vector<std::int32_t> kTgtOut = {5, 9, 4, kEos, 10, kEos, kPad, kPad, 9, 8, kEos, kPad};

ModelConfig copy_config(const std::string& kind) {
  ModelConfig c = tiny_config(kind);
  c.copy = true;
  return c;
}

std::unique_ptr<Seq2Seq> build(const ModelConfig& c) {
  Rng rng(5);
  auto m = make_model(c, rng, DType::f64);
  m->eval();
  return m;
}

Var loss(const Seq2Seq& model, const TokenBatch& src) {
  const CopyOutputs o = model.forward_copy(src, kTgt);
  return copy_loss_with_count(o.logits, o.gate, o.alpha, copy_ids_of_rows(src, kTgt),
                              pack_targets(kTgtOut, kTgt), src.extended, kPad)
      .loss;
}

// Probabilities rather than their logs: an extended id a sentence lacks has log P = -inf.
Tensor probs(const Tensor& log_p) {
  std::vector<double> v = log_p.to_vector();
  for (double& x : v) x = std::exp(x);
  return Tensor::from(log_p.shape(), v, DType::f64);
}

class CopyModel : public ::testing::TestWithParam<std::string> {};

TEST_P(CopyModel, GradientsOfEveryParameter) {
  auto model = build(copy_config(GetParam()));
  const TokenBatch src = source();
  EXPECT_TRUE(gradcheck([&] { return loss(*model, src); }, model->parameters()));
}

TEST_P(CopyModel, StepGivesTheExtendedDistributionOfTeacherForcing) {
  auto model = build(copy_config(GetParam()));
  const TokenBatch src = source();
  NoGradGuard no_grad;
  const CopyOutputs o = model->forward_copy(src, kTgt);
  const std::vector<std::int32_t> ids = copy_ids_of_rows(src, kTgt);
  const Tensor want = copy_log_probs(o.logits.value(), o.gate.value(), o.alpha.value(), ids, 2);
  Encoded enc = model->encode(src);
  DecoderState state = model->initial_state(enc);
  const std::vector<std::int64_t> rows = target_rows(kTgt);
  for (std::int64_t t = 0; t < kTgt.len; ++t) {
    std::vector<std::int32_t> y;
    // The previous targets over the extended vocabulary: the step reads 9 and 10 as UNK.
    for (std::int64_t b = 0; b < kTgt.batch; ++b)
      y.push_back(t == 0 ? kBos : kTgtOut[static_cast<std::size_t>(b * kTgt.len + t - 1)]);
    StepOutput s = model->step(y, state, enc);
    ASSERT_EQ(s.logits.value().shape(), Shape({3, 9 + 2}));
    ASSERT_TRUE(s.p_gen.defined());
    for (std::size_t r = 0; r < rows.size(); ++r) {
      if (rows[r] % kTgt.len != t) continue;
      const std::int64_t b = rows[r] / kTgt.len;
      EXPECT_TRUE(all_close(probs(s.logits.value().select(0, b).contiguous()),
                            probs(want.select(0, static_cast<std::int64_t>(r)).contiguous()),
                            1e-12, 1e-10))
          << "t " << t << ", sentence " << b;
      const double gate = o.gate.value().at({static_cast<std::int64_t>(r)});
      EXPECT_NEAR(s.p_gen.value().at({b}), 1 / (1 + std::exp(-gate)), 1e-12);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Models, CopyModel, ::testing::Values("bahdanau", "luong", "transformer"));

TEST(CopyAttention, TheGateIsTheLastParameterUnderPyTorchsName) {
  for (const char* kind : {"bahdanau", "luong", "transformer"}) {
    auto model = build(copy_config(kind));
    const auto named = model->named_parameters();
    ASSERT_GE(named.size(), 2u);
    EXPECT_EQ(named[named.size() - 2].first, "p_gen.weight");
    EXPECT_EQ(named.back().first, "p_gen.bias");
    const ModelConfig c = copy_config(kind);
    // bahdanau: [s; c; e] = dec_hidden + 2 enc_hidden + emb_dim; luong: h~ = dec_hidden;
    // transformer: the decoder's output, d_model.
    const std::string k = kind;
    const std::int64_t F = k == "bahdanau"      ? c.dec_hidden + c.annotation_dim() + c.emb_dim
                           : k == "transformer" ? c.transformer.d_model
                                                : c.dec_hidden;
    EXPECT_EQ(named[named.size() - 2].second.value().shape(), Shape({1, F})) << kind;
    EXPECT_EQ(named.back().second.value().shape(), Shape({1})) << kind;
    // Without copy, the same model has no gate.
    EXPECT_THROW(build(tiny_config(kind))->parameter("p_gen.weight"), Error);
  }
}

TEST(CopyAttention, AnExtendedWordIsReadBackAsUnk) {
  auto model = build(copy_config("bahdanau"));
  const TokenBatch src = source();
  NoGradGuard no_grad;
  Encoded enc = model->encode(src);
  DecoderState a = model->initial_state(enc), b = model->initial_state(enc);
  const std::vector<std::int32_t> copied = {9, 10, 4}, unk = {kUnk, kUnk, 4};
  EXPECT_TRUE(all_close(probs(model->step(copied, a, enc).logits.value()),
                        probs(model->step(unk, b, enc).logits.value()), 0, 0));
  DecoderState c = model->initial_state(enc);
  const std::vector<std::int32_t> past = {11, 4, 4};  // past the 2 extended words
  EXPECT_THROW(model->step(past, c, enc), Error);
}

TEST(CopyAttention, RefusesWhatItCannotWorkWith) {
  auto refuses = [](ModelConfig c, const std::string& words) {
    try {
      validate_model_config(c);
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
      return;
    }
    ADD_FAILURE() << "accepted: " << words;
  };
  refuses(copy_config("noattn"), "needs a text model that attends");
  ModelConfig hard = copy_config("bahdanau");
  hard.attention_mode = AttentionMode::hard;
  refuses(hard, "model.attention.mode hard is not supported");
  ModelConfig tied = copy_config("bahdanau");
  tied.out_dim = tied.emb_dim;
  tied.tie_embeddings = true;
  refuses(tied, "model.tie_embeddings");
  // A copy model needs its source's copy map; a plain model has no forward_copy.
  auto model = build(copy_config("bahdanau"));
  TokenBatch plain = testing::padded_batch(5, {{4, 5, 6}, {7, 4, 5, 8, 4}, {6, 9}});
  EXPECT_THROW(model->encode(plain), Error);
  TokenBatch wrong = source();
  wrong.copy_ids[3] = 11;  // past V + extended
  EXPECT_THROW(model->encode(wrong), Error);
  EXPECT_THROW(build(tiny_config("bahdanau"))->forward_copy(source(), kTgt), Error);
}

}  // namespace
}  // namespace heed
