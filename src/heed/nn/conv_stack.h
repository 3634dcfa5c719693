#pragma once
// ConvStack: the small convolutional network of the image models (model.conv_layers,
// model.conv_channels): the cnn classifier's features (docs/MODELS.md#small-cnn), and the
// same stack is what an image encoder's grid of annotations needs. Layer l = 0 .. layers - 1:
//
//   x <- maxpool_2x2(ReLU(conv_3x3(x) + b))     channels * 2^l output channels
//
// zero padding 1 (the convolution keeps the size), pooling windows of 2x2 every 2 pixels (the
// side halves, rounded down). Parameters conv<l>.weight (C_out, C_in, 3, 3) and conv<l>.bias,
// PyTorch's nn.Conv2d layout and default initialisation.
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "heed/nn/module.h"

namespace heed {

class ConvStack : public Module {
 public:
  // Throws heed::Error unless layers is from 1 to 8 and channels positive.
  ConvStack(std::int64_t in_channels, std::int64_t layers, std::int64_t channels, Rng& rng,
            DType dtype = DType::f32);

  // x (N, in_channels, H, W) -> (N, C, H', W'), as conv_stack_output says.
  Var forward(const Var& x) const;
  // Layer l's ReLU(conv_3x3(x) + b), before its pooling: for callers that mask between the two
  // (the las front end zeroes each utterance's padding there).
  Var conv_relu(std::size_t l, const Var& x) const;
  std::size_t size() const { return layers_.size(); }

 private:
  struct Conv : Module {
    Conv(std::int64_t in, std::int64_t out, Rng& rng, DType dtype);
    Var weight, bias;
  };
  std::vector<std::unique_ptr<Conv>> layers_;
};

// (C, H', W') of a stack's output for an input of height x width: C = channels * 2^(layers-1),
// each side halved layers times. heed::Error naming model.conv_layers when the image is too
// small for that many poolings.
std::array<std::int64_t, 3> conv_stack_output(std::int64_t layers, std::int64_t channels,
                                              std::int64_t height, std::int64_t width);

}  // namespace heed
