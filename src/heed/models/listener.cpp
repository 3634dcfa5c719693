#include "heed/models/listener.h"

#include <algorithm>
#include <bit>

#include "heed/autograd/concat_op.h"
#include "heed/autograd/elementwise_op.h"
#include "heed/autograd/index.h"
#include "heed/autograd/pool2d_op.h"

namespace heed {
namespace {

// The pyramid's layers: log2(pyramid).
std::int64_t pyramid_layers(std::int64_t pyramid) {
  HEED_CHECK(pyramid >= 1 && std::has_single_bit(static_cast<std::uint64_t>(pyramid)),
             "model.pyramid: the listener's time reduction is a power of two (1, 2, 4, 8, ...), "
             "got ", pyramid);
  return std::countr_zero(static_cast<std::uint64_t>(pyramid));
}

// (B, T, D) -> (B, ceil(T / 2), 2D): adjacent steps joined, an odd T padded with a zero step.
Var join_pairs(const Var& x) {
  const std::int64_t B = x.dim(0), T = x.dim(1), D = x.dim(2);
  Var even = x;
  if (T % 2 == 1) even = concat({x, Var(Tensor::zeros({B, 1, D}, x.dtype()))}, 1);
  return reshape(even, {B, (T + 1) / 2, 2 * D});
}

}  // namespace

std::int64_t listener_length(std::int64_t frames, std::int64_t pyramid) {
  for (std::int64_t p = pyramid_layers(pyramid); p > 0; --p) frames = (frames + 1) / 2;
  return frames;
}

TokenBatch speech_source(Tensor frames, std::vector<std::int64_t> frame_lengths,
                         std::int64_t reduction) {
  HEED_CHECK(frames.defined() && frames.ndim() == 3,
             "speech source: expected (B, T, bins) log-mel frames");
  const std::int64_t B = frames.dim(0), T = frames.dim(1);
  HEED_CHECK(static_cast<std::int64_t>(frame_lengths.size()) == B, "speech source: ",
             frame_lengths.size(), " frame lengths for ", B, " utterances");
  TokenBatch src;
  src.batch = B;
  src.len = listener_length(T, reduction);
  for (std::int64_t n : frame_lengths) {
    HEED_CHECK(n >= 1 && n <= T, "speech source: an utterance of ", n, " frames in a batch of ",
               T, " (every utterance has at least one frame)");
    src.lengths.push_back(listener_length(n, reduction));
  }
  src.ids.assign(static_cast<std::size_t>(B * src.len), kPad);
  src.frames = std::move(frames);
  src.frame_lengths = std::move(frame_lengths);
  return src;
}

TokenBatch speech_batch(const std::vector<Tensor>& utterances, std::int64_t reduction,
                        DType dtype) {
  HEED_CHECK(!utterances.empty(), "speech batch: no utterance");
  const std::int64_t bins = utterances[0].dim(1);
  std::int64_t T = 0;
  std::vector<std::int64_t> lengths;
  for (const Tensor& u : utterances) {
    HEED_CHECK(u.ndim() == 2 && u.dim(1) == bins, "speech batch: utterances of (frames, ", bins,
               ") features expected");
    lengths.push_back(u.dim(0));
    T = std::max(T, u.dim(0));
  }
  Tensor frames = Tensor::zeros({static_cast<std::int64_t>(utterances.size()), T, bins}, dtype);
  for (std::size_t b = 0; b < utterances.size(); ++b)
    frames.select(0, static_cast<std::int64_t>(b))
        .slice(0, 0, lengths[b])
        .copy_from(utterances[b].dtype() == dtype ? utterances[b] : utterances[b].to(dtype));
  return speech_source(std::move(frames), std::move(lengths), reduction);
}

std::int64_t listener_input_dim(const ListenerConfig& c) {
  const std::int64_t L = c.frontend_layers;
  return L == 0 ? c.feature_dim : (c.frontend_channels << (L - 1)) * (c.feature_dim >> L);
}

ListenerLayers::ListenerLayers(const ModelConfig& c, RnnCell cell, Rng& rng, DType dtype) {
  const std::int64_t P = pyramid_layers(c.listener.pyramid);
  const std::int64_t out = c.enc_hidden * (c.bidirectional ? 2 : 1);
  for (std::int64_t l = 0; l < c.enc_layers; ++l) {
    const std::int64_t in = l == 0 ? listener_input_dim(c.listener) : l <= P ? 2 * out : out;
    layers_.push_back(std::make_unique<RecurrentStack>(cell, in, c.enc_hidden, 1,
                                                       c.bidirectional, rng, dtype));
    register_module(std::to_string(l), *layers_.back());
  }
}

PyramidalListener::PyramidalListener(const ModelConfig& config, RnnCell cell, Rng& rng,
                                     DType dtype)
    : feature_dim_(config.listener.feature_dim),
      pyramid_layers_(pyramid_layers(config.listener.pyramid)),
      reduction_(config.listener.reduction()),
      frontend_(config.listener.frontend_layers > 0
                    ? std::make_unique<ConvStack>(1, config.listener.frontend_layers,
                                                  config.listener.frontend_channels, rng, dtype)
                    : nullptr),
      layers_(config, cell, rng, dtype) {
  HEED_CHECK(pyramid_layers_ < config.enc_layers, "model.pyramid: a reduction of ",
             config.listener.pyramid, " needs ", pyramid_layers_ + 1,
             " listener layers (model.enc_layers), got ", config.enc_layers);
  if (config.listener.ctc_weight > 0)
    ctc_ = std::make_unique<Linear>(output_dim(), config.tgt_vocab, true, rng, dtype);
}

NamedModules PyramidalListener::modules() {
  NamedModules m;
  if (frontend_) m.emplace_back("frontend", frontend_.get());
  m.emplace_back("listener", &layers_);
  if (ctc_) m.emplace_back("ctc", ctc_.get());
  return m;
}

Var PyramidalListener::front_end(const Var& frames, std::vector<std::int32_t>& lengths) const {
  const std::int64_t B = frames.dim(0), T = frames.dim(1), F = frames.dim(2);
  const std::int64_t r = std::int64_t{1} << frontend_->size();
  const std::int64_t padded = (T + r - 1) / r * r;
  Var x = frames;
  if (padded > T) x = concat({x, Var(Tensor::zeros({B, padded - T, F}, x.dtype()))}, 1);
  x = reshape(x, {B, 1, padded, F});
  for (std::size_t l = 0; l < frontend_->size(); ++l) {
    Var y = frontend_->conv_relu(l, x);  // (B, C, t, f)
    const std::int64_t t = y.dim(2);
    if (std::any_of(lengths.begin(), lengths.end(), [t](std::int32_t n) { return n < t; })) {
      Tensor keep = Tensor::full(y.shape(), 1.0, y.dtype());
      for (std::int64_t b = 0; b < B; ++b)
        if (lengths[static_cast<std::size_t>(b)] < t)
          keep.select(0, b).slice(1, lengths[static_cast<std::size_t>(b)], t).zero();
      y = mul(y, Var(keep));
    }
    x = max_pool2d(y, 2, 2);
    for (std::int32_t& n : lengths) n = (n + 1) / 2;
  }
  // (B, C, T', F') -> (B, T', C, F') -> each step's C x F' values in a row.
  const std::int64_t steps = x.dim(2), width = x.dim(1) * x.dim(3);
  return reshape(transpose(x, 1, 2), {B, steps, width});
}

EncoderOutput PyramidalListener::encode(const TokenBatch& src, const RunMode& mode) const {
  HEED_CHECK(src.frames.defined() && src.frames.ndim() == 3 && src.frames.dim(2) == feature_dim_,
             "las: the source batch holds no (B, T, ", feature_dim_,
             ") log-mel frames (speech_source makes one)");
  const std::int64_t B = src.frames.dim(0), T = src.frames.dim(1);
  HEED_CHECK(src.batch == B && src.len == listener_length(T, reduction_) &&
                 static_cast<std::int64_t>(src.frame_lengths.size()) == B,
             "las: the source batch is ", src.batch, " x ", src.len, ", its frames (", B, ", ", T,
             ") make ", B, " x ", listener_length(T, reduction_), " annotations");
  std::vector<std::int32_t> lengths(src.frame_lengths.begin(), src.frame_lengths.end());
  Var x(src.frames);
  if (frontend_) x = front_end(x, lengths);
  RnnSequenceOutput r;
  for (std::size_t l = 0; l < layers_.size(); ++l) {
    if (l > 0) {
      if (static_cast<std::int64_t>(l) <= pyramid_layers_) {
        x = join_pairs(x);
        for (std::int32_t& n : lengths) n = (n + 1) / 2;
      }
      x = maybe_dropout(x, mode);
    }
    r = layers_[l].forward(x, lengths, 0.0, mode.training, mode.rng, mode.precision);
    x = r.output;
  }
  if (ctc_ && mode.ctc_logits) *mode.ctc_logits = ctc_->forward(x, mode.precision);
  EncoderOutput out;
  out.annotations = x;  // (B, len, dirs * d)
  out.lengths = src.lengths;
  out.h_n = r.h_n;  // the top layer's final states
  out.c_n = r.c_n;
  out.layers = 1;
  out.directions = layers_[0].directions();
  return out;
}

}  // namespace heed
