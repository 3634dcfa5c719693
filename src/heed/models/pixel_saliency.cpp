#include "heed/models/pixel_saliency.h"

#include <cmath>
#include <string>

#include "heed/autograd/tape.h"
#include "heed/base/error.h"

namespace heed {

std::vector<std::vector<float>> pixel_saliency(const ImageClassifier& model, const Tensor& images,
                                               std::span<const std::int32_t> classes, Rng& rng) {
  HEED_CHECK(grad_enabled(), "pixel saliency needs gradients (it runs under a NoGradGuard)");
  HEED_CHECK(images.ndim() == 4, "pixel saliency: images must be (B, C, H, W), got ",
             images.ndim(), " dimensions");
  const std::int64_t B = images.dim(0), C = images.dim(1), H = images.dim(2), W = images.dim(3);
  HEED_CHECK(static_cast<std::int64_t>(classes.size()) == B, "pixel saliency: ", classes.size(),
             " classes for ", B, " images");
  for (const std::int32_t c : classes)
    HEED_CHECK(c >= 0 && c < model.classes(), "pixel saliency: class ", c, " of a model with ",
               model.classes(), " classes");
  const Var x(images, /*requires_grad=*/true);
  Var logits = model.test_logits(x, rng);
  // d(sum_b s_{c_b}) / dx: a one-hot seed per row gives every image its own class's gradient.
  Tensor seed = Tensor::zeros(logits.value().shape(), logits.dtype());
  for (std::int64_t b = 0; b < B; ++b) seed.set({b, classes[static_cast<std::size_t>(b)]}, 1.0);
  Tape::current().backward(logits, seed);
  std::vector<std::vector<float>> out(static_cast<std::size_t>(B),
                                      std::vector<float>(static_cast<std::size_t>(H * W), 0.0f));
  if (x.has_grad()) {  // no gradient at all: every pixel's saliency is 0
    const std::vector<double> g = x.grad().to_vector();
    for (std::int64_t b = 0; b < B; ++b)
      for (std::int64_t c = 0; c < C; ++c)
        for (std::int64_t p = 0; p < H * W; ++p)
          out[static_cast<std::size_t>(b)][static_cast<std::size_t>(p)] +=
              static_cast<float>(std::fabs(g[static_cast<std::size_t>((b * C + c) * H * W + p)]));
  }
  for (const Var& p : model.parameters()) p.clear_grad();
  return out;
}

}  // namespace heed
