#pragma once
// `heed bench --config memn2n`: the end-to-end memory network's training and inference speed in
// questions per second (docs/cli/bench.md#memn2n), on the protocol tools/torch_memn2n.py
// reproduces in PyTorch:
//   model     V = 180 words, d = 50 and 3 hops with adjacent tying (the paper's; other d and K
//             with --memn2n-dim, --memn2n-hops), memory_size 50, position and temporal
//             encoding, softmax attention (46,000 parameters at d = 50, K = 3)
//   data      synthetic, from Rng(seed): per question n = the least of three draws uniform in
//             2..50 statements, each of 3..10 words, a question of 3..6 words, words and the
//             answer uniform in 4..179 (never a special token), t_i = n - i; each batch of
//             `batch` questions padded to its own most statements and longest statement and
//             question (models/memory_network.h's make_memory_batch); all drawn before timing
//   train     forward, the answers' mean cross-entropy, backward, the gradients' norm clipped
//             at 40, SGD (default) or Adam, lr 0.01; `warmup` untimed steps, then `steps`
//             timed ones, each on a new batch
//   infer     forward and the answers' softmax, no tape, decode_sents questions in batches of
//             `batch` (data from seed + 1), after one untimed warm-up batch
// The numbers come from heed's generator: the reference's distribution, not its draws.
#include <cstdint>
#include <iosfwd>
#include <vector>

#include "heed/base/random.h"
#include "heed/data/babi_encoding.h"
#include "heed/measure/protocol.h"
#include "heed/models/model_config.h"

namespace heed::measure {

// The model of the protocol (kind memn2n), with d = dim and K = hops.
ModelConfig memn2n_bench_model(std::int64_t dim = kMemn2nBenchDim,
                               std::int64_t hops = kMemn2nBenchHops);

// n synthetic questions of the protocol's distribution, drawn from rng.
std::vector<EncodedQuestion> memn2n_bench_questions(std::int64_t n, Rng& rng);

// Prints an "info" line, then "train" (opt.train) and "infer" (opt.infer) lines, each with
// questions_per_s. Threads as set by the caller.
void run_memn2n_bench(const BenchOptions& opt, std::ostream& out);

}  // namespace heed::measure
