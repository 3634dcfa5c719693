// model.kind las (docs/MODELS.md#listen-attend-and-spell): the pyramidal listener's lengths,
// pairs and padding, gradients of the whole model in double precision, the kind's config
// checks, and decoding: an utterance decodes alone as inside a batch, greedy and with a beam,
// also when parallel decoding cuts the batch into row blocks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "heed/autograd/cross_entropy_op.h"
#include "heed/autograd/ctc_op.h"
#include "heed/autograd/tape.h"
#include "heed/decode/beam_search.h"
#include "heed/decode/ctc_rescoring.h"
#include "heed/kernels/gemm.h"
#include "heed/models/listener.h"
#include "heed/models/model_registry.h"
#include "heed/translate/speech_decoding.h"
#include "support/gradcheck.h"

namespace heed {
namespace {

using testing::all_close;
using testing::gradcheck;
using testing::random_tensor;

ModelConfig small_model(std::int64_t pyramid = 4, RnnCell cell = RnnCell::lstm) {
  ModelConfig c;
  c.kind = ModelKind::las;
  c.tgt_vocab = 9;
  c.emb_dim = 6;
  c.enc_hidden = 5;
  c.enc_layers = 3;
  c.encoder_cell = cell;
  c.dec_hidden = 7;
  c.attn_dim = 5;
  c.listener.pyramid = pyramid;
  c.listener.feature_dim = 4;
  return c;
}

// Utterances of the given frame counts, 4 bins each, uniform in [-1, 1).
std::vector<Tensor> utterances(const std::vector<std::int64_t>& frames, std::uint64_t seed,
                               DType dtype) {
  std::vector<Tensor> out;
  for (std::int64_t n : frames) out.push_back(random_tensor({n, 4}, seed++).to(dtype));
  return out;
}

TEST(Listener, LengthsAreTheFramesHalvedOncePerPyramidLayerRoundedUp) {
  EXPECT_EQ(listener_length(1, 1), 1);
  EXPECT_EQ(listener_length(7, 1), 7);
  EXPECT_EQ(listener_length(7, 2), 4);
  EXPECT_EQ(listener_length(7, 4), 2);
  EXPECT_EQ(listener_length(8, 8), 1);
  EXPECT_EQ(listener_length(9, 8), 2);
  EXPECT_EQ(listener_length(100, 8), 13);
  EXPECT_THROW(listener_length(10, 3), Error);
}

TEST(Listener, ASpeechBatchPadsTheFramesAndCountsTheAnnotations) {
  const std::vector<Tensor> u = utterances({5, 9, 1}, 1, DType::f32);
  const TokenBatch src = speech_batch(u, 4, DType::f64);
  EXPECT_EQ(src.batch, 3);
  EXPECT_EQ(src.len, 3);
  EXPECT_EQ(src.lengths, (std::vector<std::int64_t>{2, 3, 1}));
  EXPECT_EQ(src.frame_lengths, (std::vector<std::int64_t>{5, 9, 1}));
  EXPECT_EQ(src.ids, std::vector<std::int32_t>(9, kPad));
  ASSERT_EQ(src.frames.shape(), Shape({3, 9, 4}));
  EXPECT_EQ(src.frames.dtype(), DType::f64);
  for (std::int64_t t = 0; t < 9; ++t)
    for (std::int64_t k = 0; k < 4; ++k) {
      EXPECT_EQ(src.frames.at({0, t, k}), t < 5 ? u[0].at({t, k}) : 0.0);
      EXPECT_EQ(src.frames.at({1, t, k}), u[1].at({t, k}));
      EXPECT_EQ(src.frames.at({2, t, k}), t < 1 ? u[2].at({t, k}) : 0.0);
    }
  EXPECT_THROW(speech_source(Tensor::zeros({2, 3, 4}), {3, 0}, 2), Error);  // an empty row
  EXPECT_THROW(speech_source(Tensor::zeros({2, 3, 4}), {3}, 2), Error);     // a length short
}

// The listener's annotations by hand: each layer one RecurrentStack, the pairs joined by
// concatenation (an odd row's last step with zeros).
TEST(Listener, EachPyramidLayerReadsAdjacentPairsJoined) {
  const ModelConfig c = small_model(4, RnnCell::gru);
  Rng rng(2);
  PyramidalListener listener(c, RnnCell::gru, rng, DType::f64);
  Rng same(2);
  ListenerLayers layers(c, RnnCell::gru, same, DType::f64);
  NoGradGuard no_grad;
  const std::vector<Tensor> u = utterances({7}, 3, DType::f64);
  const TokenBatch src = speech_batch(u, 4, DType::f64);
  const EncoderOutput out = listener.encode(src, RunMode{});
  ASSERT_EQ(out.annotations.shape(), Shape({1, 2, 10}));
  EXPECT_EQ(out.h_n.shape(), Shape({2, 1, 5}));
  // By hand: 7 frames -> 7 states -> 4 pairs (the last with zeros) -> 2 pairs -> annotations.
  auto run = [&](std::size_t l, const Tensor& x) {
    return layers[l].forward(Var(x), {static_cast<std::int32_t>(x.dim(1))}, 0.0, false, nullptr,
                             kernels::MatmulPrecision::f32);
  };
  auto pairs = [](const Tensor& h) {
    const std::int64_t T = h.dim(1), D = h.dim(2), half = (T + 1) / 2;
    Tensor p = Tensor::zeros({1, half, 2 * D}, DType::f64);
    for (std::int64_t i = 0; i < T; ++i)
      for (std::int64_t d = 0; d < D; ++d) p.set({0, i / 2, (i % 2) * D + d}, h.at({0, i, d}));
    return p;
  };
  const Tensor h0 = run(0, src.frames).output.value();
  const Tensor h1 = run(1, pairs(h0)).output.value();
  const RnnSequenceOutput top = run(2, pairs(h1));
  EXPECT_TRUE(all_close(out.annotations.value(), top.output.value(), 1e-12, 0));
  EXPECT_TRUE(all_close(out.h_n.value(), top.h_n.value(), 1e-12, 0));
  const auto names = listener.modules()[0].second->named_parameters();
  EXPECT_EQ(names.front().first, "0.weight_ih_l0");
  EXPECT_EQ(names.back().first, "2.bias_hh_l0_reverse");
}

// A row's annotations and final states do not depend on its batch mates or its padding:
// each of utterances u encoded alone against in one batch.
void expect_alone_as_in_a_batch(const PyramidalListener& listener, const std::vector<Tensor>& u,
                                std::int64_t reduction, const std::string& what) {
  NoGradGuard no_grad;
  const EncoderOutput all = listener.encode(speech_batch(u, reduction, DType::f64), RunMode{});
  for (std::size_t b = 0; b < u.size(); ++b) {
    const auto row = static_cast<std::int64_t>(b);
    const EncoderOutput one =
        listener.encode(speech_batch({u[b]}, reduction, DType::f64), RunMode{});
    const std::int64_t n = one.annotations.dim(1);
    EXPECT_EQ(all.lengths[b], n);
    EXPECT_TRUE(all_close(all.annotations.value().select(0, row).slice(0, 0, n).contiguous(),
                          one.annotations.value().select(0, 0).contiguous(), 1e-12, 0))
        << what << ", utterance " << b;
    for (std::int64_t d = 0; d < 2; ++d)
      EXPECT_TRUE(all_close(all.h_n.value().select(0, d).select(0, row).contiguous(),
                            one.h_n.value().select(0, d).select(0, 0).contiguous(), 1e-12, 0))
          << what << ", utterance " << b << ", direction " << d;
  }
}

TEST(Listener, AnUtteranceEncodesAloneAsInABatch) {
  Rng rng(4);
  const ModelConfig c = small_model(4);
  PyramidalListener listener(c, RnnCell::lstm, rng, DType::f64);
  expect_alone_as_in_a_batch(listener, utterances({5, 11, 2}, 5, DType::f64), 4, "pyramid 4");
}

// The listener alone: every parameter, through the joined pairs and an odd row's zero step;
// the LSTM over two joining layers, the GRU over one.
TEST(Listener, GradientsOfEveryParameterInDoublePrecision) {
  for (RnnCell cell : {RnnCell::lstm, RnnCell::gru}) {
    const bool lstm = cell == RnnCell::lstm;
    ModelConfig c = small_model(lstm ? 4 : 2, cell);
    c.enc_hidden = 2;
    c.enc_layers = lstm ? 3 : 2;
    Rng rng(6);
    PyramidalListener listener(c, cell, rng, DType::f64);
    const TokenBatch src =
        speech_batch(utterances({5, 3}, 7, DType::f64), c.listener.pyramid, DType::f64);
    const std::vector<Var> params = listener.modules()[0].second->parameters();
    EXPECT_EQ(params.size(), lstm ? 24u : 16u);
    EXPECT_TRUE(gradcheck([&] { return listener.encode(src, RunMode{}).annotations; }, params))
        << enum_name(cell);
  }
}

// The convolutional front end (model.frontend_layers): the reduction it adds to the pyramid's,
// the layer-0 input it makes, rows independent of their batch mates and padding (the masks
// between the convolutions), and every parameter's gradient.
ModelConfig front_end_model(std::int64_t layers, std::int64_t pyramid) {
  ModelConfig c = small_model(pyramid, RnnCell::gru);
  c.enc_layers = 2;
  c.enc_hidden = 3;
  c.listener.feature_dim = 4;  // the utterances' 4 bins
  c.listener.frontend_layers = layers;
  c.listener.frontend_channels = 2;
  return c;
}

TEST(ListenerFrontEnd, AddsItsReductionAndMakesTheFirstLayersInput) {
  ModelConfig c = front_end_model(2, 2);
  EXPECT_EQ(c.listener.reduction(), 8);
  EXPECT_EQ(listener_input_dim(c.listener), 4 * 1);  // 2 x 2 channels, 4 bins halved twice
  c.listener.frontend_layers = 1;
  EXPECT_EQ(listener_input_dim(c.listener), 2 * 2);
  c.listener.frontend_layers = 0;
  EXPECT_EQ(listener_input_dim(c.listener), 4);
  c = front_end_model(2, 2);
  Rng rng(1);
  PyramidalListener listener(c, RnnCell::gru, rng, DType::f64);
  const auto modules = listener.modules();
  ASSERT_EQ(modules.size(), 2u);
  EXPECT_EQ(modules[0].first, "frontend");
  EXPECT_EQ(modules[0].second->named_parameters().front().first, "conv0.weight");
  EXPECT_EQ(modules[0].second->parameters()[2].value().shape(), Shape({4, 2, 3, 3}));
  NoGradGuard no_grad;
  // 13 frames: padded to 16, 4 steps after the front end, 2 annotations after the pyramid.
  const TokenBatch src = speech_batch(utterances({13, 3}, 2, DType::f64), 8, DType::f64);
  EXPECT_EQ(src.len, 2);
  EXPECT_EQ(src.lengths, (std::vector<std::int64_t>{2, 1}));
  const EncoderOutput out = listener.encode(src, RunMode{});
  EXPECT_EQ(out.annotations.shape(), Shape({2, 2, 6}));
  EXPECT_THROW(listener.encode(speech_batch(utterances({13}, 2, DType::f64), 2, DType::f64),
                               RunMode{}),
               Error);  // a batch counted with the pyramid's reduction alone
}

TEST(ListenerFrontEnd, AnUtteranceEncodesAloneAsInABatch) {
  for (std::int64_t layers : {1, 2}) {
    const ModelConfig c = front_end_model(layers, 2);
    Rng rng(4);
    PyramidalListener listener(c, RnnCell::gru, rng, DType::f64);
    expect_alone_as_in_a_batch(listener, utterances({5, 19, 2, 9}, 5, DType::f64),
                               c.listener.reduction(), std::to_string(layers) + " layers");
  }
}

TEST(ListenerFrontEnd, GradientsOfEveryParameterInDoublePrecision) {
  const ModelConfig c = front_end_model(2, 2);
  Rng rng(6);
  PyramidalListener listener(c, RnnCell::gru, rng, DType::f64);
  const TokenBatch src = speech_batch(utterances({7, 10}, 7, DType::f64), 8, DType::f64);
  std::vector<Var> params;
  for (const auto& [name, m] : listener.modules())
    for (const Var& p : m->parameters()) params.push_back(p);
  EXPECT_EQ(params.size(), 4u + 16u);  // two convolutions, two bidirectional GRU layers
  EXPECT_TRUE(gradcheck([&] { return listener.encode(src, RunMode{}).annotations; }, params));
}

// The whole model's loss: the gradient reaches the listener's first layer through the speller's
// attention and initial state (the speller's own parameters are the Bahdanau decoder's, checked
// with the text models).
// Two target sequences fed to the speller (BOS first), of lengths 3 and 2.
TokenBatch two_targets() {
  TokenBatch tgt;
  tgt.batch = 2;
  tgt.len = 3;
  tgt.ids = {kBos, 4, 5, kBos, 6, kPad};
  tgt.lengths = {3, 2};
  return tgt;
}

TEST(ListenAttendSpell, TheLossGradientReachesTheListenerInDoublePrecision) {
  ModelConfig c = small_model(2);
  c.enc_layers = 2;
  c.enc_hidden = 2;
  Rng rng(6);
  auto model = make_model(c, rng, DType::f64);
  const TokenBatch src = speech_batch(utterances({5, 3}, 7, DType::f64), 2, DType::f64);
  const TokenBatch tgt = two_targets();
  const std::vector<std::int32_t> out = {4, 5, kEos, 6, kEos, kPad};
  std::vector<Var> params;
  for (const auto& [name, p] : model->named_parameters())
    if (name.rfind("listener.0.", 0) == 0 || name.rfind("W_init.", 0) == 0) params.push_back(p);
  EXPECT_EQ(model->named_parameters().front().first, "listener.0.weight_ih_l0");
  ASSERT_EQ(params.size(), 10u);  // 8 of the first layer, W_init's weight and bias
  EXPECT_TRUE(gradcheck(
      [&] { return cross_entropy(model->forward(src, tgt), out, kPad, 0.1); }, params));
}

void expect_refused(const ModelConfig& c, const std::string& key) {
  try {
    validate_model_config(c);
    FAIL() << "accepted a config that should name " << key;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
  }
}

TEST(ListenAttendSpell, ConfigValidation) {
  ModelConfig c = small_model();
  EXPECT_NO_THROW(validate_model_config(c));  // src_vocab 0: no source vocabulary
  c.listener.pyramid = 3;
  expect_refused(c, "model.pyramid");
  c = small_model();
  c.listener.pyramid = 8;  // 3 joining layers above the first: 4 layers
  expect_refused(c, "model.enc_layers >= 4");
  c.enc_layers = 4;
  EXPECT_NO_THROW(validate_model_config(c));
  c = small_model();
  c.listener.feature_dim = 0;
  expect_refused(c, "model.feature_dim");
  c = small_model();
  c.score = AttentionScore::dot;
  expect_refused(c, "model.score");
  c = small_model();
  c.attention_mode = AttentionMode::none;  // the baseline without attention
  EXPECT_NO_THROW(validate_model_config(c));
  c.location_filters = 2;  // features of an attention it does not have
  expect_refused(c, "model.location_filters");
  c = small_model();
  c.dec_layers = 2;
  expect_refused(c, "model.dec_layers");
  c = small_model();
  c.listener.frontend_layers = 2;  // 4 bins -> 2 -> 1
  EXPECT_NO_THROW(validate_model_config(c));
  c.listener.frontend_layers = 3;  // 4 bins cannot be halved three times
  expect_refused(c, "model.frontend_layers");
  c.listener.feature_dim = 64;
  c.listener.frontend_layers = 5;
  expect_refused(c, "model.frontend_layers");
  c.listener.frontend_layers = 4;
  c.listener.frontend_channels = 1024;  // the last layer's 8192 channels
  expect_refused(c, "model.frontend_channels");
}

// model.attention.mode none: the speller has no attention parameters and reads one fixed
// context, the listener's final states, so the loss's gradient still reaches the listener's
// first layer; decoding gives no attention rows, and an utterance decodes alone as in a batch.
TEST(ListenAttendSpell, WithoutAttentionTheSpellerReadsTheListenersFinalStates) {
  ModelConfig c = small_model(2);
  c.enc_layers = 2;
  c.enc_hidden = 2;
  Rng attending_rng(6);
  const auto attending = make_model(c, attending_rng, DType::f64);
  c.attention_mode = AttentionMode::none;
  Rng rng(6);
  auto model = make_model(c, rng, DType::f64);
  EXPECT_TRUE(attending->has_attention());
  EXPECT_FALSE(model->has_attention());
  std::vector<std::string> names, attending_names;
  for (const auto& [name, p] : model->named_parameters()) names.push_back(name);
  for (const auto& [name, p] : attending->named_parameters())
    if (name.rfind("attention.", 0) != 0) attending_names.push_back(name);
  EXPECT_EQ(names, attending_names);  // the same model less its attention
  EXPECT_LT(names.size(), attending->named_parameters().size());

  const TokenBatch src = speech_batch(utterances({5, 3}, 7, DType::f64), 2, DType::f64);
  const TokenBatch tgt = two_targets();
  const std::vector<std::int32_t> out = {4, 5, kEos, 6, kEos, kPad};
  std::vector<Var> params;
  for (const auto& [name, p] : model->named_parameters())
    if (name.rfind("listener.0.", 0) == 0 || name.rfind("decoder.", 0) == 0) params.push_back(p);
  ASSERT_EQ(params.size(), 12u);  // 8 of the listener's first layer, 4 of the speller's cell
  EXPECT_TRUE(gradcheck(
      [&] { return cross_entropy(model->forward(src, tgt), out, kPad, 0.1); }, params));

  Rng f32_rng(8);
  auto small = make_model(c, f32_rng);
  small->eval();
  const Vocabulary vocab = Vocabulary::from_tokens({"a", "b", "c", "d", "e"});
  const auto tok = make_tokenizer(TokenizerKind::whitespace);
  const std::vector<Tensor> u = utterances({4, 9, 6, 12}, 9, DType::f32);
  DecodeOptions o;
  o.max_len = 6;
  const auto together = transcribe(*small, *tok, vocab, u, o, 4);
  ASSERT_EQ(together.size(), 4u);
  for (std::size_t b = 0; b < u.size(); ++b) {
    const auto alone = transcribe(*small, *tok, vocab, {u[b]}, o, 1);
    EXPECT_EQ(alone[0][0].tokens, together[b][0].tokens) << "utterance " << b;
    EXPECT_NEAR(alone[0][0].score, together[b][0].score, 1e-4);
    EXPECT_TRUE(together[b][0].attention.empty()) << "utterance " << b;
  }
}

// Each utterance decodes alone as among others, greedy and with a beam, and on two threads
// (row blocks carry their frames).
TEST(ListenAttendSpell, AnUtteranceDecodesAloneAsInABatch) {
  Rng rng(8);
  auto model = make_model(small_model(4), rng);
  model->eval();
  const Vocabulary vocab = Vocabulary::from_tokens({"a", "b", "c", "d", "e"});
  const auto tok = make_tokenizer(TokenizerKind::whitespace);
  std::vector<std::int64_t> frames;
  for (std::int64_t i = 0; i < 16; ++i) frames.push_back(3 + (i * 7) % 13);
  const std::vector<Tensor> u = utterances(frames, 9, DType::f32);
  const int threads = kernels::num_threads();
  for (std::int64_t beam : {1, 3}) {
    DecodeOptions o;
    o.beam = beam;
    o.n_best = beam;
    o.max_len = 6;
    kernels::set_num_threads(2);
    const auto together = transcribe(*model, *tok, vocab, u, o, 16);
    kernels::set_num_threads(threads);
    ASSERT_EQ(together.size(), 16u);
    for (std::size_t b = 0; b < 16; b += 3) {
      const auto alone = transcribe(*model, *tok, vocab, {u[b]}, o, 1);
      ASSERT_EQ(alone[0].size(), static_cast<std::size_t>(beam));
      ASSERT_EQ(together[b].size(), static_cast<std::size_t>(beam));
      for (std::size_t k = 0; k < alone[0].size(); ++k) {
        EXPECT_EQ(alone[0][k].tokens, together[b][k].tokens) << "utterance " << b << ", beam " << beam;
        EXPECT_EQ(alone[0][k].text, together[b][k].text);
        EXPECT_NEAR(alone[0][k].score, together[b][k].score, 1e-4);
      }
    }
  }
}

}  // namespace
}  // namespace heed

