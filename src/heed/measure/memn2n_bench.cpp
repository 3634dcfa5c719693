#include "heed/measure/memn2n_bench.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <ostream>

#include "heed/autograd/cross_entropy_op.h"
#include "heed/autograd/softmax_op.h"
#include "heed/autograd/tape.h"
#include "heed/base/enum_names.h"
#include "heed/base/error.h"
#include "heed/kernels/gemm.h"
#include "heed/measure/record.h"
#include "heed/models/memory_network.h"
#include "heed/tensor/arena.h"
#include "heed/train/adam.h"
#include "heed/train/clip.h"
#include "heed/train/sgd.h"
#include "heed/version.h"

namespace heed::measure {
namespace {

// tools/torch_memn2n.py's constants.
constexpr std::int64_t kVocab = 180, kMemorySize = 50;
constexpr std::int64_t kFirstWord = 4;  // after PAD, BOS, EOS, UNK
constexpr double kLr = 0.01, kClip = 40.0;

// An integer uniform in lo..hi, both included.
std::int32_t uniform_in(Rng& rng, std::int64_t lo, std::int64_t hi) {
  return static_cast<std::int32_t>(lo + static_cast<std::int64_t>(
                                            rng.below(static_cast<std::uint64_t>(hi - lo + 1))));
}

std::vector<std::int32_t> words(Rng& rng, std::int64_t n) {
  std::vector<std::int32_t> w(static_cast<std::size_t>(n));
  for (std::int32_t& id : w) id = uniform_in(rng, kFirstWord, kVocab - 1);
  return w;
}

// Batches of `batch` questions each, laid out by make_memory_batch (no empty memories).
std::vector<MemoryBatch> memory_batches(std::int64_t n, std::int64_t batch, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<std::size_t> members(static_cast<std::size_t>(batch));
  std::iota(members.begin(), members.end(), std::size_t{0});
  std::vector<MemoryBatch> out;
  for (std::int64_t i = 0; i < n; ++i)
    out.push_back(make_memory_batch(memn2n_bench_questions(batch, rng), members, kMemorySize));
  return out;
}

}  // namespace

ModelConfig memn2n_bench_model(std::int64_t dim, std::int64_t hops) {
  ModelConfig m;
  m.kind = ModelKind::memn2n;
  m.src_vocab = m.tgt_vocab = kVocab;
  m.emb_dim = dim;
  m.memory.hops = hops;
  m.memory.memory_size = kMemorySize;
  m.memory.position_encoding = m.memory.temporal_encoding = true;
  return m;
}

std::vector<EncodedQuestion> memn2n_bench_questions(std::int64_t n, Rng& rng) {
  std::vector<EncodedQuestion> out(static_cast<std::size_t>(n));
  for (EncodedQuestion& q : out) {
    std::int32_t statements = uniform_in(rng, 2, 50);
    for (int draw = 0; draw < 2; ++draw) statements = std::min(statements, uniform_in(rng, 2, 50));
    for (std::int32_t i = 0; i < statements; ++i) q.story.push_back(words(rng, uniform_in(rng, 3, 10)));
    q.question = words(rng, uniform_in(rng, 3, 6));
    q.answer = uniform_in(rng, kFirstWord, kVocab - 1);
  }
  return out;
}

void run_memn2n_bench(const BenchOptions& opt, std::ostream& out) {
  const OptimizerKind kind = opt.optimizer.value_or(OptimizerKind::sgd);
  HEED_CHECK(kind == OptimizerKind::sgd || kind == OptimizerKind::adam,
             "--optimizer: config memn2n trains with sgd or adam (tools/torch_memn2n.py's "
             "choices), got ", enum_name(kind));
  HEED_CHECK(opt.precision == kernels::MatmulPrecision::f32, "--precision: config memn2n runs "
             "in fp32 (as heed train's memn2n; its products are small), got ",
             kernels::matmul_precision_name(opt.precision));
  const ModelConfig mc = memn2n_bench_model(opt.memn2n_dim.value_or(kMemn2nBenchDim),
                                            opt.memn2n_hops.value_or(kMemn2nBenchHops));
  Rng init(opt.seed);
  MemoryNetwork model(mc, init, DType::f32);
  Json base;
  base["config"] = "memn2n";
  base["threads"] = kernels::num_threads();
  base["heed"] = HEED_VERSION_STRING;
  base["tag"] = opt.tag;
  Json info = base;
  info["measure"] = "info";
  info["model"] = "memn2n";
  info["config_detail"] = {{"vocab", kVocab},
                           {"dim", mc.emb_dim},
                           {"hops", mc.memory.hops},
                           {"memory_size", kMemorySize},
                           {"position_encoding", true},
                           {"temporal_encoding", true}};
  info["batch"] = opt.batch;
  info["params"] = model.num_parameters();
  // The threads a step's kernels get (MemoryNetwork::step_threads): 1 at the protocol's sizes.
  info["step_threads"] = model.step_threads(opt.batch, opt.threads);
  info["blas"] = {blas_config()};
  info["cpu_capability"] = cpu_capability();
  info["peak_rss_mb"] = peak_rss_mb();
  emit(out, info);
  Arena arena;

  if (opt.train) {
    const auto batches = memory_batches(opt.warmup + opt.steps, opt.batch, opt.seed);
    const std::vector<Var> params = model.parameters();
    std::unique_ptr<Optimizer> optimizer;
    if (kind == OptimizerKind::sgd) {
      SgdOptions sgd;
      sgd.lr = kLr;
      optimizer = std::make_unique<Sgd>(params, sgd);
    } else {
      AdamOptions adam;
      adam.lr = kLr;
      optimizer = std::make_unique<Adam>(params, adam);
    }
    model.train();
    // The reference's split of a step: zero_grad, forward and loss; backward; clip and update.
    std::vector<double> t_forward, t_backward, t_update, step_times;
    double last_loss = std::nan("");
    auto step = [&](const MemoryBatch& b, bool timed) {
      {
        // As heed train's step (train/question_answering_task.cpp).
        const kernels::ScopedNumThreads threads(model.step_threads(b.size, opt.threads));
        ArenaScope scope(&arena);
        const auto t0 = Clock::now();
        optimizer->zero_grad();
        const MemoryAnswer a = model.forward(b);
        Var loss = cross_entropy(a.logits, b.answers);
        last_loss = loss.value().item();
        const auto t1 = Clock::now();
        Tape::current().backward(loss);
        const auto t2 = Clock::now();
        clip_grad_norm(params, kClip);
        optimizer->step();
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
    for (std::int64_t i = opt.warmup; i < opt.warmup + opt.steps; ++i)
      step(batches[static_cast<std::size_t>(i)], true);
    const double dt = seconds_since(t0);
    const std::int64_t questions = opt.steps * opt.batch;
    Json j = base;
    j["measure"] = "train";
    j["precision"] = "fp32";
    j["optimizer"] = enum_name(kind);
    j["steps"] = opt.steps;
    j["batch"] = opt.batch;
    j["questions"] = questions;
    j["seconds"] = round_to(dt, 3);
    j["questions_per_s"] = round_to(static_cast<double>(questions) / dt, 1);
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
    const auto batches = memory_batches(n + 1, opt.batch, opt.seed + 1);
    model.eval();
    NoGradGuard no_grad;
    auto run = [&](const MemoryBatch& b) {
      {
        const kernels::ScopedNumThreads threads(model.step_threads(b.size, opt.threads));
        ArenaScope scope(&arena);
        softmax(model.forward(b).logits);
      }
      arena.reset();
    };
    run(batches[0]);  // warm-up
    const auto t0 = Clock::now();
    for (std::size_t i = 1; i < batches.size(); ++i) run(batches[i]);
    const double dt = seconds_since(t0);
    const std::int64_t questions = n * opt.batch;
    Json j = base;
    j["measure"] = "infer";
    j["precision"] = "fp32";
    j["questions"] = questions;
    j["batch"] = opt.batch;
    j["seconds"] = round_to(dt, 3);
    j["questions_per_s"] = round_to(static_cast<double>(questions) / dt, 1);
    j["peak_rss_mb"] = peak_rss_mb();
    emit(out, j);
  }
}

}  // namespace heed::measure
