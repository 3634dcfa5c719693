#include "heed/measure/las_bench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ostream>

#include "heed/autograd/cross_entropy_op.h"
#include "heed/autograd/tape.h"
#include "heed/base/enum_names.h"
#include "heed/base/error.h"
#include "heed/decode/frozen_model.h"
#include "heed/decode/greedy.h"
#include "heed/kernels/gemm.h"
#include "heed/measure/record.h"
#include "heed/models/listener.h"
#include "heed/models/model_registry.h"
#include "heed/models/seq2seq.h"
#include "heed/tensor/arena.h"
#include "heed/train/adam.h"
#include "heed/train/clip.h"
#include "heed/version.h"

namespace heed::measure {
namespace {

// tools/torch_las.py's constants.
constexpr std::int64_t kVocab = 14, kMels = 40, kStack = 3, kFeatures = kMels * kStack;
constexpr std::int64_t kFirstWord = 4;        // after PAD, BOS, EOS, UNK
constexpr double kSecondsPerFrame = 0.03;     // a stacked frame: 3 frames of 10 ms
constexpr double kLr = 1e-3, kClip = 5.0;

struct SpeechBatch {
  TokenBatch src, tgt_in;
  std::vector<std::int32_t> tgt_out;  // (B, n) row-major, PAD after each length
  std::int64_t frames = 0;            // the real stacked frames of the batch
};

std::int64_t uniform_in(Rng& rng, std::int64_t lo, std::int64_t hi) {
  return lo + static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(hi - lo + 1)));
}

