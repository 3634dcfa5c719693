#pragma once
// The Gaussian location policy of hard attention on images (docs/MODELS.md, "Location
// policy"; kernels/gaussian.h): a location is drawn around a mean the network outputs,
// l ~ N(mu, sigma^2 I) with a fixed sigma, and REINFORCE needs log pi(l).
//
// The sample is a plain Tensor, detached from the graph: no gradient flows through the
// draw (the reparameterised path is not used), and the glimpse sensor does not
// differentiate its location anyway. log pi(l) is differentiable in the mean only; sigma
// is a fixed number.
#include "heed/autograd/var.h"
#include "heed/base/random.h"

namespace heed {

// mean (N, D) -> mean + sigma * eps, eps ~ N(0, 1) drawn from rng in row-major order
// (Rng::normal). Not clamped: a caller that needs [-1, 1] (the glimpse sensor) clamps it.
Tensor gaussian_sample(const Var& mean, double sigma, Rng& rng);

// log N(sample; mean, sigma^2 I) per row, (N); the gradient flows into mean.
Var gaussian_log_prob(const Var& mean, const Tensor& sample, double sigma);

}  // namespace heed
