#pragma once
// Pixel saliency of an image classifier (docs/MODELS.md#saliency-of-an-image-classifier;
// Simonyan et al. 2014): how much each pixel moves the score of a class, the image-model
// counterpart of the sequence saliency in seq2seq.h.
//
//   saliency_p = sum over channels of |d s_c / d x_p|,   s_c = the logit of class c
//
// taken along the model's test-time pass (ImageClassifier::test_logits: for ram the mean
// locations, which stay fixed, so only the pixels its glimpses read can have a gradient).
#include <cstdint>
#include <span>
#include <vector>

#include "heed/base/random.h"
#include "heed/models/image_classifier.h"
#include "heed/tensor/tensor.h"

namespace heed {

// For images (B, C, H, W) and one class per image (0-based, below model.classes()): per image
// its H*W saliencies, row-major. One backward pass for the batch (the images do not interact);
// the parameters' gradients it fills are cleared. Needs gradients enabled (heed::Error under a
// NoGradGuard); must not run while the model trains.
std::vector<std::vector<float>> pixel_saliency(const ImageClassifier& model, const Tensor& images,
                                               std::span<const std::int32_t> classes, Rng& rng);

}  // namespace heed
