#include "heed/train/lr_schedule.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "heed/base/error.h"
#include "heed/config/train_config.h"

namespace heed {

LrScheduleOptions LrScheduleOptions::from(const TrainingConfig& c) {
  LrScheduleOptions o;
  o.kind = c.schedule;
  o.lr = c.lr;
  o.decay_factor = c.decay_factor;
  o.patience = c.plateau_patience;
  o.min_lr = c.min_lr;
  o.warmup_steps = c.warmup_steps;
  o.decay_steps = c.decay_steps;
  o.decay = c.decay;
  o.max_steps = c.max_steps;
  o.max_seconds = c.max_seconds;
  o.higher_is_better = metric_higher_is_better(c.metric);
  return o;
}

LrSchedule::LrSchedule(LrScheduleOptions options) : o_(std::move(options)) {
  HEED_CHECK(o_.lr > 0, "the learning rate must be positive, got ", o_.lr);
  HEED_CHECK(o_.kind != ScheduleKind::step || o_.decay_steps > 0,
             "training.decay_steps must be at least 1, got ", o_.decay_steps);
  if (o_.kind == ScheduleKind::warmup) {
    HEED_CHECK(o_.decay != DecayKind::linear || o_.max_steps > o_.warmup_steps || o_.max_seconds > 0,
               "training.decay: linear decay needs training.max_steps (", o_.max_steps,
               ") greater than training.warmup_steps (", o_.warmup_steps,
               ") or training.max_seconds");
  }
}

double LrSchedule::lr(std::int64_t step, double elapsed_seconds) const {
  const double s = static_cast<double>(std::max<std::int64_t>(step, 1));
  if (o_.kind == ScheduleKind::plateau) return std::max(o_.lr * scale_, o_.min_lr);
  if (o_.kind == ScheduleKind::step) {
    const auto k = static_cast<double>((std::max<std::int64_t>(step, 1) - 1) / o_.decay_steps);
    return std::max(o_.lr * std::pow(o_.decay_factor, k), o_.min_lr);
  }
  if (o_.kind != ScheduleKind::warmup) return o_.lr;
  const double w = static_cast<double>(o_.warmup_steps);
  if (o_.warmup_steps > 0 && s <= w) return o_.lr * s / w;
  if (o_.decay == DecayKind::inverse_sqrt) return o_.warmup_steps > 0 ? o_.lr * std::sqrt(w / s) : o_.lr / std::sqrt(s);
  if (o_.decay == DecayKind::linear) {
    double left = 1.0;  // the share of the decay still ahead
    if (o_.max_steps > o_.warmup_steps)
      left = (static_cast<double>(o_.max_steps) - s) / (static_cast<double>(o_.max_steps) - w);
    if (o_.max_seconds > 0) left = std::min(left, 1.0 - elapsed_seconds / o_.max_seconds);
    return o_.lr * std::max(0.0, left);
  }
  return o_.lr;
}

bool LrSchedule::on_validation(double dev_metric) {
  if (o_.kind != ScheduleKind::plateau) return false;
  const bool better = !has_best_ || (o_.higher_is_better ? dev_metric > best_ : dev_metric < best_);
  if (better) {
    has_best_ = true;
    best_ = dev_metric;
    bad_ = 0;
    return false;
  }
  if (++bad_ <= o_.patience) return false;
  bad_ = 0;
  if (o_.lr * scale_ <= o_.min_lr) return false;  // already at the floor
  scale_ *= o_.decay_factor;
  ++reductions_;
  return true;
}

std::string LrSchedule::state() const {
  char buf[160];
  std::snprintf(buf, sizeof buf, "scale %a best %a has_best %d bad %lld reductions %lld", scale_,
                best_, has_best_ ? 1 : 0, static_cast<long long>(bad_),
                static_cast<long long>(reductions_));
  return buf;
}

void LrSchedule::set_state(const std::string& state) {
  std::istringstream in(state);
  std::string k1, k2, k3, k4, k5, scale, best;
  int has_best = 0;
  long long bad = 0, reductions = 0;
  in >> k1 >> scale >> k2 >> best >> k3 >> has_best >> k4 >> bad >> k5 >> reductions;
  HEED_CHECK(!in.fail() && k1 == "scale" && k2 == "best" && k3 == "has_best" && k4 == "bad" &&
                 k5 == "reductions",
             "cannot read the learning-rate schedule state '", state, "'");
  scale_ = std::strtod(scale.c_str(), nullptr);
  best_ = std::strtod(best.c_str(), nullptr);
  has_best_ = has_best != 0;
  bad_ = bad;
  reductions_ = reductions;
}

}  // namespace heed