std::vector<SpeechBatch> speech_batches(std::int64_t n, std::int64_t batch, std::int64_t pyramid,
                                        std::uint64_t seed) {
  Rng rng(seed);
  std::vector<SpeechBatch> out;
  const auto B = static_cast<std::size_t>(batch);
  for (std::int64_t i = 0; i < n; ++i) {
    SpeechBatch s;
    std::vector<Tensor> utterances;
    std::vector<std::vector<std::int32_t>> words(B);
    for (std::size_t b = 0; b < B; ++b) {
      const std::int64_t w = uniform_in(rng, 1, 7);
      const std::int64_t T = uniform_in(rng, 12 * w + 5, 20 * w + 10);
      Tensor x = Tensor::zeros({T, kFeatures});
      float* p = x.data<float>();
      for (std::int64_t k = 0; k < x.numel(); ++k) p[k] = static_cast<float>(rng.normal());
      utterances.push_back(x);
      s.frames += T;
      for (std::int64_t k = 0; k < w; ++k)
        words[b].push_back(static_cast<std::int32_t>(uniform_in(rng, kFirstWord, kVocab - 1)));
    }
    s.src = speech_batch(utterances, pyramid, DType::f32);
    std::int64_t m = 0;
    std::vector<std::int64_t> lengths(B);
    for (std::size_t b = 0; b < B; ++b)
      m = std::max(m, lengths[b] = static_cast<std::int64_t>(words[b].size()) + 1);
    s.tgt_in = TokenBatch{batch, m, std::vector<std::int32_t>(B * static_cast<std::size_t>(m), kPad),
                          lengths};
    s.tgt_out.assign(B * static_cast<std::size_t>(m), kPad);
    for (std::size_t b = 0; b < B; ++b) {
      std::int32_t* yin = s.tgt_in.ids.data() + b * static_cast<std::size_t>(m);
      std::int32_t* y = s.tgt_out.data() + b * static_cast<std::size_t>(m);
      yin[0] = kBos;
      for (std::size_t k = 0; k < words[b].size(); ++k) {
        y[k] = words[b][k];
        yin[k + 1] = words[b][k];
      }
      y[words[b].size()] = kEos;
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

ModelConfig las_bench_model() {
  ModelConfig m;
  m.kind = ModelKind::las;
  m.src_vocab = 0;
  m.tgt_vocab = kVocab;
  m.encoder_cell = RnnCell::gru;
  m.enc_layers = 3;
  m.enc_hidden = 96;
  m.listener.pyramid = 4;
  m.listener.feature_dim = kFeatures;
  m.emb_dim = 32;
  m.dec_hidden = 128;
  m.attn_dim = 64;
  m.dropout = 0.0;
  return m;
}

void run_las_bench(const BenchOptions& opt, std::ostream& out) {
  HEED_CHECK(opt.precision == kernels::MatmulPrecision::f32,
             "--precision: config las runs in fp32, got ",
             kernels::matmul_precision_name(opt.precision));
  const ModelConfig mc = las_bench_model();
  validate_model_config(mc);
  Rng init(opt.seed);
  std::unique_ptr<Seq2Seq> model = make_model(mc, init, DType::f32);
  Json base;
  base["config"] = "las";
  base["threads"] = kernels::num_threads();
  base["heed"] = HEED_VERSION_STRING;
  base["tag"] = opt.tag;
  Json info = base;
  info["measure"] = "info";
  info["model"] = "las";
  info["config_detail"] = {{"vocab", kVocab},          {"features", kFeatures},
                           {"cell", "gru"},            {"enc_layers", mc.enc_layers},
                           {"enc_hidden", mc.enc_hidden}, {"pyramid", mc.listener.pyramid},
                           {"emb_dim", mc.emb_dim},     {"dec_hidden", mc.dec_hidden},
                           {"attn_dim", mc.attn_dim}};
  info["batch"] = opt.batch;
  info["params"] = model->num_parameters();
  info["blas"] = {blas_config()};
  info["cpu_capability"] = cpu_capability();
  info["peak_rss_mb"] = peak_rss_mb();
  emit(out, info);
  Arena arena;

  if (opt.train) {
    const auto batches =
        speech_batches(opt.warmup + opt.steps, opt.batch, mc.listener.pyramid, opt.seed);
    const std::vector<Var> params = model->parameters();
    AdamOptions adam;
    adam.lr = kLr;
    Adam optimizer(params, adam);
    model->train();
    std::vector<double> t_forward, t_backward, t_update, step_times;
    double last_loss = std::nan("");
    auto step = [&](const SpeechBatch& b, bool timed) {
      {
        ArenaScope scope(&arena);
        const auto t0 = Clock::now();
        optimizer.zero_grad();
        Var logits = model->forward_packed(b.src, b.tgt_in);
        Var loss = cross_entropy(logits, pack_targets(b.tgt_out, b.tgt_in), kPad);
        last_loss = loss.value().item();
        const auto t1 = Clock::now();
        Tape::current().backward(loss);
        const auto t2 = Clock::now();
        clip_grad_norm(params, kClip);
        optimizer.step();
        if (timed) {
          t_forward.push_back(std::chrono::duration<double>(t1 - t0).count());
          t_backward.push_back(std::chrono::duration<double>(t2 - t1).count());
          t_update.push_back(seconds_since(t2));
          step_times.push_back(seconds_since(t0));
        }
      }
      arena.reset();
    };
    for (std::int64_t i = 0; i < opt.warmup; ++i) step(batches[static_cast<std::size_t>(i)], false);
    const auto t0 = Clock::now();
    std::int64_t frames = 0;
    for (std::int64_t i = opt.warmup; i < opt.warmup + opt.steps; ++i) {
      step(batches[static_cast<std::size_t>(i)], true);
      frames += batches[static_cast<std::size_t>(i)].frames;
    }
    const double dt = seconds_since(t0);
    const std::int64_t utterances = opt.steps * opt.batch;
    Json j = base;
    j["measure"] = "train";
    j["precision"] = "fp32";
    j["steps"] = opt.steps;
    j["batch"] = opt.batch;
    j["utterances"] = utterances;
    j["seconds"] = round_to(dt, 3);
    j["utterances_per_s"] = round_to(static_cast<double>(utterances) / dt, 1);
    j["audio_s_per_s"] = round_to(static_cast<double>(frames) * kSecondsPerFrame / dt, 1);
    j["ms_per_step_mean"] = round_to(1000 * dt / static_cast<double>(opt.steps), 2);
    j["ms_per_step_median"] = round_to(1000 * median(step_times), 2);
    j["loss_last"] = round_to(last_loss, 4);
    j["forward_ms_median"] = round_to(1000 * median(t_forward), 2);
    j["backward_ms_median"] = round_to(1000 * median(t_backward), 2);
    j["update_ms_median"] = round_to(1000 * median(t_update), 2);
    j["peak_rss_mb"] = peak_rss_mb();
    emit(out, j);
  }

  if (opt.infer) {
    const std::int64_t n = std::max<std::int64_t>(1, opt.decode_sents / opt.batch);
    const auto batches = speech_batches(n + 1, opt.batch, mc.listener.pyramid, opt.seed + 1);
    model->eval();
    NoGradGuard no_grad;
    FrozenModel frozen(*model);
    DecodeOptions dopt;
    dopt.max_len = opt.decode_steps;
    dopt.stop_at_eos = false;
    auto run = [&](const SpeechBatch& b) {
      {
        ArenaScope scope(&arena);
        const DecodeResult r = greedy_decode(*model, b.src, dopt);
        HEED_CHECK(r.steps == opt.decode_steps, "bench: the speller ran ", r.steps,
                   " steps, not ", opt.decode_steps);
      }
      arena.reset();
    };
    run(batches[0]);  // warm-up
    const auto t0 = Clock::now();
    std::int64_t frames = 0;
    for (std::size_t i = 1; i < batches.size(); ++i) {
      run(batches[i]);
      frames += batches[i].frames;
    }
    const double dt = seconds_since(t0);
    const std::int64_t utterances = n * opt.batch;
    Json j = base;
    j["measure"] = "infer";
    j["precision"] = "fp32";
    j["utterances"] = utterances;
    j["batch"] = opt.batch;
    j["decode_steps"] = opt.decode_steps;
    j["seconds"] = round_to(dt, 3);
    j["utterances_per_s"] = round_to(static_cast<double>(utterances) / dt, 1);
    j["audio_s_per_s"] = round_to(static_cast<double>(frames) * kSecondsPerFrame / dt, 1);
    j["peak_rss_mb"] = peak_rss_mb();
    emit(out, j);
  }
}

}  // namespace heed::measure
