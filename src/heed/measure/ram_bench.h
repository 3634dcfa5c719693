#pragma once
// `heed bench --config ram`: the recurrent attention model's training and inference speed in
// images per second (docs/cli/bench.md#ram), on the protocol tools/torch_ram.py reproduces in
// PyTorch:
//   model     the paper's sizes (Mnih et al. 2014): 60x60 images of one channel, 6 glimpses of
//             3 scales of 8x8, glimpse_hidden and location_hidden 128, glimpse_dim 256, ReLU RNN
//             core 256, location_std 0.15, 10 classes
//   data      synthetic, from Rng(seed): pixels uniform in [0, 1), labels uniform in [0, 10);
//             a new batch of `batch` images per step
//   train     sampled locations, loss = cross-entropy + REINFORCE with the baseline + the
//             baseline's squared error (train/ram_loss.h), backward, Adam (lr 1e-3);
//             `warmup` untimed steps, then `steps` timed ones
//   infer     the mean locations, no tape, decode_sents images in batches of `batch` (data
//             from seed + 1), after one untimed warm-up batch
#include <iosfwd>

#include "heed/measure/protocol.h"
#include "heed/models/model_config.h"

namespace heed::measure {

// The model of the protocol (kind ram, tgt_vocab for 10 classes).
ModelConfig ram_bench_model();

// Prints an "info" line, then "train" (opt.train) and "infer" (opt.infer) lines, each with
// images_per_s. Threads as set by the caller.
void run_ram_bench(const BenchOptions& opt, std::ostream& out);

}  // namespace heed::measure
