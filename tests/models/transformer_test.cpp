// The Transformer's own tests (the cases of model_test.cpp cover its gradients, step() against
// teacher forcing and padding): parameter names as PyTorch's nn.Transformer lays them out,
// the incremental cache, causality, the attention output and the kind's checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "heed/autograd/cross_entropy_op.h"
#include "heed/autograd/tape.h"
#include "heed/models/model_registry.h"
#include "heed/models/transformer_layers.h"
#include "support/gradcheck.h"
#include "support/tiny_models.h"
#include "support/token_batches.h"

namespace heed {
namespace {

using testing::all_close;
using testing::tiny_config;

const TokenBatch kSrc = testing::padded_batch(5, {{4, 5, 6}, {7, 4, 5, 8, 4}, {6, 9}});
const TokenBatch kTgt = testing::padded_batch(4, {{kBos, 5, 6, 4}, {kBos, 7}, {kBos, 4, 8}});

std::unique_ptr<Seq2Seq> build(const ModelConfig& c) {
  Rng rng(11);
  auto m = make_model(c, rng, DType::f64);
  m->eval();
  return m;
}

TEST(Transformer, ParametersUnderPyTorchNames) {
  ModelConfig c = tiny_config("transformer");
  c.enc_layers = c.dec_layers = 1;
  c.transformer.positions = PositionEncoding::learned;
  std::vector<std::string> names;
  for (auto& [n, _] : build(c)->named_parameters()) names.push_back(n);
  const std::vector<std::string> attention = {"in_proj_weight", "in_proj_bias", "out_proj.weight",
                                              "out_proj.bias"};
  std::vector<std::string> want = {"src_emb.weight", "tgt_emb.weight", "src_pos.weight"};
  for (const auto& a : attention) want.push_back("encoder.layers.0.self_attn." + a);
  for (const char* p : {"linear1", "linear2", "norm1", "norm2"})
    for (const char* w : {"weight", "bias"})
      want.push_back(std::string("encoder.layers.0.") + p + "." + w);
  want.insert(want.end(), {"encoder.norm.weight", "encoder.norm.bias", "tgt_pos.weight"});
  for (const auto& a : attention) want.push_back("decoder.layers.0.self_attn." + a);
  for (const auto& a : attention) want.push_back("decoder.layers.0.multihead_attn." + a);
  for (const char* p : {"linear1", "linear2", "norm1", "norm2", "norm3"})
    for (const char* w : {"weight", "bias"})
      want.push_back(std::string("decoder.layers.0.") + p + "." + w);
  want.insert(want.end(), {"decoder.norm.weight", "decoder.norm.bias", "W_s.weight", "W_s.bias"});
  EXPECT_EQ(names, want);
}

// model.share_embeddings: one table, registered once as the encoder's src_emb.weight, read by
// the encoder and the decoder (and, tied, the output layer).
TEST(Transformer, SharedEmbeddingsAreOneTable) {
  ModelConfig c = tiny_config("transformer");
  c.tgt_vocab = c.src_vocab;
  c.transformer.share_embeddings = true;
  auto model = build(c);
  std::vector<std::string> names;
  for (auto& [n, _] : model->named_parameters()) names.push_back(n);
  EXPECT_EQ(names.front(), "src_emb.weight");
  EXPECT_EQ(std::count(names.begin(), names.end(), "src_emb.weight"), 1);
  EXPECT_EQ(std::count(names.begin(), names.end(), "tgt_emb.weight"), 0);
  EXPECT_EQ(std::count(names.begin(), names.end(), "W_s.weight"), 1);  // not tied
  ModelConfig separate = c;
  separate.transformer.share_embeddings = false;
  EXPECT_EQ(build(separate)->named_parameters().size(), names.size() + 1);

  // The first pair reads row 4 on the source side only, the second row 5 on the target side
  // only: a change to either row of the one table moves the logits of the pair that reads it,
  // through the encoder and through the decoder.
  Var table = model->parameter("src_emb.weight");
  NoGradGuard no_grad;
  const TokenBatch src_only = testing::padded_batch(2, {{4, 4}});
  const TokenBatch tgt = testing::padded_batch(2, {{kBos, 8}});
  const TokenBatch tgt_only = testing::padded_batch(2, {{kBos, 5}});
  const TokenBatch src = testing::padded_batch(2, {{6, 6}});
  const Tensor a = model->forward(src_only, tgt).value().clone();
  const Tensor b = model->forward(src, tgt_only).value().clone();
  double* w = table.mutable_value().data<double>();
  w[4 * c.transformer.d_model] += 1.0;
  w[5 * c.transformer.d_model] += 1.0;
  EXPECT_FALSE(all_close(model->forward(src_only, tgt).value(), a, 1e-9, 0));
  EXPECT_FALSE(all_close(model->forward(src, tgt_only).value(), b, 1e-9, 0));
  // Tied as well: the output layer's weight is the same table.
  c.tie_embeddings = true;
  auto tied = build(c);
  names.clear();
  for (auto& [n, _] : tied->named_parameters()) names.push_back(n);
  EXPECT_EQ(std::count(names.begin(), names.end(), "W_s.weight"), 0);
  EXPECT_EQ(std::count(names.begin(), names.end(), "W_s.bias"), 1);
}

// The gradient of the one table gathers what the source, the target and the output layer
// send it (tests/models/model_test.cpp's transformer_shared_tied checks every parameter).
TEST(Transformer, SharedTableGradientIsChecked) {
  ModelConfig c = tiny_config("transformer");
  c.tgt_vocab = c.src_vocab;
  c.transformer.share_embeddings = true;
  c.tie_embeddings = true;
  c.enc_layers = c.dec_layers = 1;
  auto model = build(c);
  const std::vector<std::int32_t> out = {5, 6, 4, kEos, 7, kEos, kPad, kPad, 4, 8, kEos, kPad};
  EXPECT_TRUE(testing::gradcheck(
      [&] { return cross_entropy(model->forward(kSrc, kTgt), out, kPad, 0.1); },
      {model->parameter("src_emb.weight")}));
}

TEST(Transformer, TheCacheGrowsByOnePositionAStep) {
  ModelConfig c = tiny_config("transformer");
  auto model = build(c);
  NoGradGuard no_grad;
  Encoded enc = model->encode(kSrc);
  EXPECT_EQ(enc.keys.shape(), Shape({3, 5, 2 * 4 * 2}));  // [K; V] of both layers
  DecoderState state = model->initial_state(enc);
  EXPECT_TRUE(state.parts.empty());
  ASSERT_EQ(state.caches.size(), 2u);  // one a layer
  for (std::int64_t t = 1; t <= 3; ++t) {
    StepOutput out = model->step(std::vector<std::int32_t>{kBos, 4, 5}, state, enc);
    for (const PositionCache& c : state.caches) {
      EXPECT_EQ(c.hypotheses(), 3);
      EXPECT_EQ(c.positions(), t);
      EXPECT_EQ(c.width(), 8);  // [K; V]
    }
    // The attention output: a distribution over each sentence's real source positions.
    for (std::int64_t b = 0; b < 3; ++b) {
      double sum = 0;
      for (std::int64_t j = 0; j < 5; ++j) {
        const double a = out.alpha.value().at({b, j});
        if (j >= kSrc.lengths[static_cast<std::size_t>(b)]) {
          EXPECT_EQ(a, 0.0);
        }
        sum += a;
      }
      EXPECT_NEAR(sum, 1.0, 1e-12);
    }
  }
}

// The sub-layers skip the padding (real_rows lists the real positions) once a tenth or more
// of the positions are padding; below that they run on the whole batch and no rows are listed.
TEST(Transformer, RealRowsOnlyFromATenthOfPadding) {
  EXPECT_EQ(real_rows(2, 3, {3, 2}), (std::vector<std::int64_t>{0, 1, 2, 3, 4}));  // 1 of 6
  EXPECT_TRUE(real_rows(2, 3, {3, 3}).empty());  // no padding
  EXPECT_TRUE(real_rows(2, 3, {3}).empty());     // not one length a row
  std::vector<std::int64_t> lengths(10, 10);
  lengths[3] = 9;  // 1 of 100
  EXPECT_TRUE(real_rows(10, 10, lengths).empty());
  lengths[3] = 0;  // 10 of 100
  EXPECT_EQ(real_rows(10, 10, lengths).size(), 90u);
}

// With less padding than that, training's packed logits are still the full forward's at the
// real positions (the padded positions are computed and then left out).
TEST(Transformer, ForwardPackedWithLittlePadding) {
  std::vector<std::vector<std::int32_t>> src, tgt;
  for (std::int32_t i = 0; i < 12; ++i) {
    src.push_back({4 + i % 5, 5, 6 + i % 3, 7});
    tgt.push_back({kBos, 5 + i % 4, 6, 4});
  }
  src[5].pop_back();  // 1 of 48 source positions padding
  tgt[7].pop_back();  // 1 of 48 target positions
  const TokenBatch s = testing::padded_batch(4, src), t = testing::padded_batch(4, tgt);
  ASSERT_TRUE(real_rows(12, 4, s.lengths).empty());
  ASSERT_TRUE(real_rows(12, 4, t.lengths).empty());
  auto model = build(tiny_config("transformer"));
  NoGradGuard no_grad;
  const Tensor full = model->forward(s, t).value(), packed = model->forward_packed(s, t).value();
  const std::vector<std::int64_t> rows = target_rows(t);
  ASSERT_EQ(packed.dim(0), 47);
  for (std::size_t i = 0; i < rows.size(); ++i)
    EXPECT_TRUE(all_close(packed.select(0, static_cast<std::int64_t>(i)),
                          full.select(0, rows[i]), 1e-12, 1e-12)) << i;
}

TEST(Transformer, APositionReadsNoLaterTarget) {
  auto model = build(tiny_config("transformer"));
  NoGradGuard no_grad;
  TokenBatch changed = kTgt;
  changed.ids[3] = 7;  // the last target of sentence 0
  const Tensor a = model->forward(kSrc, kTgt).value(), b = model->forward(kSrc, changed).value();
  EXPECT_TRUE(all_close(a.slice(0, 0, 3), b.slice(0, 0, 3), 0, 0));
  EXPECT_FALSE(all_close(a.slice(0, 3, 4), b.slice(0, 3, 4), 1e-9, 0));
}

TEST(Transformer, TheAlignmentLayerAndHeadChooseTheAttention) {
  ModelConfig c = tiny_config("transformer");
  Tensor averaged, head1, head2, layer1;
  NoGradGuard no_grad;
  build(c)->forward(kSrc, kTgt, &averaged);
  c.transformer.alignment_head = 1;
  build(c)->forward(kSrc, kTgt, &head1);
  c.transformer.alignment_head = 2;
  build(c)->forward(kSrc, kTgt, &head2);
  c.transformer.alignment_head = 0;
  c.transformer.alignment_layer = 1;
  build(c)->forward(kSrc, kTgt, &layer1);
  Tensor mean = head1.clone();
  dispatch(DType::f64, [&]<typename T>() {
    for (std::int64_t i = 0; i < mean.numel(); ++i)
      mean.data<T>()[i] = (head1.data<T>()[i] + head2.data<T>()[i]) / 2;
  });
  EXPECT_TRUE(all_close(averaged, mean, 1e-14));
  EXPECT_FALSE(all_close(head1, head2, 1e-6));
  EXPECT_FALSE(all_close(layer1, averaged, 1e-6));
}

// attention_heads: every layer's heads of the three attentions, each row a distribution over
// the keys it may read (the real source positions; the target positions up to its own), and
// the last layer's encoder-decoder heads averaged are forward's attention output.
TEST(Transformer, AttentionHeadsGiveEveryLayerOfTheThreeAttentions) {
  ModelConfig c = tiny_config("transformer");
  auto model = build(c);
  NoGradGuard no_grad;
  const AttentionHeads heads = model->attention_heads(kSrc, kTgt);
  ASSERT_EQ(heads.cross.size(), static_cast<std::size_t>(c.dec_layers));
  ASSERT_EQ(heads.decoder_self.size(), static_cast<std::size_t>(c.dec_layers));
  ASSERT_EQ(heads.encoder_self.size(), static_cast<std::size_t>(c.enc_layers));
  const std::int64_t H = c.transformer.heads, B = 3, n = kTgt.len, m = kSrc.len;
  const auto check = [&](const Tensor& w, std::int64_t rows, std::int64_t cols, bool causal,
                         const std::vector<std::int64_t>& key_lengths) {
    ASSERT_EQ(w.shape(), Shape({B, H, rows, cols}));
    for (std::int64_t b = 0; b < B; ++b)
      for (std::int64_t h = 0; h < H; ++h)
        for (std::int64_t i = 0; i < rows; ++i) {
          double sum = 0;
          for (std::int64_t j = 0; j < cols; ++j) {
            const double a = w.at({b, h, i, j});
            if (j >= key_lengths[static_cast<std::size_t>(b)] || (causal && j > i)) {
              EXPECT_EQ(a, 0.0) << b << " " << h << " " << i << " " << j;
            }
            sum += a;
          }
          EXPECT_NEAR(sum, 1.0, 1e-12);
        }
  };
  for (const Tensor& w : heads.cross) check(w, n, m, false, kSrc.lengths);
  for (const Tensor& w : heads.encoder_self) check(w, m, m, false, kSrc.lengths);
  for (const Tensor& w : heads.decoder_self) check(w, n, n, true, {n, n, n});
  EXPECT_FALSE(all_close(heads.decoder_self[0], heads.decoder_self[1], 1e-6));
  Tensor alphas;
  model->forward(kSrc, kTgt, &alphas);
  const Tensor& last = heads.cross.back();
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < m; ++j) {
        double mean = 0;
        for (std::int64_t h = 0; h < H; ++h) mean += last.at({b, h, i, j}) / static_cast<double>(H);
        EXPECT_NEAR(alphas.at({b, i, j}), mean, 1e-14);
      }
  // A model with one attention has no heads.
  EXPECT_TRUE(build(tiny_config("bahdanau"))->attention_heads(kSrc, kTgt).empty());
}

TEST(Transformer, LearnedPositionsBoundTheSource) {
  ModelConfig c = tiny_config("transformer");
  EXPECT_EQ(max_source_length(c), 0);
  c.transformer.positions = PositionEncoding::learned;
  c.transformer.max_positions = 4;
  EXPECT_EQ(max_source_length(c), 4);
  auto model = build(c);
  NoGradGuard no_grad;
  EXPECT_THROW(model->forward(kSrc, kTgt), Error);  // a source of 5 positions
}

TEST(Transformer, ConfigValidation) {
  const auto refused = [](const ModelConfig& c, const std::string& words) {
    try {
      validate_model_config(c);
    } catch (const Error& e) {
      return std::string(e.what()).find(words) != std::string::npos
                 ? ::testing::AssertionSuccess()
                 : ::testing::AssertionFailure() << e.what();
    }
    return ::testing::AssertionFailure() << "accepted";
  };
  ModelConfig c = tiny_config("transformer");
  EXPECT_NO_THROW(validate_model_config(c));
  c.transformer.heads = 3;
  EXPECT_TRUE(refused(c, "model.heads (3) must divide model.d_model (4)"));
  c = tiny_config("transformer");
  c.enc_layers = 0;
  EXPECT_TRUE(refused(c, "model.enc_layers must be at least 1"));
  c = tiny_config("transformer");
  c.dec_layers = 0;
  EXPECT_TRUE(refused(c, "model.dec_layers must be at least 1"));
  c = tiny_config("transformer");
  c.transformer.ff_dim = 0;
  EXPECT_TRUE(refused(c, "model.ff_dim must be at least 1"));
  c = tiny_config("transformer");
  c.transformer.alignment_layer = 3;
  EXPECT_TRUE(refused(c, "model.alignment_layer must be a decoder layer"));
  c = tiny_config("transformer");
  c.transformer.alignment_head = 3;
  EXPECT_TRUE(refused(c, "model.alignment_head must be a head"));
  c = tiny_config("transformer");
  c.attention_mode = AttentionMode::hard;
  EXPECT_TRUE(refused(c, "the transformer's attention is soft"));
  c = tiny_config("transformer");  // src_vocab 10, tgt_vocab 9
  c.transformer.share_embeddings = true;
  EXPECT_TRUE(refused(c, "model.share_embeddings needs one vocabulary for both sides"));
  EXPECT_TRUE(refused(c, "got src_vocab 10 and tgt_vocab 9"));
  c.tgt_vocab = c.src_vocab;
  EXPECT_NO_THROW(validate_model_config(c));
}

TEST(Transformer, DropoutActsOnlyInTraining) {
  ModelConfig c = tiny_config("transformer");
  c.dropout = 0.3;
  auto model = build(c);
  Rng rng(3);
  model->set_rng(&rng);
  NoGradGuard no_grad;
  const Tensor eval = model->forward(kSrc, kTgt).value().clone();
  model->train();
  const Tensor train = model->forward(kSrc, kTgt).value();
  EXPECT_FALSE(all_close(train, eval, 1e-6));
  model->eval();
  EXPECT_TRUE(all_close(model->forward(kSrc, kTgt).value(), eval, 0, 0));
}

}  // namespace
}  // namespace heed
