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

std::int64_t score_max_length(const ModelConfig& c) {
  return score_spec(c.score).per_position ? c.max_src_len : 0;
}

}  // namespace heed
