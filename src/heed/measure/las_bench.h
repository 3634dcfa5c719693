#pragma once
// `heed bench --config las`: listen, attend and spell's training and inference speed in
// utterances per second (docs/cli/bench.md#las), on the protocol tools/torch_las.py
// reproduces in PyTorch (tools/reference/speech.py's Las):
//   model     examples/digits' sizes: 40 log-mel bins stacked by 3 (120 values a frame), a GRU
//             listener of 3 bidirectional layers of 96 (pyramid 4), emb_dim 32, dec_hidden
//             128, attn_dim 64, 14 symbols (ten digit words and the specials)
//   data      synthetic, from Rng(seed): per utterance n = 1..7 words uniform, its stacked
//             frames uniform in 12n + 5 .. 20n + 10 (about 0.36 to 0.9 s a word and 0.15 to
//             0.3 s of pauses, 30 ms a frame), each value standard normal, words uniform in
//             4..13, the target n words and EOS; each batch of `batch` utterances padded to its
//             longest; all drawn before timing
//   train     teacher-forced forward, the mean cross-entropy over the real target positions,
//             backward, the gradients' norm clipped at 5, Adam (lr 1e-3); `warmup` untimed
//             steps, then `steps` timed ones, each on a new batch
//   infer     greedy decoding of decode_sents utterances in batches of `batch` (data from
//             seed + 1), exactly decode_steps symbols each (no early stop: the same work on
//             both sides whatever the untrained weights say), after one untimed batch
// Both report utterances_per_s and audio_s_per_s (seconds of audio, at 30 ms a stacked frame,
// per second). The numbers come from heed's generator: the reference's distribution, not its
// draws.
#include <cstdint>
#include <iosfwd>

#include "heed/measure/protocol.h"
#include "heed/models/model_config.h"

namespace heed::measure {

// The model of the protocol (kind las).
ModelConfig las_bench_model();

// Prints an "info" line, then "train" (opt.train) and "infer" (opt.infer) lines, each with
// utterances_per_s and audio_s_per_s. Threads as set by the caller.
void run_las_bench(const BenchOptions& opt, std::ostream& out);

}  // namespace heed::measure