namespace heed {
namespace {

// Joint CTC training's head (docs/MODELS.md#joint-ctc-training): built only with
// model.ctc_weight, its logits over the annotations in training when asked and at decoding
// (Seq2Seq::ctc_logits), and the CTC rescoring of beam search's hypotheses.
TEST(LasCtc, TheHeadExistsOnlyWithAWeightAndReadsTheAnnotations) {
  ModelConfig c = small_model(2, RnnCell::gru);
  Rng rng(1);
  const auto plain = build_model(c, rng, DType::f64);
  const TokenBatch src = speech_batch(utterances({9, 6}, 3, DType::f64), 2, DType::f64);
  EXPECT_FALSE(plain->ctc_logits(src).defined());
  for (const auto& [name, p] : plain->named_parameters())
    EXPECT_EQ(name.rfind("ctc.", 0), std::string::npos) << name;
  c.listener.ctc_weight = 0.3;
  const auto model = build_model(c, rng, DType::f64);
  const Tensor z = model->ctc_logits(src);
  ASSERT_TRUE(z.defined());
  EXPECT_EQ(z.shape(), (Shape{2, 5, 9}));  // 5 annotations of the longer row, 9 symbols
  // The training pass hands the same logits to the trace.
  Var traced;
  model->train();
  model->set_ctc_trace(&traced);
  TokenBatch tgt;
  tgt.batch = 2;
  tgt.len = 2;
  tgt.ids = {kBos, 4, kBos, 5};
  tgt.lengths = {2, 2};
  (void)model->forward(src, tgt);
  ASSERT_TRUE(traced.defined());
  EXPECT_TRUE(all_close(traced.value(), z, 1e-12));
}

TEST(LasCtc, RescoringRanksTheBeamByTheJointScore) {
  ModelConfig c = small_model(2, RnnCell::gru);
  c.listener.ctc_weight = 0.3;
  Rng rng(2);
  const auto model = build_model(c, rng, DType::f64);
  model->eval();
  const TokenBatch src = speech_batch(utterances({11, 8, 5}, 9, DType::f64), 2, DType::f64);
  DecodeOptions o;
  o.beam = 4;
  o.n_best = 4;
  o.max_len = 5;
  const DecodeResult searched = beam_search(*model, src, o);
  const Tensor z = model->ctc_logits(src);
  int finite = 0;  // hypotheses CTC can emit, at w > 0
  for (double w : {0.0, 0.5, 1.0}) {
    DecodeResult r = searched;
    rescore_with_ctc(*model, src, w, r);
    for (std::int64_t b = 0; b < src.batch; ++b) {
      const auto& hyps = r.nbest[static_cast<std::size_t>(b)];
      ASSERT_EQ(hyps.size(), 4u);
      const Tensor row = z.slice(0, b, b + 1).slice(1, 0, src.lengths[static_cast<std::size_t>(b)]).contiguous();
      for (std::size_t k = 0; k < hyps.size(); ++k) {
        const Hypothesis& h = hyps[k];
        std::vector<std::int32_t> y(h.tokens.begin(), h.tokens.end());
        if (!y.empty() && y.back() == kEos) y.pop_back();
        const bool scorable = std::all_of(y.begin(), y.end(), [](std::int32_t t) { return t != kPad; });
        double expected = -std::numeric_limits<double>::infinity();
        if (scorable) {
          const CtcResult ctc = ctc_loss(Var(row), {row.dim(1)}, {y}, kPad);
          if (ctc.infeasible == 0) expected = (1 - w) * h.raw_score - w * ctc.loss.value().item();
        }
        if (w == 0) expected = h.raw_score;
        if (std::isinf(expected)) {
          EXPECT_EQ(h.score, expected) << "row " << b << " hypothesis " << k << " w " << w;
        } else {
          EXPECT_NEAR(h.score, expected, 1e-9) << "row " << b << " hypothesis " << k << " w " << w;
          ++finite;
        }
        if (k > 0) {
          EXPECT_GE(hyps[k - 1].score, h.score);
        }
      }
    }
  }
  EXPECT_GT(finite, 12);  // the formula was checked, not only -inf
  // A model without a head cannot rescore.
  ModelConfig no = small_model(2, RnnCell::gru);
  const auto plain = build_model(no, rng, DType::f64);
  DecodeResult r = searched;
  EXPECT_THROW(rescore_with_ctc(*plain, src, 0.5, r), Error);
}

}  // namespace
}  // namespace heed
