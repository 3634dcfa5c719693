#pragma once
// One training step's forward and backward pass of an image classifier (model.kind ram, fc,
// cnn), cut into shares of the batch that run side by side (docs/TRAINING.md#speed).
//
// A RAM step on a batch of 64 is a few hundred small operations, each too small to split
// well between threads. With two or more threads the batch is cut instead: share s (images
// [B s / S, B (s + 1) / S)) runs its whole forward and backward pass on one thread, with
// single-threaded kernels, through a replica of the model whose parameters share the
// model's values but accumulate gradients of their own; the replicas' gradients are then
// added to the model's, in share order. Each share's loss is its own batch mean (train/
// ram_loss.h) weighted by its share of the batch, so the gradients are those of the whole
// batch's mean. Sampled locations come from one generator per share, seeded from the
// training generator at each step: a run repeats bit for bit with the same thread count.
//
// S = min(threads, B / 16), at least 1; with one share the step is one pass of the model on
// the training generator itself.
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "heed/base/random.h"
#include "heed/models/image_classifier.h"
#include "heed/tensor/arena.h"

namespace heed {

// The number of shares of a batch of `images` on `threads` threads.
int classifier_share_count(std::int64_t images, int threads);

class ClassifierShares {
 public:
  // make: builds another classifier of the model's kind and sizes (its values are replaced
  // by views of the model's); called once per extra share, when first needed.
  ClassifierShares(const ImageClassifier& model,
                   std::function<std::unique_ptr<ImageClassifier>()> make);

  struct Step {
    double classification = 0;    // the batch's mean cross-entropy
    double forward_seconds = 0;   // share 0's forward pass and loss
    double backward_seconds = 0;  // the rest: share 0's backward pass, the wait for the other
                                  // shares and the sum of their gradients
  };

  // The forward and backward pass of images (B, C, H, W) with labels in [0, classes): the
  // gradients of the batch's mean loss (train/ram_loss.h) are added to the model's parameter
  // gradients. Activations live in arenas reset before it returns. The products run at the
  // model's compute type (the replicas take it from the model).
  Step forward_backward(const Tensor& images, std::span<const std::int32_t> labels, Rng& rng,
                        double reinforce_weight);

 private:
  // Makes replicas and arenas up to `shares`.
  void grow(int shares);
  Arena& arena(int share) {
    if (arenas_.empty()) arenas_.push_back(std::make_unique<Arena>());
    return *arenas_[static_cast<std::size_t>(share)];
  }
  // One share's forward pass, loss (times weight) and backward pass on this thread; returns
  // its mean cross-entropy; forward_seconds (if set) gets the forward pass's time.
  static double pass(const ImageClassifier& model, const Tensor& images,
                     std::span<const std::int32_t> labels, Rng& rng, double reinforce_weight,
                     double weight,
                     Arena& arena, double* forward_seconds);
  // The model's gradients += the replicas' of shares 1 .. shares - 1, element by element in
  // share order.
  void add_replica_gradients(int shares);

  const ImageClassifier& model_;
  std::function<std::unique_ptr<ImageClassifier>()> make_;
  std::vector<std::unique_ptr<ImageClassifier>> replicas_;  // share s > 0 runs replicas_[s - 1]
  std::vector<std::vector<Var>> replica_params_;            // their parameters, in order
  std::vector<std::unique_ptr<Arena>> arenas_;              // one per share
  std::vector<Var> params_;                                 // the model's
};

}  // namespace heed
