#include "heed/nn/conv_stack.h"

#include <cmath>
#include <string>

#include "heed/autograd/conv2d_op.h"
#include "heed/autograd/elementwise_op.h"
#include "heed/autograd/pool2d_op.h"
#include "heed/base/error.h"

namespace heed {

// nn.Conv2d's default initialisation: weight and bias uniform(+-1/sqrt(in * 3 * 3)).
ConvStack::Conv::Conv(std::int64_t in, std::int64_t out, Rng& rng, DType dtype) {
  const double bound = 1.0 / std::sqrt(static_cast<double>(in * 9));
  weight = register_parameter("weight", init_uniform({out, in, 3, 3}, bound, rng, dtype));
  bias = register_parameter("bias", init_uniform({out}, bound, rng, dtype));
}

ConvStack::ConvStack(std::int64_t in_channels, std::int64_t layers, std::int64_t channels,
                     Rng& rng, DType dtype) {
  HEED_CHECK(layers >= 1 && layers <= 8, "model.conv_layers must be from 1 to 8, got ", layers);
  HEED_CHECK(channels >= 1 && channels <= 4096, "model.conv_channels must be from 1 to 4096, got ",
             channels);
  HEED_CHECK(in_channels >= 1, "a convolution stack needs images of at least one channel");
  std::int64_t in = in_channels;
  for (std::int64_t l = 0; l < layers; ++l) {
    const std::int64_t out = channels << l;
    layers_.push_back(std::make_unique<Conv>(in, out, rng, dtype));
    register_module("conv" + std::to_string(l), *layers_.back());
    in = out;
  }
}

Var ConvStack::conv_relu(std::size_t l, const Var& x) const {
  Conv2dOptions same;
  same.padding = 1;
  return relu(conv2d(x, layers_[l]->weight, layers_[l]->bias, same));
}

Var ConvStack::forward(const Var& x) const {
  Var y = x;
  for (std::size_t l = 0; l < layers_.size(); ++l) y = max_pool2d(conv_relu(l, y), 2, 2);
  return y;
}

std::array<std::int64_t, 3> conv_stack_output(std::int64_t layers, std::int64_t channels,
                                              std::int64_t height, std::int64_t width) {
  std::int64_t h = height, w = width;
  for (std::int64_t l = 0; l < layers; ++l) {
    HEED_CHECK(h >= 2 && w >= 2, "model.conv_layers: ", layers, " layers each halve the side, "
               "too many for images of ", height, "x", width);
    h /= 2;
    w /= 2;
  }
  return {channels << (layers - 1), h, w};
}

}  // namespace heed
