// The recurrent attention model (docs/MODELS.md#recurrent-attention-model); the equations are
// in ram.h. Registered as model.kind ram: it reads images, so its registry entry builds no
// Seq2Seq and heed train builds it with the image data's class count (train/ram_task.h).
#include "heed/models/ram.h"

#include <algorithm>
#include <cmath>

#include "heed/autograd/concat_op.h"
#include "heed/autograd/elementwise_op.h"
#include "heed/autograd/gaussian_op.h"
#include "heed/autograd/glimpse_op.h"
#include "heed/autograd/index.h"
#include "heed/autograd/lstm.h"
#include "heed/autograd/matmul.h"
#include "heed/autograd/softmax_op.h"
#include "heed/autograd/tape.h"
#include "heed/base/error.h"
#include "heed/models/model_registry.h"

namespace heed {

namespace {

Var detached(const Var& x) { return Var(x.value()); }

Tensor clamped(const Tensor& l) {
  std::vector<double> v = l.to_vector();
  for (double& x : v) x = std::clamp(x, -1.0, 1.0);
  return Tensor::from(l.shape(), v, l.dtype());
}

}  // namespace

void validate_ram_config(const RamConfig& c, std::int64_t classes) {
  HEED_CHECK(classes >= 1, "model: the recurrent attention model needs at least one class, got ",
             classes);
  HEED_CHECK(c.glimpses >= 1, "model.glimpses must be at least 1, got ", c.glimpses);
  HEED_CHECK(c.glimpse_size >= 1 && c.glimpse_size <= 4096,
             "model.glimpse_size must be from 1 to 4096, got ", c.glimpse_size);
  HEED_CHECK(c.scales >= 1 && c.scales <= 8, "model.scales must be from 1 to 8, got ", c.scales);
  HEED_CHECK((c.glimpse_size << (c.scales - 1)) <= 4096, "model.glimpse_size ", c.glimpse_size,
             " with model.scales ", c.scales, " makes a largest patch of ",
             c.glimpse_size << (c.scales - 1), " pixels; at most 4096");
  HEED_CHECK(c.glimpse_hidden >= 1, "model.glimpse_hidden must be at least 1, got ",
             c.glimpse_hidden);
  HEED_CHECK(c.location_hidden >= 1, "model.location_hidden must be at least 1, got ",
             c.location_hidden);
  HEED_CHECK(c.glimpse_dim >= 1, "model.glimpse_dim must be at least 1, got ", c.glimpse_dim);
  HEED_CHECK(c.core_hidden >= 1, "model.core_hidden must be at least 1, got ", c.core_hidden);
  HEED_CHECK(std::isfinite(c.location_std) && c.location_std > 0 && c.location_std <= 1,
             "model.location_std must be in (0, 1], got ", c.location_std);
  HEED_CHECK(c.sample_paths >= 1, "model.sample_paths must be at least 1, got ", c.sample_paths);
}

RecurrentAttentionModel::GlimpseNetwork::GlimpseNetwork(const RamConfig& c, std::int64_t channels,
                                                        Rng& rng, DType dtype)
    : patches(c.scales * channels * c.glimpse_size * c.glimpse_size, c.glimpse_hidden, true, rng,
              dtype),
      location(2, c.location_hidden, true, rng, dtype),
      what(c.glimpse_hidden, c.glimpse_dim, true, rng, dtype),
      where(c.location_hidden, c.glimpse_dim, true, rng, dtype) {
  register_module("patches", patches);
  register_module("location", location);
  register_module("what", what);
  register_module("where", where);
}

RecurrentAttentionModel::Core::Core(const RamConfig& c, Rng& rng, DType dtype) {
  // PyTorch's RNNCell / LSTMCell: every weight uniform(+-1/sqrt(hidden)), the LSTM's gates
  // stacked i, f, g, o.
  const std::int64_t H = c.core_hidden, gates = c.core == RamCore::lstm ? 4 * H : H;
  const double bound = 1.0 / std::sqrt(static_cast<double>(H));
  weight_ih = register_parameter("weight_ih", init_uniform({gates, c.glimpse_dim}, bound, rng, dtype));
  weight_hh = register_parameter("weight_hh", init_uniform({gates, H}, bound, rng, dtype));
  bias_ih = register_parameter("bias_ih", init_uniform({gates}, bound, rng, dtype));
  bias_hh = register_parameter("bias_hh", init_uniform({gates}, bound, rng, dtype));
}

RecurrentAttentionModel::RecurrentAttentionModel(const RamConfig& config, std::int64_t classes,
                                                 std::int64_t channels, Rng& rng, DType dtype)
    : config_((validate_ram_config(config, classes), config)), classes_(classes),
      channels_(channels), glimpse_(config, channels, rng, dtype), core_(config, rng, dtype),
      location_(config.core_hidden, 2, true, rng, dtype),
      baseline_(config.core_hidden, 1, true, rng, dtype),
      classifier_(config.core_hidden, classes, true, rng, dtype) {
  HEED_CHECK(channels >= 1, "the recurrent attention model needs images of at least one channel");
  register_module("glimpse", glimpse_);
  register_module("core", core_);
  register_module("location", location_);
  register_module("baseline", baseline_);
  register_module("classifier", classifier_);
}

RamOutput RecurrentAttentionModel::forward(const Var& images, RamLocations how, Rng* rng,
                                           const std::vector<Tensor>* given) const {
  HEED_CHECK(images.value().ndim() == 4 && images.dim(1) == channels_,
             "recurrent attention model: images must be (B, ", channels_, ", H, W), got ",
             images.shape().str());
  const std::int64_t B = images.dim(0), T = config_.glimpses, H = config_.core_hidden;
  const DType dtype = images.dtype();
  HEED_CHECK((how != RamLocations::sample && how != RamLocations::random) || rng != nullptr,
             "recurrent attention model: sampling locations needs a random generator");
  HEED_CHECK(how != RamLocations::given ||
                 (given != nullptr && static_cast<std::int64_t>(given->size()) == T - 1),
             "recurrent attention model: given locations must hold T - 1 = ", T - 1, " entries");
  const GlimpseOptions sensor{config_.glimpse_size, config_.scales};
  const bool lstm = config_.core == RamCore::lstm;
  const kernels::MatmulPrecision precision = this->precision();

  RamOutput out;
  Tensor l = Tensor::zeros(Shape{B, 2}, dtype);  // l_0: the centre
  LstmState state{Var(Tensor::zeros(Shape{B, H}, dtype)), Var(Tensor::zeros(Shape{B, H}, dtype))};
  for (std::int64_t t = 1; t <= T; ++t) {
    out.locations.push_back(l);
    // The glimpse network reads the location as data: nothing flows back into it.
    const Var where = Var(l);
    const Var h_g = relu(glimpse_.patches.forward(glimpse(images, l, sensor), precision));
    const Var h_l = relu(glimpse_.location.forward(where, precision));
    const Var g = relu(add(glimpse_.what.forward(h_g, precision),
                           glimpse_.where.forward(h_l, precision)));
    if (lstm) {
      state = lstm_cell(g, state, core_.weight_ih, core_.weight_hh, core_.bias_ih, core_.bias_hh,
                        {}, precision);
    } else {
      state.h = relu(add(linear(g, core_.weight_ih, core_.bias_ih, precision),
                         linear(state.h, core_.weight_hh, core_.bias_hh, precision)));
    }
    if (t == T) break;
    if (how == RamLocations::random) {  // the ablation: no policy, no baseline
      std::vector<double> u(static_cast<std::size_t>(B * 2));
      for (double& x : u) x = rng->uniform(-1.0, 1.0);
      l = Tensor::from(Shape{B, 2}, u, dtype);
      out.samples.push_back(l);
      continue;
    }
    // The policy and the baseline see the core state detached: their terms of the loss train
    // them alone, never the core or the glimpse network.
    const Var h = detached(state.h);
    const Var mu = tanh(location_.forward(h, precision));
    Tensor sample;
    if (how == RamLocations::mean) sample = mu.value().clone();
    else if (how == RamLocations::sample) sample = gaussian_sample(mu, config_.location_std, *rng);
    else sample = (*given)[static_cast<std::size_t>(t - 1)];
    if (how != RamLocations::mean) {
      out.log_prob.push_back(gaussian_log_prob(mu, sample, config_.location_std));
      out.samples.push_back(sample);
    }
    out.baseline.push_back(reshape(baseline_.forward(h, precision), Shape{B}));
    l = clamped(sample);
  }
  out.logits = classifier_.forward(state.h, precision);
  return out;
}

ClassifierOutput RecurrentAttentionModel::forward_train(const Var& images, Rng& rng) const {
  return forward(images, config_.random_locations ? RamLocations::random : RamLocations::sample,
                 &rng);
}

RamPrediction RecurrentAttentionModel::predict(const Var& images, std::int64_t paths,
                                               Rng& rng) const {
  HEED_CHECK(paths >= 1, "recurrent attention model: paths must be at least 1, got ", paths);
  NoGradGuard no_grad;
  RamPrediction p;
  std::vector<double> sum;
  for (std::int64_t m = 0; m < paths; ++m) {
    const RamLocations how = config_.random_locations ? RamLocations::random
                             : paths == 1               ? RamLocations::mean
                                                        : RamLocations::sample;
    RamOutput out = forward(images, how, &rng);
    const std::vector<double> probs = softmax(out.logits).value().to_vector();
    if (sum.empty()) sum.assign(probs.size(), 0.0);
    for (std::size_t i = 0; i < probs.size(); ++i) sum[i] += probs[i] / static_cast<double>(paths);
    p.paths.push_back(std::move(out.locations));
  }
  p.probabilities = Tensor::from(Shape{images.dim(0), classes_}, sum, DType::f64);
  return p;
}

Var RecurrentAttentionModel::test_logits(const Var& images, Rng& rng) const {
  return forward(images, config_.random_locations ? RamLocations::random : RamLocations::mean, &rng)
      .logits;
}

std::vector<Var> RecurrentAttentionModel::glimpse_parameters() const { return glimpse_.parameters(); }
std::vector<Var> RecurrentAttentionModel::core_parameters() const { return core_.parameters(); }
std::vector<Var> RecurrentAttentionModel::location_parameters() const { return location_.parameters(); }
std::vector<Var> RecurrentAttentionModel::baseline_parameters() const { return baseline_.parameters(); }
std::vector<Var> RecurrentAttentionModel::classifier_parameters() const {
  return classifier_.parameters();
}

namespace {

void validate(const ModelConfig& c) {
  validate_ram_config(c.ram, ram_classes(c));
}

std::unique_ptr<ImageClassifier> build(const ModelConfig& c, std::int64_t channels, Rng& rng,
                                       DType dtype) {
  return std::make_unique<RecurrentAttentionModel>(c.ram, ram_classes(c), channels, rng, dtype);
}

}  // namespace

extern const ModelKindSpec kRamSpec{ModelKind::ram, RnnCell::gru, validate, nullptr,
                                    no_source_length, build};

}  // namespace heed
