#pragma once
// The named choices of the `training:` section (docs/CONFIG.md), one enum each with its names.
#include <span>

#include "heed/base/enum_names.h"

namespace heed {

enum class OptimizerKind { adam, adamw, sgd };
inline constexpr EnumName<OptimizerKind> kOptimizerKindNames[] = {
    {OptimizerKind::adam, "adam"}, {OptimizerKind::adamw, "adamw"}, {OptimizerKind::sgd, "sgd"}};
constexpr std::span<const EnumName<OptimizerKind>> enum_names(OptimizerKind) {
  return kOptimizerKindNames;
}

// Learning-rate schedules (lr_schedule.h).
enum class ScheduleKind { constant, plateau, warmup, step };
inline constexpr EnumName<ScheduleKind> kScheduleKindNames[] = {{ScheduleKind::constant, "constant"},
                                                                {ScheduleKind::plateau, "plateau"},
                                                                {ScheduleKind::warmup, "warmup"},
                                                                {ScheduleKind::step, "step"}};
constexpr std::span<const EnumName<ScheduleKind>> enum_names(ScheduleKind) {
  return kScheduleKindNames;
}

// What the warm-up schedule does after the warm-up.
enum class DecayKind { inverse_sqrt, linear, none };
inline constexpr EnumName<DecayKind> kDecayKindNames[] = {
    {DecayKind::inverse_sqrt, "inverse_sqrt"}, {DecayKind::linear, "linear"}, {DecayKind::none, "none"}};
constexpr std::span<const EnumName<DecayKind>> enum_names(DecayKind) { return kDecayKindNames; }

// What training.clip_norm limits: the norm of all gradients together (global, as
// torch.nn.utils.clip_grad_norm_), or each parameter's gradient on its own (tensor, as the
// MemN2N code does).
enum class ClipScope { global, tensor };
inline constexpr EnumName<ClipScope> kClipScopeNames[] = {{ClipScope::global, "global"},
                                                          {ClipScope::tensor, "tensor"}};
constexpr std::span<const EnumName<ClipScope>> enum_names(ClipScope) { return kClipScopeNames; }

// The validation score that picks the best checkpoint; error is the classification error of
// an image model (model.kind ram), the others are the text models'.
enum class DevMetric { loss, bleu, wer, g2p, error };
inline constexpr EnumName<DevMetric> kDevMetricNames[] = {{DevMetric::loss, "loss"},
                                                          {DevMetric::bleu, "bleu"},
                                                          {DevMetric::wer, "wer"},
                                                          {DevMetric::g2p, "g2p"},
                                                          {DevMetric::error, "error"}};
constexpr std::span<const EnumName<DevMetric>> enum_names(DevMetric) { return kDevMetricNames; }

// Whether the metric is better when higher (bleu) or lower (loss, wer, g2p, error).
constexpr bool metric_higher_is_better(DevMetric metric) { return metric == DevMetric::bleu; }

}  // namespace heed
