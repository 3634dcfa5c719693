#include "heed/measure/ram_bench.h"

#include <cmath>
#include <ostream>

#include "heed/base/error.h"
#include "heed/base/random.h"
#include "heed/measure/record.h"
#include "heed/data/vocabulary.h"
#include "heed/kernels/gemm.h"
#include "heed/models/model_registry.h"
#include "heed/models/ram.h"
#include "heed/tensor/arena.h"
#include "heed/train/adam.h"
#include "heed/train/classifier_shares.h"
#include "heed/version.h"

namespace heed::measure {
namespace {

constexpr std::int64_t kSide = 60, kClasses = 10;

struct ImageBatch {
  Tensor images;                    // (B, 1, 60, 60)
  std::vector<std::int32_t> labels;
};

std::vector<ImageBatch> image_batches(std::int64_t n, std::int64_t batch, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<ImageBatch> out;
  for (std::int64_t i = 0; i < n; ++i) {
    std::vector<double> px(static_cast<std::size_t>(batch * kSide * kSide));
    for (double& v : px) v = rng.uniform();
    ImageBatch b;
    b.images = Tensor::from(Shape{batch, 1, kSide, kSide}, px, DType::f32);
    for (std::int64_t j = 0; j < batch; ++j)
      b.labels.push_back(static_cast<std::int32_t>(rng.below(kClasses)));
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace

ModelConfig ram_bench_model() {
  ModelConfig m;
  m.kind = ModelKind::ram;
  m.tgt_vocab = kClasses + Vocabulary::kSpecials;
  m.ram = RamConfig{};  // the paper's sizes are the defaults
  m.ram.glimpses = 6;
  return m;
}

void run_ram_bench(const BenchOptions& opt, std::ostream& out) {
  HEED_CHECK(opt.precision != kernels::MatmulPrecision::int8, "--precision int8: config ram "
             "decodes no text (int8 is the text models' decoding precision); use fp32 or bf16");
  const ModelConfig mc = ram_bench_model();
  Rng init(opt.seed);
  RecurrentAttentionModel model(mc.ram, ram_classes(mc), 1, init, DType::f32);
  model.set_compute_type({.training = opt.precision});  // inference's products stay fp32
  Json base;
  base["config"] = "ram";
  base["threads"] = kernels::num_threads();
  base["heed"] = HEED_VERSION_STRING;
  base["tag"] = opt.tag;
  Json info = base;
  info["measure"] = "info";
  info["model"] = "ram";
  const RamConfig& r = mc.ram;
  info["config_detail"] = {{"image", {kSide, kSide}},          {"glimpses", r.glimpses},
                           {"glimpse_size", r.glimpse_size},   {"scales", r.scales},
                           {"glimpse_hidden", r.glimpse_hidden},
                           {"location_hidden", r.location_hidden},
                           {"glimpse_dim", r.glimpse_dim},     {"core", "rnn"},
                           {"core_hidden", r.core_hidden},     {"location_std", r.location_std},
                           {"classes", kClasses}};
  info["batch"] = opt.batch;
  info["params"] = model.num_parameters();
  info["blas"] = {blas_config()};
  info["cpu_capability"] = cpu_capability();
  info["peak_rss_mb"] = peak_rss_mb();
  emit(out, info);
  Arena arena;

  if (opt.train) {
    const auto batches = image_batches(opt.warmup + opt.steps, opt.batch, opt.seed);
    const std::vector<Var> params = model.parameters();
    AdamOptions adam;
    adam.lr = 1e-3;
    Adam optimizer(params, adam);
    model.train();
    Rng draws(opt.seed + 7);
    // The trainer's step (train/classifier_shares.h): with two or more threads, the batch's
    // shares side by side, each through a replica sharing the model's values.
    ClassifierShares shares(model, [&] {
      Rng unused;
      return std::make_unique<RecurrentAttentionModel>(mc.ram, ram_classes(mc), 1, unused,
                                                       DType::f32);
    });
    std::vector<double> t_forward, t_backward, t_update, step_times;
    double last_loss = std::nan("");
    auto step = [&](const ImageBatch& b, bool timed) {
      const auto t0 = Clock::now();
      optimizer.zero_grad();
      const ClassifierShares::Step s =
          shares.forward_backward(b.images, b.labels, draws, 1.0);
      last_loss = s.classification;
      const auto t1 = Clock::now();
      optimizer.step();
      if (timed) {
        t_forward.push_back(s.forward_seconds);
        t_backward.push_back(s.backward_seconds);
        t_update.push_back(seconds_since(t1));
        step_times.push_back(seconds_since(t0));
      }
    };
    for (std::int64_t i = 0; i < opt.warmup; ++i) step(batches[static_cast<std::size_t>(i)], false);
    const auto t0 = Clock::now();
    for (std::int64_t i = opt.warmup; i < opt.warmup + opt.steps; ++i)
      step(batches[static_cast<std::size_t>(i)], true);
    const double dt = seconds_since(t0);
    Json j = base;
    j["measure"] = "train";
    j["precision"] = kernels::matmul_precision_name(opt.precision);
    j["steps"] = opt.steps;
    j["batch"] = opt.batch;
    j["images"] = opt.steps * opt.batch;
    j["seconds"] = round_to(dt, 3);
    j["images_per_s"] = round_to(static_cast<double>(opt.steps * opt.batch) / dt, 1);
    j["ms_per_step_mean"] = round_to(1000 * dt / static_cast<double>(opt.steps), 2);
    j["ms_per_step_median"] = round_to(1000 * median(step_times), 2);
    j["loss_last"] = round_to(last_loss, 4);
    j["forward_ms_median"] = round_to(1000 * median(t_forward), 2);
    j["backward_ms_median"] = round_to(1000 * median(t_backward), 2);
    j["adam_ms_median"] = round_to(1000 * median(t_update), 2);
    j["peak_rss_mb"] = peak_rss_mb();
    emit(out, j);
  }

  if (opt.infer) {
    const std::int64_t n = std::max<std::int64_t>(1, opt.decode_sents / opt.batch);
    const auto batches = image_batches(n + 1, opt.batch, opt.seed + 1);
    model.eval();
    Rng unused(opt.seed);
    auto run = [&](const ImageBatch& b) {
      {
        ArenaScope scope(&arena);
        model.predict(Var(b.images), 1, unused);  // the mean locations
      }
      arena.reset();
    };
    run(batches[0]);  // warm-up
    const auto t0 = Clock::now();
    for (std::size_t i = 1; i < batches.size(); ++i) run(batches[i]);
    const double dt = seconds_since(t0);
    Json j = base;
    j["measure"] = "infer";
    j["precision"] = kernels::matmul_precision_name(opt.precision);
    j["images"] = n * opt.batch;
    j["batch"] = opt.batch;
    j["seconds"] = round_to(dt, 3);
    j["images_per_s"] = round_to(static_cast<double>(n * opt.batch) / dt, 1);
    j["peak_rss_mb"] = peak_rss_mb();
    emit(out, j);
  }
}

}  // namespace heed::measure
