#include "heed/models/score_checks.h"

#include <string>
#include <string_view>
#include <vector>

#include "heed/autograd/attention_score.h"
#include "heed/base/error.h"

namespace heed {

void check_score(const ModelConfig& c) {
  const ScoreSpec& spec = score_spec(c.score);
  if (spec.same_size) {
    // The scores without a size constraint, as the way out: "general, concat or mlp".
    std::vector<std::string_view> free;
    for (const ScoreSpec& s : attention_scores())
      if (!s.same_size && !s.per_position) free.push_back(attention_score_name(s.score));
    std::string others;
    for (std::size_t i = 0; i < free.size(); ++i)
      others += std::string(i == 0 ? "" : i + 1 == free.size() ? " or " : ", ") +
                std::string(free[i]);
    HEED_CHECK(c.annotation_dim() == c.dec_hidden, "model.score ", enum_name(c.score),
               " needs the annotation size (enc_hidden x directions = ", c.annotation_dim(),
               ") to equal dec_hidden (", c.dec_hidden, "); use ", others, " otherwise");
  }
  if (spec.per_position)
    HEED_CHECK(c.max_src_len >= 1, "model.max_src_len must be at least 1, got ", c.max_src_len);
}

void check_additive_score(const ModelConfig& c, const char* uses, const char* hint) {
  HEED_CHECK(c.score == AttentionScore::mlp, "model.score: ", uses, ", got '", enum_name(c.score),
             "'", hint);
}

void check_location_features(const ModelConfig& c) {
  HEED_CHECK(c.location_filters >= 0, "model.location_filters must be 0 (off) or more, got ",
             c.location_filters);
  if (c.location_filters > 0)
    HEED_CHECK(c.location_width >= 1 && c.location_width % 2 == 1, "model.location_width: the "
               "location filters' width must be odd (the features keep the source's length), "
               "got ", c.location_width);
  if (c.location_filters == 0 && !c.coverage) return;
  const char* key = c.location_filters > 0 ? "model.location_filters" : "model.coverage";
  const bool attends =
      model_kind_traits(c.kind).attention_decoder && c.attention_mode != AttentionMode::none;
  HEED_CHECK(attends, key, ": the location features enter the attention score, and ",
             enum_name(c.kind), " with model.attention.mode ", enum_name(c.attention_mode),
             " does not attend");
  HEED_CHECK(score_spec(c.score).kind == kernels::ScoreKind::tanh, key, ": the location "
             "features enter the additive score's tanh (model.score mlp or concat), not '",
             enum_name(c.score), "'");
}

std::int64_t score_max_length(const ModelConfig& c) {
  return score_spec(c.score).per_position ? c.max_src_len : 0;
}

}  // namespace heed
