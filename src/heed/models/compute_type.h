#pragma once
// ComputeType: how a model's products run, told to the model once by whoever builds or loads
// it (the trainer from training.precision, heed translate from --precision, heed bench from
// its --precision) and read by the model itself from then on: no forward pass, decoder step
// or decoding call takes a precision. The autograd ops below the models still take theirs;
// the models fill it from here (RunMode::precision).
//
// Training and decoding keep separate precisions because they round different products:
//  - training: every product of a training pass (Module::training()), forward and backward;
//    passes in evaluation mode (the dev score, decoding) run in fp32 whatever it says;
//  - decoding: the products with the weights a FrozenModel (decode/frozen_model.h) packs;
//    decoding's other products (attention over the annotations) stay fp32.
// So a run trained with bf16 products still scores its dev set in fp32, as before.
#include "heed/kernels/precision.h"

namespace heed {

struct ComputeType {
  kernels::MatmulPrecision training = kernels::MatmulPrecision::f32;
  kernels::MatmulPrecision decoding = kernels::MatmulPrecision::f32;

  // The precision of a pass's products (RunMode::precision): training's in training mode,
  // fp32 otherwise.
  kernels::MatmulPrecision pass(bool in_training) const {
    return in_training ? training : kernels::MatmulPrecision::f32;
  }
};

}  // namespace heed
