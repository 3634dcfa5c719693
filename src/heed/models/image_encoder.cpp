#include "heed/models/image_encoder.h"

#include "heed/autograd/concat_op.h"
#include "heed/autograd/index.h"
#include "heed/autograd/reduce_op.h"

namespace heed {

std::pair<std::int64_t, std::int64_t> image_grid(const ImageEncoderConfig& c, std::int64_t rows,
                                                 std::int64_t cols) {
  const auto [C, gh, gw] = conv_stack_output(c.conv_layers, c.conv_channels, rows, cols);
  return {gh, gw};
}

std::int64_t image_annotation_dim(const ImageEncoderConfig& c) {
  return conv_stack_output(c.conv_layers, c.conv_channels, 1 << c.conv_layers,
                           1 << c.conv_layers)[0];
}

TokenBatch image_source(Tensor images, const ImageEncoderConfig& config) {
  HEED_CHECK(images.defined() && images.ndim() == 4, "image source: expected (B, C, H, W) pixels");
  const auto [gh, gw] = image_grid(config, images.dim(2), images.dim(3));
  TokenBatch src;
  src.batch = images.dim(0);
  src.len = gh * gw;
  src.ids.assign(static_cast<std::size_t>(src.batch * src.len), kPad);
  src.lengths.assign(static_cast<std::size_t>(src.batch), src.len);
  src.images = std::move(images);
  return src;
}

ImageEncoder::ImageEncoder(const ImageEncoderConfig& config, std::int64_t channels, Rng& rng,
                           DType dtype)
    : config_(config),
      channels_(channels),
      cnn_(channels, config.conv_layers, config.conv_channels, rng, dtype) {}

EncoderOutput ImageEncoder::encode(const TokenBatch& src, const RunMode&) const {
  HEED_CHECK(src.images.defined() && src.images.ndim() == 4 && src.images.dim(1) == channels_,
             "image2seq: the source batch holds no (B, ", channels_, ", H, W) images "
             "(image_source makes one)");
  const auto [gh, gw] = image_grid(config_, src.images.dim(2), src.images.dim(3));
  const std::int64_t B = src.images.dim(0), L = gh * gw;
  HEED_CHECK(src.batch == B && src.len == L, "image2seq: the source batch is ", src.batch, " x ",
             src.len, ", its images make ", B, " x ", L, " grid cells");
  Var x = cnn_.forward(Var(src.images));
  // (B, C, gh, gw) -> (B, C, L) -> the cells in reading order as rows: (B, L, C).
  x = reshape(x, {B, x.dim(1), L});
  std::vector<Var> cells;
  cells.reserve(static_cast<std::size_t>(L));
  for (std::int64_t i = 0; i < L; ++i) cells.push_back(select(x, 2, i));
  EncoderOutput out;
  out.annotations = stack(cells, 1);
  out.lengths.assign(static_cast<std::size_t>(B), L);
  const Var mean_cell = mean(out.annotations, 1);  // (B, C)
  out.h_n = reshape(mean_cell, {1, B, mean_cell.dim(1)});
  return out;
}

}  // namespace heed
