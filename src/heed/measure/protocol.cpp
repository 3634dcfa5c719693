#include "heed/measure/protocol.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>

#include "heed/autograd/attention_score.h"
#include "heed/autograd/cross_entropy_op.h"
#include "heed/autograd/tape.h"
#include "heed/base/error.h"
#include "heed/base/random.h"
#include "heed/measure/las_bench.h"
#include "heed/measure/memn2n_bench.h"
#include "heed/measure/ram_bench.h"
#include "heed/measure/record.h"
#include "heed/decode/beam_search.h"
#include "heed/decode/frozen_model.h"
#include "heed/decode/greedy.h"
#include "heed/kernels/bf16_products.h"
#include "heed/kernels/gemm.h"
#include "heed/kernels/kernel_isa.h"
#include "heed/models/model_registry.h"
#include "heed/tensor/arena.h"
#include "heed/train/adam.h"
#include "heed/train/clip.h"
#include "heed/version.h"

namespace heed::measure {
namespace {

std::vector<BenchConfig> make_configs() {
  std::vector<BenchConfig> c;
  BenchConfig g2p;
  g2p.name = "g2p";
  g2p.model = ModelKind::bahdanau;
  g2p.src_vocab = 32;
  g2p.tgt_vocab = 80;
  g2p.emb_dim = 128;
  g2p.enc_hidden = g2p.dec_hidden = g2p.attn_dim = 256;
  g2p.lo = 6;
  g2p.hi = 12;
  c.push_back(g2p);
  BenchConfig mt = g2p;
  mt.name = "mt";
  mt.src_vocab = mt.tgt_vocab = 8000;
  mt.emb_dim = 256;
  mt.lo = 15;
  mt.hi = 30;
  c.push_back(mt);
  BenchConfig luong;
  luong.name = "luong";
  luong.model = ModelKind::luong;
  luong.src_vocab = luong.tgt_vocab = 8000;
  luong.emb_dim = 256;
  luong.hidden = 256;
  luong.layers = 2;
  luong.score = AttentionScore::general;
  luong.input_feed = true;
  luong.lo = 15;
  luong.hi = 30;
  c.push_back(luong);
  BenchConfig noattn = mt;
  noattn.name = "noattn";
  noattn.model = ModelKind::noattn;
  noattn.attn_dim = 0;
  c.push_back(noattn);
  // heed's own: a small Transformer on g2p's vocabularies and lengths (no reference
  // counterpart in the PyTorch benchmark).
  BenchConfig transformer = g2p;
  transformer.name = "transformer";
  transformer.model = ModelKind::transformer;
  transformer.emb_dim = transformer.d_model = 256;
  transformer.heads = 4;
  transformer.ff_dim = 1024;
  transformer.layers = 2;
  c.push_back(transformer);
  return c;
}

// The reference's config dict, keys in its order.
Json config_detail(const BenchConfig& c) {
  Json j;
  j["model"] = enum_name(c.model);
  j["src_vocab"] = c.src_vocab;
  j["tgt_vocab"] = c.tgt_vocab;
  j["emb_dim"] = c.emb_dim;
  if (c.model == ModelKind::transformer) {
    j["d_model"] = c.d_model;
    j["heads"] = c.heads;
    j["ff_dim"] = c.ff_dim;
    j["layers"] = c.layers;
  } else if (c.model == ModelKind::luong) {
    j["hidden"] = c.hidden;
    j["layers"] = c.layers;
    j["score"] = enum_name(c.score);
    j["input_feed"] = c.input_feed;
  } else {
    j["enc_hidden"] = c.enc_hidden;
    j["dec_hidden"] = c.dec_hidden;
    if (c.model == ModelKind::bahdanau) j["attn_dim"] = c.attn_dim;
  }
  j["lengths"] = {c.lo, c.hi};
  return j;
}

std::int64_t total(std::span<const std::int64_t> v) {
  std::int64_t s = 0;
  for (auto x : v) s += x;
  return s;
}

Json flop_terms_json(const FlopTerms& t) {
  Json j;
  j["per_src_token"] = t.per_src_token;
  j["per_sentence"] = t.per_sentence;
  j["per_tgt_step"] = t.per_tgt_step;
  j["per_tgt_step_per_src_token"] = t.per_tgt_step_per_src_token;
  return j;
}

// ------------------------------------------------------------------ measurements

void bench_train(Seq2Seq& model, const BenchConfig& cfg, const BenchOptions& opt, const Json& base,
                 std::ostream& out) {
  const auto batches = make_batches(opt.warmup + opt.steps, opt.batch, cfg.lo, cfg.hi,
                                    cfg.src_vocab, cfg.tgt_vocab, opt.seed);
  const std::vector<Var> params = model.parameters();
  AdamOptions adam;
  adam.lr = 1e-3;
  Adam optimizer(params, adam);
  model.train();
  const FlopTerms terms = flop_terms(cfg);
  // Activations of one step live in the arena, given back at once after the step.
  Arena arena;
  // Mixed precision: bf16 products (opt.precision, carried by the model), fp32 rest.
  if (opt.precision == kernels::MatmulPrecision::bf16) kernels::require_bf16_products();

  // Where a step's time goes (timed steps only): forward + loss, backward, clip + Adam.
  std::vector<double> t_forward, t_backward, t_update;
  bool timing = false;
  auto step = [&](const SyntheticBatch& b) {
    double loss_value = 0;
    {
      ArenaScope scope(&arena);
      const auto t0 = Clock::now();
      optimizer.zero_grad();
      std::optional<kernels::Bf16WeightScope> weights;
      if (opt.precision == kernels::MatmulPrecision::bf16) weights.emplace(weight_regions(params));
      // The real positions only.
      Var logits = model.forward_packed(b.src, b.tgt_in);
      Var loss = cross_entropy(logits, pack_targets(b.tgt_out, b.tgt_in), kPad);
      loss_value = loss.value().item();
      const auto t1 = Clock::now();
      Tape::current().backward(loss);
      weights.reset();  // the update below changes them
      const auto t2 = Clock::now();
      clip_grad_norm(params, 5.0);
      optimizer.step();
      if (timing) {
        t_forward.push_back(std::chrono::duration<double>(t1 - t0).count());
        t_backward.push_back(std::chrono::duration<double>(t2 - t1).count());
        t_update.push_back(seconds_since(t2));
      }
    }
    arena.reset();
    return loss_value;
  };

  double first_loss = std::nan(""), last_loss = std::nan("");
  for (std::int64_t i = 0; i < opt.warmup; ++i)
    first_loss = step(batches[static_cast<std::size_t>(i)]);
  std::vector<double> step_times;
  timing = true;
  const auto t0 = Clock::now();
  for (std::int64_t i = opt.warmup; i < opt.warmup + opt.steps; ++i) {
    const auto ts = Clock::now();
    last_loss = step(batches[static_cast<std::size_t>(i)]);
    step_times.push_back(seconds_since(ts));
  }
  const double dt = seconds_since(t0);

  std::int64_t tgt_tok = 0, src_tok = 0, padded = 0;
  double flops = 0;
  for (std::int64_t i = opt.warmup; i < opt.warmup + opt.steps; ++i) {
    const auto& b = batches[static_cast<std::size_t>(i)];
    tgt_tok += total(b.tgt_in.lengths);
    src_tok += total(b.src.lengths);
    padded += b.tgt_in.batch * b.tgt_in.len;
    flops += 3 * fwd_flops(terms, b.src.lengths, b.tgt_in.lengths);
  }
  std::sort(step_times.begin(), step_times.end());
  const auto n = static_cast<double>(opt.steps);
  Json j = base;
  j["measure"] = "train";
  j["precision"] = kernels::matmul_precision_name(opt.precision);
  j["steps"] = opt.steps;
  j["seconds"] = round_to(dt, 3);
  j["ms_per_step_mean"] = round_to(1000 * dt / n, 2);
  j["ms_per_step_median"] = round_to(1000 * step_times[step_times.size() / 2], 2);
  j["tgt_tokens"] = tgt_tok;
  j["src_tokens"] = src_tok;
  j["padded_tgt_positions"] = padded;
  j["tgt_tok_per_s"] = round_to(static_cast<double>(tgt_tok) / dt, 1);
  j["src_tgt_tok_per_s"] = round_to(static_cast<double>(tgt_tok + src_tok) / dt, 1);
  j["train_gflop"] = round_to(flops / 1e9, 2);
  j["achieved_gflop_per_s"] = round_to(flops / dt / 1e9, 2);
  if (std::isnan(first_loss))
    j["loss_first_warmup"] = nullptr;
  else
    j["loss_first_warmup"] = round_to(first_loss, 4);
  j["loss_last"] = round_to(last_loss, 4);
  j["forward_ms_median"] = round_to(1000 * median(t_forward), 2);
  j["backward_ms_median"] = round_to(1000 * median(t_backward), 2);
  j["clip_adam_ms_median"] = round_to(1000 * median(t_update), 2);
  j["peak_rss_mb"] = peak_rss_mb();
  emit(out, j);
}

// K sorted target ids: the specials 0-3 and K - 4 distinct others from [4, V).
std::vector<std::int32_t> random_shortlist(std::int64_t K, std::int64_t V, Rng& rng) {
  std::vector<std::int32_t> pool(static_cast<std::size_t>(V - 4));
  for (std::size_t i = 0; i < pool.size(); ++i) pool[i] = static_cast<std::int32_t>(i + 4);
  const auto draw = static_cast<std::size_t>(K - 4);
  for (std::size_t i = 0; i < draw; ++i) {  // a partial Fisher-Yates shuffle
    const auto j = i + static_cast<std::size_t>(rng.uniform() * static_cast<double>(pool.size() - i));
    std::swap(pool[i], pool[std::min(j, pool.size() - 1)]);
  }
  std::vector<std::int32_t> ids = {0, 1, 2, 3};
  ids.insert(ids.end(), pool.begin(), pool.begin() + static_cast<std::ptrdiff_t>(draw));
  std::sort(ids.begin() + 4, ids.end());
  return ids;
}

void bench_decode(Seq2Seq& model, const BenchConfig& cfg, const BenchOptions& opt, const Json& base,
                  bool beam, std::ostream& out) {
  const std::int64_t n_sent = beam ? opt.beam_sents : opt.decode_sents;
  const std::int64_t n_batches = std::max<std::int64_t>(1, n_sent / opt.batch);
  const std::uint64_t seed = opt.seed + (beam ? 2 : 1);
  auto batches =
      make_batches(n_batches + 1, opt.batch, cfg.lo, cfg.hi, cfg.src_vocab, cfg.tgt_vocab, seed);
  if (opt.shortlist > 0) {
    Rng rng(seed + 1000);
    for (SyntheticBatch& b : batches) b.src.shortlist = random_shortlist(opt.shortlist, cfg.tgt_vocab, rng);
  }
  model.eval();
  const FlopTerms terms = flop_terms(cfg);
  const std::int64_t T = opt.decode_steps;
  DecodeOptions dopt;
  dopt.max_len = T;
  dopt.stop_at_eos = false;
  dopt.beam = opt.beam;
  dopt.n_best = 1;
  FrozenModel frozen(model);

  std::vector<std::int64_t> att_shape;
  auto run = [&](const SyntheticBatch& b) {
    DecodeResult r = beam ? beam_search(model, b.src, dopt) : greedy_decode(model, b.src, dopt);
    HEED_CHECK(r.steps == T, "bench: the decoder ran ", r.steps, " steps, not ", T);
    att_shape.clear();
    if (model.has_attention()) {
      att_shape = {b.src.batch};
      if (beam) att_shape.push_back(dopt.n_best);
      att_shape.push_back(T);
      att_shape.push_back(b.src.len);
    }
  };

  run(batches[0]);  // warm-up
  const auto t0 = Clock::now();
  for (std::size_t i = 1; i < batches.size(); ++i) run(batches[i]);
  const double dt = seconds_since(t0);

  std::int64_t sents = 0;
  double flops = 0;
  const std::int64_t rows = beam ? opt.beam : 1;
  for (std::size_t i = 1; i < batches.size(); ++i) {
    sents += batches[i].src.batch;
    flops += decode_fwd_flops(terms, batches[i].src.lengths, T, rows);
  }
  Json j = base;
  j["measure"] = beam ? "beam" : "greedy";
  j["precision"] = kernels::matmul_precision_name(opt.precision);
  j["sentences"] = sents;
  j["batch"] = opt.batch;
  j["steps_per_sentence"] = T;
  j["seconds"] = round_to(dt, 3);
  j["sent_per_s"] = round_to(static_cast<double>(sents) / dt, 2);
  j["out_tok_per_s"] = round_to(static_cast<double>(sents * T) / dt, 1);
  j["decode_gflop"] = round_to(flops / 1e9, 2);
  j["achieved_gflop_per_s"] = round_to(flops / dt / 1e9, 2);
  if (att_shape.empty())
    j["attention_shape"] = nullptr;
  else
    j["attention_shape"] = att_shape;
  if (beam) j["beam"] = opt.beam;
  if (opt.shortlist > 0) j["shortlist"] = opt.shortlist;
  j["peak_rss_mb"] = peak_rss_mb();
  emit(out, j);
}

}  // namespace

const BenchConfig& bench_config(std::string_view name) {
  static const std::vector<BenchConfig> configs = make_configs();
  for (const auto& c : configs)
    if (c.name == name) return c;
  throw Error("unknown benchmark config '" + std::string(name) +
              "' (expected g2p, mt, luong, noattn, transformer, ram, memn2n or all)");
}

std::vector<std::string> default_bench_configs() { return {"g2p", "mt", "luong"}; }

ModelConfig model_config(const BenchConfig& c) {
  ModelConfig m;
  m.kind = c.model;
  m.src_vocab = c.src_vocab;
  m.tgt_vocab = c.tgt_vocab;
  m.emb_dim = c.emb_dim;
  m.dropout = 0.0;
  if (c.model == ModelKind::transformer) {
    m.transformer.d_model = c.d_model;
    m.transformer.heads = c.heads;
    m.transformer.ff_dim = c.ff_dim;
    m.enc_layers = m.dec_layers = c.layers;
  } else if (c.model == ModelKind::luong) {
    m.encoder_cell = RnnCell::lstm;
    m.enc_hidden = m.dec_hidden = c.hidden;
    m.enc_layers = m.dec_layers = c.layers;
    m.bidirectional = false;
    m.score = c.score;
    m.input_feed = c.input_feed;
  } else {
    m.encoder_cell = RnnCell::gru;
    m.enc_hidden = c.enc_hidden;
    m.dec_hidden = c.dec_hidden;
    m.enc_layers = 1;
    m.bidirectional = true;
    m.attn_dim = c.attn_dim;
    m.out_dim = c.dec_hidden;
  }
  return m;
}

FlopTerms flop_terms(const BenchConfig& c) {
  const std::int64_t V = c.tgt_vocab, E = c.emb_dim;
  FlopTerms t;
  if (c.model == ModelKind::transformer) {
    // Per layer: the projections (Q, K, V and the output: 4 d^2), the feed-forward network
    // (2 d F); the decoder's encoder-decoder attention adds its query and output (2 d^2) per
    // step and its keys and values (2 d^2) per source token, then per step and source token
    // the scores and the weighted sum (2 d). The self-attentions' scores (quadratic in one
    // side's length) are left out of these terms.
    const std::int64_t d = c.d_model, F = c.ff_dim, L = c.layers;
    const std::int64_t layer = 2 * (4 * d * d + 2 * d * F);
    t.per_src_token = L * layer + L * 2 * 2 * d * d;
    t.per_tgt_step = L * (layer + 2 * 2 * d * d) + 2 * d * V;
    t.per_tgt_step_per_src_token = L * 2 * 2 * d;
  } else if (c.model == ModelKind::bahdanau || c.model == ModelKind::noattn) {
    const std::int64_t De = c.enc_hidden, Dd = c.dec_hidden, O = Dd;
    t.per_src_token = 2 * (2 * E * 3 * De + 2 * De * 3 * De);      // bi-GRU, both directions
    t.per_sentence = 2 * De * Dd;                                  // W_init
    t.per_tgt_step = 2 * (E + 2 * De) * 3 * Dd + 2 * Dd * 3 * Dd;  // GRUCell
    t.per_tgt_step += 2 * (Dd + 2 * De + E) * O + 2 * O * V;       // deep output + W_out
    if (c.model == ModelKind::bahdanau) {
      const std::int64_t A = c.attn_dim;
      t.per_src_token += 2 * 2 * De * A;                  // U_h h_j
      t.per_tgt_step += 2 * Dd * A;                       // W_q s_{t-1}
      t.per_tgt_step_per_src_token = 2 * A + 2 * 2 * De;  // v^T tanh(.), context
    }
  } else {
    const std::int64_t Hd = c.hidden, L = c.layers;
    for (std::int64_t l = 0; l < L; ++l)
      t.per_src_token += 2 * (l == 0 ? E : Hd) * 4 * Hd + 2 * Hd * 4 * Hd;
    const std::int64_t in0 = E + (c.input_feed ? Hd : 0);
    for (std::int64_t l = 0; l < L; ++l)
      t.per_tgt_step += 2 * (l == 0 ? in0 : Hd) * 4 * Hd + 2 * Hd * 4 * Hd;
    t.per_tgt_step += 2 * (Hd + Hd) * Hd + 2 * Hd * V;  // W_c [c; h], W_s
    // The attention, from the score's registry entry: its keys once per source token, the
    // tanh form's query-side product once per step, then per step and source token the score
    // (over the keys' width kd; the location logits' rows are dq = kd wide) and the context.
    const ScoreSpec& score = score_spec(c.score);
    const ScoreSizes sizes{Hd, Hd, c.attn_dim > 0 ? c.attn_dim : Hd, 0};
    std::int64_t kd = Hd;  // the keys' width: H itself, or the key projection's output
    if (score.key_param >= 0) {
      const ScoreParam& P = score.params[static_cast<std::size_t>(score.key_param)];
      kd = sizes(P.out);
      t.per_src_token += 2 * sizes.key * kd;
    }
    if (score.kind == kernels::ScoreKind::tanh) t.per_tgt_step += 2 * Hd * kd;
    t.per_tgt_step_per_src_token = 2 * kd + 2 * Hd;
  }
  return t;
}

double fwd_flops(const FlopTerms& t, std::span<const std::int64_t> src_len,
                 std::span<const std::int64_t> tgt_len) {
  HEED_CHECK(src_len.size() == tgt_len.size(), "fwd_flops: ", src_len.size(),
             " source lengths but ", tgt_len.size(), " target lengths");
  double f = 0;
  for (std::size_t i = 0; i < src_len.size(); ++i) {
    const auto sl = static_cast<double>(src_len[i]), tl = static_cast<double>(tgt_len[i]);
    f += static_cast<double>(t.per_src_token) * sl + static_cast<double>(t.per_sentence) +
         static_cast<double>(t.per_tgt_step) * tl +
         static_cast<double>(t.per_tgt_step_per_src_token) * sl * tl;
  }
  return f;
}

double decode_fwd_flops(const FlopTerms& t, std::span<const std::int64_t> src_len,
                        std::int64_t steps, std::int64_t rows_per_sent) {
  double f = 0;
  for (auto l : src_len) {
    const auto sl = static_cast<double>(l);
    f += static_cast<double>(t.per_src_token) * sl + static_cast<double>(t.per_sentence) +
         static_cast<double>(rows_per_sent * steps) *
             (static_cast<double>(t.per_tgt_step) +
              static_cast<double>(t.per_tgt_step_per_src_token) * sl);
  }
  return f;
}

std::vector<SyntheticBatch> make_batches(std::int64_t n_batches, std::int64_t batch,
                                         std::int64_t lo, std::int64_t hi, std::int64_t src_vocab,
                                         std::int64_t tgt_vocab, std::uint64_t seed) {
  HEED_CHECK(batch >= 1 && lo >= 1 && hi >= lo, "make_batches: bad batch or length range");
  HEED_CHECK(src_vocab > 3 && tgt_vocab > 3, "make_batches: vocabularies need more than 3 ids");
  Rng rng(seed);
  auto length = [&] {
    return lo + static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(hi - lo + 1)));
  };
  auto token = [&](std::int64_t V) {
    return static_cast<std::int32_t>(3 + rng.below(static_cast<std::uint64_t>(V - 3)));
  };
  std::vector<SyntheticBatch> out;
  out.reserve(static_cast<std::size_t>(n_batches));
  const auto B = static_cast<std::size_t>(batch);
  for (std::int64_t i = 0; i < n_batches; ++i) {
    SyntheticBatch s;
    std::vector<std::int64_t> sl(B), tl(B);
    for (auto& l : sl) l = length();
    for (auto& l : tl) l = length();
    const std::int64_t m = *std::max_element(sl.begin(), sl.end());
    const std::int64_t n = *std::max_element(tl.begin(), tl.end());
    // As the reference: draw the whole padded matrix, then mask past each length.
    s.src = TokenBatch{batch, m, std::vector<std::int32_t>(B * static_cast<std::size_t>(m)), sl};
    for (std::size_t b = 0; b < B; ++b)
      for (std::int64_t j = 0; j < m; ++j) {
        const std::int32_t tok = token(src_vocab);
        s.src.ids[b * static_cast<std::size_t>(m) + static_cast<std::size_t>(j)] =
            j < sl[b] ? tok : kPad;
      }
    s.tgt_out.assign(B * static_cast<std::size_t>(n), kPad);
    s.tgt_in =
        TokenBatch{batch, n, std::vector<std::int32_t>(B * static_cast<std::size_t>(n), kPad), tl};
    for (std::size_t b = 0; b < B; ++b) {
      std::int32_t* y = s.tgt_out.data() + b * static_cast<std::size_t>(n);
      std::int32_t* yin = s.tgt_in.ids.data() + b * static_cast<std::size_t>(n);
      for (std::int64_t j = 0; j < n; ++j) {
        const std::int32_t tok = token(tgt_vocab);
        if (j < tl[b]) y[j] = j == tl[b] - 1 ? kEos : tok;
      }
      yin[0] = kBos;
      for (std::int64_t j = 1; j < tl[b]; ++j) yin[j] = y[j - 1];
    }
    out.push_back(std::move(s));
  }
  return out;
}

