#pragma once
// The fixed CPU benchmark protocol of the PyTorch reference (bench/torch_ref/bench.py),
// reproduced for heed's own models so the two print comparable JSON lines:
//   configs   g2p, mt (Bahdanau), luong (2-layer LSTM, general score, input feeding),
//             noattn (fixed context), batch 64, lengths uniform in the config's [lo, hi]
//   data      synthetic, from Rng(seed) (train), seed + 1 (greedy), seed + 2 (beam): lengths
//             uniform in [lo, hi] (a target length counts its EOS), tokens uniform in
//             [3, V), each batch padded to its own longest sequence, tgt_in = BOS y_1..y_{n-1},
//             tgt_out = y_1..y_n with y_n = EOS
//   train     Adam(lr 1e-3), grad-norm clip 5, mean cross-entropy over non-pad targets,
//             dropout 0; `warmup` untimed steps, then `steps` timed ones, each a new batch
//   greedy    decode_sents sentences in batches, exactly decode_steps steps (no early
//             stop), one untimed warm-up batch first; beam: width `beam` on beam_sents.
//             The weights are frozen (packed for oneDNN) once, before the warm-up batch,
//             as a translation run does before its first batch
//   FLOPs     the reference's analytic forward matmul count (flop_terms); training = 3 x
// The data come from heed's generator with the reference's rules, not bit-identical to
// torch's generator; only the distribution (and so the work) is the same.
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "heed/config/training_choices.h"
#include "heed/kernels/precision.h"
#include "heed/models/model_config.h"
#include "heed/models/seq2seq.h"

namespace heed::measure {

struct BenchConfig {
  std::string name;
  ModelKind model = ModelKind::bahdanau;
  std::int64_t src_vocab = 0, tgt_vocab = 0, emb_dim = 0;
  std::int64_t enc_hidden = 0, dec_hidden = 0, attn_dim = 0;  // bahdanau, noattn
  std::int64_t hidden = 0, layers = 0;                        // luong
  AttentionScore score = AttentionScore::mlp;                 // luong
  bool input_feed = false;                                    // luong
  std::int64_t lo = 0, hi = 0;                                // length range, inclusive
  std::int64_t d_model = 0, heads = 0, ff_dim = 0;            // transformer (layers: each side)
};

// "g2p" | "mt" | "luong" | "noattn" | "transformer"; anything else throws heed::Error (run_bench also knows
// "ram", the recurrent attention model, measure/ram_bench.h, and "memn2n", the end-to-end
// memory network, measure/memn2n_bench.h, and "las", listen attend and spell,
// measure/las_bench.h).
const BenchConfig& bench_config(std::string_view name);
// The configurations "all" stands for (the reference's DEFAULT_SET): g2p, mt, luong.
std::vector<std::string> default_bench_configs();
ModelConfig model_config(const BenchConfig& config);

// Forward matmul FLOPs per source token, per sentence, per target step and per
// (target step x source token): bench.py's flop_terms, integer for integer.
struct FlopTerms {
  std::int64_t per_src_token = 0;
  std::int64_t per_sentence = 0;
  std::int64_t per_tgt_step = 0;
  std::int64_t per_tgt_step_per_src_token = 0;
};
FlopTerms flop_terms(const BenchConfig& config);
// Sum over sentences of the forward FLOPs at their real lengths.
double fwd_flops(const FlopTerms& t, std::span<const std::int64_t> src_len,
                 std::span<const std::int64_t> tgt_len);
// A forced-length decode: the encoder once per sentence, `steps` decoder steps on
// rows_per_sent rows (1 greedy, k beam).
double decode_fwd_flops(const FlopTerms& t, std::span<const std::int64_t> src_len,
                        std::int64_t steps, std::int64_t rows_per_sent);

struct SyntheticBatch {
  TokenBatch src;
  TokenBatch tgt_in;                  // lengths = target lengths (EOS counted)
  std::vector<std::int32_t> tgt_out;  // (B, n) row-major, PAD after each length
};
std::vector<SyntheticBatch> make_batches(std::int64_t n_batches, std::int64_t batch,
                                         std::int64_t lo, std::int64_t hi, std::int64_t src_vocab,
                                         std::int64_t tgt_vocab, std::uint64_t seed);

// Config memn2n's model sizes unless --memn2n-dim, --memn2n-hops: the paper's d and K.
inline constexpr std::int64_t kMemn2nBenchDim = 50, kMemn2nBenchHops = 3;

struct BenchOptions {
  std::vector<std::string> configs{"g2p"};
  int threads = 2;
  std::int64_t steps = 20;
  std::int64_t warmup = 3;
  std::int64_t batch = 64;
  std::int64_t decode_sents = 512;
  std::int64_t beam_sents = 128;
  std::int64_t decode_steps = 30;
  std::int64_t beam = 5;
  std::uint64_t seed = 1234;
  // The products' precision: decoding's with the weights; training's (bf16 products, fp32
  // weights, gradients and optimiser).
  kernels::MatmulPrecision precision = kernels::MatmulPrecision::f32;
  bool train = true, greedy = true, beam_search = true;
  bool infer = true;  // configs ram, memn2n and las only: inference (measure/ram_bench.h)
  // Config memn2n only (measure/memn2n_bench.h): sgd when unset, or adam. The other configs
  // train with Adam, as their references do, and refuse it.
  std::optional<OptimizerKind> optimizer;
  // Config memn2n only: d and the hops K (tools/torch_memn2n.py's --memn2n-dim, --memn2n-hops).
  // The protocol's 50 and 3 (the paper's) unless set; examples/babi/config.yaml's are 100, 4.
  std::optional<std::int64_t> memn2n_dim, memn2n_hops;
  // The text configs' attention with location features (docs/MODELS.md#location-aware-attention,
  // #coverage): model.location_filters, location_width and coverage of their models.
  std::int64_t location_filters = 0;
  std::int64_t location_width = 7;
  bool coverage = false;
  // Text configs' decoding with a vocabulary shortlist (docs/DECODING.md#vocabulary-shortlists)
  // of this many target ids per batch: the four specials and shortlist - 4 others drawn
  // uniformly per batch (from the batch's seed), standing for the union a learned shortlist
  // gives a batch of real sentences; the decoding lines then carry "shortlist". 0: none.
  std::int64_t shortlist = 0;
  // Text configs' model.dropout in training (the protocol's is 0), in [0, 1): a real
  // recipe's training trains with it (examples/multi30k/transformer.yaml: 0.3); the lines
  // then carry "dropout". Decoding does not drop.
  double dropout = 0;
  std::string tag;
};

// Runs every measurement of every config, printing one JSON object per line to out: an
// "info" line per config, then "train", "greedy", "beam" (configs ram and memn2n: "train",
// "infer").
// Throws heed::Error on bad options.
void run_bench(const BenchOptions& options, std::ostream& out);

}  // namespace heed::measure
