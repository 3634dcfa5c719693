// model.kind image2seq (docs/MODELS.md#image-to-sequence): the image encoder's grid and its
// gradients, the kind's config checks, and decoding: greedy and beam search give an image the
// same words and attention alone as inside a batch.
#include <gtest/gtest.h>

#include "heed/autograd/reduce_op.h"
#include "heed/autograd/tape.h"
#include "heed/decode/beam_search.h"
#include "heed/decode/greedy.h"
#include "heed/kernels/gemm.h"
#include "heed/models/image_encoder.h"
#include "heed/models/model_registry.h"
#include "heed/translate/image_decoding.h"
#include "support/gradcheck.h"

namespace heed {
namespace {

using testing::gradcheck;
using testing::random_tensor;

ImageEncoderConfig small_cnn() {
  ImageEncoderConfig c;
  c.conv_layers = 2;
  c.conv_channels = 3;
  return c;
}

ModelConfig small_model(AttentionMode mode) {
  ModelConfig c;
  c.kind = ModelKind::image2seq;
  c.tgt_vocab = 9;
  c.emb_dim = 6;
  c.dec_hidden = 7;
  c.attn_dim = 5;
  c.attention_mode = mode;
  c.image = small_cnn();
  return c;
}

// B images of 1 x 12 x 8 pixels in [0, 1).
Tensor images(std::int64_t B, std::uint64_t seed, DType dtype) {
  return random_tensor({B, 1, 12, 8}, seed, 0.0, 1.0).to(dtype);
}

TEST(ImageEncoder, TheGridCellsAreTheAnnotationsInReadingOrder) {
  Rng rng(1);
  ImageEncoder enc(small_cnn(), 1, rng, DType::f64);
  EXPECT_EQ(enc.output_dim(), 6);  // 3 channels, doubled once
  EXPECT_EQ(image_grid(small_cnn(), 12, 8), (std::pair<std::int64_t, std::int64_t>{3, 2}));
  const TokenBatch src = image_source(images(2, 3, DType::f64), small_cnn());
  EXPECT_EQ(src.batch, 2);
  EXPECT_EQ(src.len, 6);
  EXPECT_EQ(src.lengths, (std::vector<std::int64_t>{6, 6}));
  NoGradGuard no_grad;
  const EncoderOutput out = enc.encode(src, RunMode{});
  EXPECT_EQ(out.annotations.shape(), Shape({2, 6, 6}));
  EXPECT_EQ(out.lengths, (std::vector<std::int64_t>{6, 6}));
  EXPECT_EQ(out.h_n.shape(), Shape({1, 2, 6}));
  // The final state is the mean annotation; every annotation is a ReLU's max, >= 0.
  for (std::int64_t b = 0; b < 2; ++b)
    for (std::int64_t c = 0; c < 6; ++c) {
      double sum = 0;
      for (std::int64_t i = 0; i < 6; ++i) {
        EXPECT_GE(out.annotations.value().at({b, i, c}), 0.0);
        sum += out.annotations.value().at({b, i, c});
      }
      EXPECT_NEAR(out.h_n.value().at({0, b, c}), sum / 6, 1e-12);
    }
}

TEST(ImageEncoder, GradientsOfTheConvolutionsInDoublePrecision) {
  Rng rng(2);
  ImageEncoder enc(small_cnn(), 1, rng, DType::f64);
  const TokenBatch src = image_source(images(2, 5, DType::f64), small_cnn());
  std::vector<Var> params;
  for (auto& [name, m] : enc.modules()) {
    EXPECT_EQ(name, "cnn");
    params = m->parameters();
  }
  ASSERT_EQ(params.size(), 4u);  // conv0 and conv1, weight and bias each
  EXPECT_TRUE(gradcheck([&] { return enc.encode(src, RunMode{}).annotations; }, params));
  EXPECT_TRUE(gradcheck([&] { return enc.encode(src, RunMode{}).h_n; }, params));
}

TEST(ImageEncoder, RefusesABatchWithoutImagesAndTooSmallImages) {
  Rng rng(3);
  ImageEncoder enc(small_cnn(), 1, rng, DType::f32);
  TokenBatch text;
  text.batch = 1;
  text.len = 6;
  text.ids.assign(6, kPad);
  text.lengths = {6};
  EXPECT_THROW(enc.encode(text, RunMode{}), Error);
  ImageEncoderConfig deep = small_cnn();
  deep.conv_layers = 4;  // 12 -> 6 -> 3 -> 1, then 8 -> 4 -> 2 -> 1 -> too small
  try {
    image_grid(deep, 12, 8);
    FAIL() << "a grid of 4 poolings of 12x8 images";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("model.conv_layers"), std::string::npos) << e.what();
  }
}

void expect_refused(const ModelConfig& c, const std::string& key) {
  try {
    validate_model_config(c);
    FAIL() << "accepted a config that should name " << key;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
  }
}

TEST(Image2Seq, ConfigValidation) {
  ModelConfig c = small_model(AttentionMode::soft);
  EXPECT_NO_THROW(validate_model_config(c));  // src_vocab 0: no source vocabulary
  c.score = AttentionScore::dot;
  expect_refused(c, "model.score");
  c = small_model(AttentionMode::soft);
  c.image.conv_layers = 9;
  expect_refused(c, "model.conv_layers");
  c = small_model(AttentionMode::soft);
  c.image.conv_channels = 0;
  expect_refused(c, "model.conv_channels");
  c = small_model(AttentionMode::soft);
  c.dec_layers = 2;
  expect_refused(c, "model.dec_layers");
  c = small_model(AttentionMode::soft);
  c.tgt_vocab = 3;
  expect_refused(c, "tgt_vocab");
  // Location features and coverage need attention (docs/MODELS.md#location-aware-attention).
  c = small_model(AttentionMode::none);
  c.coverage = true;
  expect_refused(c, "model.coverage");
  c = small_model(AttentionMode::none);
  c.location_filters = 2;
  expect_refused(c, "model.location_filters");
  c = small_model(AttentionMode::soft);
  c.location_filters = 2;
  c.location_width = 2;
  expect_refused(c, "model.location_width");
  // none is image2seq's and las's: the text models' baseline is kind noattn.
  ModelConfig text;
  text.src_vocab = text.tgt_vocab = 10;
  text.attention_mode = AttentionMode::none;
  expect_refused(text, "model.attention.mode");
}

// The location features and coverage over the grid cells: named parameters, weights of each
// step summing to 1, and step() equal to teacher forcing with the state it keeps.
TEST(Image2Seq, LocationFeaturesAndCoverageOverTheGrid) {
  ModelConfig c = small_model(AttentionMode::soft);
  c.location_filters = 2;
  c.location_width = 3;
  c.coverage = true;
  Rng rng(5);
  auto model = make_model(c, rng, DType::f64);
  const auto params = model->named_parameters();
  auto has = [&](const std::string& n) {
    for (const auto& [name, p] : params)
      if (name == n) return true;
    return false;
  };
  EXPECT_TRUE(has("attention.F.weight") && has("attention.U_f.weight") && has("attention.w_c.weight"));
  model->eval();
  NoGradGuard no_grad;
  const TokenBatch src = image_source(images(2, 6, DType::f64), c.image);
  TokenBatch tgt;
  tgt.batch = 2;
  tgt.len = 3;
  tgt.ids = {kBos, 4, 5, kBos, 5, 4};
  tgt.lengths = {3, 3};
  Tensor alphas;
  const Var logits = model->forward(src, tgt, &alphas);
  Encoded enc = model->encode(src);
  DecoderState state = model->initial_state(enc);
  for (std::int64_t t = 0; t < 3; ++t) {
    StepOutput o = model->step(std::vector<std::int32_t>{tgt.ids[t], tgt.ids[3 + t]}, state, enc);
    for (std::int64_t b = 0; b < 2; ++b)
      for (std::int64_t i = 0; i < 6; ++i)
        EXPECT_NEAR(o.alpha.value().at({b, i}), alphas.at({b, t, i}), 1e-12);
  }
}

TEST(Image2Seq, TheModesBuildWithAndWithoutAttention) {
  for (AttentionMode mode : {AttentionMode::soft, AttentionMode::hard, AttentionMode::none}) {
    Rng rng(4);
    auto model = make_model(small_model(mode), rng);
    EXPECT_EQ(model->has_attention(), mode != AttentionMode::none) << enum_name(mode);
    const auto names = model->named_parameters();
    EXPECT_EQ(names.front().first, "cnn.conv0.weight");
    // Teacher forcing over a 2-word target: (B * n, V) logits, alphas over the 6 cells.
    model->eval();
    NoGradGuard no_grad;
    const TokenBatch src = image_source(images(2, 6, DType::f32), small_model(mode).image);
    TokenBatch tgt;
    tgt.batch = 2;
    tgt.len = 2;
    tgt.ids = {kBos, 4, kBos, 5};
    tgt.lengths = {2, 2};
    Tensor alphas;
    const Var logits = model->forward(src, tgt, &alphas);
    EXPECT_EQ(logits.shape(), Shape({4, 9}));
    if (mode == AttentionMode::none) {
      EXPECT_FALSE(alphas.defined());
      continue;
    }
    ASSERT_EQ(alphas.shape(), Shape({2, 2, 6}));
    for (std::int64_t b = 0; b < 2; ++b)
      for (std::int64_t t = 0; t < 2; ++t) {
        double sum = 0;
        for (std::int64_t i = 0; i < 6; ++i) sum += alphas.at({b, t, i});
        EXPECT_NEAR(sum, 1.0, 1e-5);
      }
  }
}

// Each image decodes alone as it does among others, greedy and with a beam.
TEST(Image2Seq, AnImageDecodesAloneAsInABatch) {
  for (AttentionMode mode : {AttentionMode::soft, AttentionMode::none}) {
    Rng rng(5);
    auto model = make_model(small_model(mode), rng);
    model->eval();
    Vocabulary names = Vocabulary::from_tokens({"a", "b", "c", "d", "e"});
    const Tensor all = images(3, 8, DType::f32);
    for (std::int64_t beam : {1, 3}) {
      DecodeOptions o;
      o.beam = beam;
      o.max_len = 6;
      const std::vector<DecodedImage> together = decode_images(*model, names, all, o);
      ASSERT_EQ(together.size(), 3u);
      for (std::int64_t b = 0; b < 3; ++b) {
        const std::vector<DecodedImage> alone =
            decode_images(*model, names, all.slice(0, b, b + 1).contiguous(), o);
        ASSERT_EQ(alone.size(), 1u);
        const DecodedImage& x = together[static_cast<std::size_t>(b)];
        EXPECT_EQ(alone[0].tokens, x.tokens) << "image " << b << ", beam " << beam;
        EXPECT_EQ(alone[0].words, x.words);
        EXPECT_EQ(x.grid_rows, 3);
        EXPECT_EQ(x.grid_cols, 2);
        ASSERT_EQ(alone[0].attention.size(), x.attention.size());
        EXPECT_EQ(x.attention.size(), mode == AttentionMode::none ? 0u : x.words.size());
        for (std::size_t t = 0; t < x.attention.size(); ++t) {
          ASSERT_EQ(x.attention[t].size(), 6u);
          for (std::size_t i = 0; i < 6; ++i)
            EXPECT_NEAR(alone[0].attention[t][i], x.attention[t][i], 1e-5);
        }
      }
    }
  }
}

// Parallel decoding cuts a batch into blocks of rows, one per thread
// (decode/sentence_blocks.h): the images go with their rows.
TEST(Image2Seq, ParallelRowBlocksCarryTheImages) {
  Rng rng(6);
  auto model = make_model(small_model(AttentionMode::soft), rng);
  model->eval();
  Vocabulary names = Vocabulary::from_tokens({"a", "b", "c", "d", "e"});
  const Tensor all = images(16, 9, DType::f32);  // two blocks of 8 on two threads
  DecodeOptions o;
  o.max_len = 5;
  const int threads = kernels::num_threads();
  kernels::set_num_threads(2);
  const std::vector<DecodedImage> together = decode_images(*model, names, all, o);
  kernels::set_num_threads(threads);
  ASSERT_EQ(together.size(), 16u);
  for (std::int64_t b = 0; b < 16; b += 5) {
    const std::vector<DecodedImage> alone =
        decode_images(*model, names, all.slice(0, b, b + 1).contiguous(), o);
    EXPECT_EQ(alone[0].tokens, together[static_cast<std::size_t>(b)].tokens) << "image " << b;
  }
}

}  // namespace
}  // namespace heed