void run_bench(const BenchOptions& opt, std::ostream& out) {
  HEED_CHECK(opt.threads >= 1, "--threads must be at least 1");
  HEED_CHECK(opt.steps >= 1, "--steps must be at least 1");
  HEED_CHECK(opt.warmup >= 0, "--warmup must not be negative");
  HEED_CHECK(opt.batch >= 1, "--batch must be at least 1");
  HEED_CHECK(opt.decode_sents >= 1 && opt.beam_sents >= 1,
             "--decode-sents and --beam-sents must be at least 1");
  HEED_CHECK(opt.decode_steps >= 1, "--decode-steps must be at least 1");
  HEED_CHECK(opt.beam >= 1, "--beam must be at least 1");
  std::vector<std::string> names;
  for (const auto& c : opt.configs) {
    if (c == "all") {
      for (auto& d : default_bench_configs()) names.push_back(d);
    } else {
      if (c != "ram" && c != "memn2n" && c != "las") bench_config(c);  // validates the name before anything runs
      names.push_back(c);
    }
  }
  for (const auto& name : names) {
    HEED_CHECK(!opt.optimizer || name == "memn2n", "--optimizer is config memn2n's; config ",
               name, " trains with Adam, as its reference does");
    HEED_CHECK((!opt.memn2n_dim && !opt.memn2n_hops) || name == "memn2n",
               "--memn2n-dim and --memn2n-hops are config memn2n's, not ", name, "'s");
  }
  kernels::set_num_threads(opt.threads);
  // --shortlist and --dropout are checked against every config before anything runs.
  HEED_CHECK(opt.dropout >= 0 && opt.dropout < 1, "bench: --dropout ", opt.dropout,
             ": expected a probability in [0, 1)");
  for (const auto& name : names)
    HEED_CHECK(opt.dropout == 0 || (name != "ram" && name != "memn2n" && name != "las"),
               "bench: --dropout is for the text configs, not ", name);
  for (const auto& name : names) {
    if (opt.shortlist == 0) break;
    HEED_CHECK(name != "ram" && name != "memn2n" && name != "las",
               "bench: --shortlist is for the text configs, not ", name);
    const std::int64_t V = bench_config(name).tgt_vocab;
    HEED_CHECK(opt.shortlist >= 4 && opt.shortlist <= V, "bench: --shortlist ", opt.shortlist,
               " for config ", name, ": expected 0 (none) or 4 to its target vocabulary of ", V);
  }
  for (const auto& name : names) {
    if (name == "ram") {  // an image model: its own protocol
      run_ram_bench(opt, out);
      continue;
    }
    if (name == "memn2n") {  // stories and questions: its own protocol
      run_memn2n_bench(opt, out);
      continue;
    }
    if (name == "las") {  // speech: its own protocol
      run_las_bench(opt, out);
      continue;
    }
    const BenchConfig& cfg = bench_config(name);
    Rng rng(opt.seed);
    ModelConfig mc = model_config(cfg);
    mc.location_filters = opt.location_filters;
    mc.location_width = opt.location_width;
    mc.coverage = opt.coverage;
    mc.dropout = opt.dropout;
    std::unique_ptr<Seq2Seq> model = make_model(mc, rng, DType::f32);
    model->set_rng(&rng);  // training's dropout masks (--dropout)
    // Training's and decoding's; int8 is decoding's only (training runs fp32 then).
    model->set_compute_type(
        {opt.precision == kernels::MatmulPrecision::int8 ? kernels::MatmulPrecision::f32
                                                         : opt.precision,
         opt.precision});
    const FlopTerms terms = flop_terms(cfg);
    const double mean_len = static_cast<double>(cfg.lo + cfg.hi) / 2.0;
    const double per_tgt_fwd = (static_cast<double>(terms.per_src_token) * mean_len +
                                static_cast<double>(terms.per_sentence)) /
                                   mean_len +
                               static_cast<double>(terms.per_tgt_step) +
                               static_cast<double>(terms.per_tgt_step_per_src_token) * mean_len;
    Json base;
    base["config"] = name;
    if (opt.location_filters > 0) {
      base["location_filters"] = opt.location_filters;
      base["location_width"] = opt.location_width;
    }
    if (opt.coverage) base["coverage"] = true;
    if (opt.dropout > 0) base["dropout"] = opt.dropout;
    base["threads"] = kernels::num_threads();
    base["heed"] = HEED_VERSION_STRING;
    base["tag"] = opt.tag;
    Json info = base;
    info["measure"] = "info";
    info["model"] = cfg.model;
    info["config_detail"] = config_detail(cfg);
    info["batch"] = opt.batch;
    info["params"] = model->num_parameters();
    info["flop_terms_fwd"] = flop_terms_json(terms);
    info["train_flops_per_tgt_token_at_mean_len"] =
        static_cast<std::int64_t>(std::llround(3 * per_tgt_fwd));
    info["flops_counted"] =
        "forward matmul FLOPs x3; RNN/attention/output products at real positions; no "
        "elementwise, softmax, embedding, loss or optimiser work";
    info["blas"] = {blas_config()};
    info["cpu_capability"] = cpu_capability();
    info["peak_rss_mb"] = peak_rss_mb();
    emit(out, info);
    if (opt.train) bench_train(*model, cfg, opt, base, out);
    if (opt.greedy) bench_decode(*model, cfg, opt, base, false, out);
    if (opt.beam_search) bench_decode(*model, cfg, opt, base, true, out);
  }
}

}  // namespace heed::measure
