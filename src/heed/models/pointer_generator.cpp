#include "heed/models/pointer_generator.h"

#include "heed/autograd/index.h"
#include "heed/base/error.h"

namespace heed {

void check_copy_config(const ModelConfig& c) {
  if (!c.copy) return;
  const std::string_view kind = enum_name(c.kind);
  HEED_CHECK(is_sequence_to_sequence(c.kind) &&
                 (model_kind_traits(c.kind).attention_decoder || c.kind == ModelKind::transformer),
             "model.copy: copy attention copies source words through the attention weights, so "
             "it needs a text model that attends (bahdanau, luong or transformer), not ", kind);
  HEED_CHECK(c.attention_mode == AttentionMode::soft, "model.copy: copy attention mixes the soft "
             "attention weights into the output distribution; model.attention.mode ",
             enum_name(c.attention_mode), " is not supported with it (use soft)");
  HEED_CHECK(!c.tie_embeddings, "model.copy: copy attention is not supported with "
             "model.tie_embeddings (set one of them to false)");
}

std::unique_ptr<Linear> make_copy_gate(std::int64_t feature_dim, Rng& rng, DType dtype) {
  return std::make_unique<Linear>(feature_dim, 1, true, rng, dtype);
}

Var copy_gate_logit(const Linear& gate, const Var& features, kernels::MatmulPrecision precision) {
  Var z = gate.forward(features, precision);  // (..., 1)
  const Shape s = z.value().shape();
  return reshape(z, Shape(s.begin(), s.end() - 1));
}

void check_copy_source(const TokenBatch& src, std::int64_t vocab, const char* model) {
  HEED_CHECK(static_cast<std::int64_t>(src.copy_ids.size()) == src.batch * src.len, model,
             ": copy attention needs the source's copy map (",
             src.batch * src.len, " ids for a ", src.batch, " x ", src.len, " batch), got ",
             src.copy_ids.size(), " ids");
  HEED_CHECK(src.extended >= 0, model, ": ", src.extended, " extended words");
  for (std::size_t i = 0; i < src.copy_ids.size(); ++i)
    HEED_CHECK(src.copy_ids[i] >= 0 && src.copy_ids[i] < vocab + src.extended, model,
               ": copy id ", src.copy_ids[i], " at ", i, " is outside the extended vocabulary of ",
               vocab, " + ", src.extended);
}

std::vector<std::int32_t> copy_ids_of_rows(const TokenBatch& src, const TokenBatch& tgt_in) {
  std::vector<std::int32_t> ids;
  const auto m = static_cast<std::size_t>(src.len);
  for (std::int64_t b = 0; b < tgt_in.batch; ++b) {
    const auto from = src.copy_ids.begin() + static_cast<std::ptrdiff_t>(b * src.len);
    for (std::int64_t t = 0; t < tgt_in.lengths[static_cast<std::size_t>(b)]; ++t)
      ids.insert(ids.end(), from, from + static_cast<std::ptrdiff_t>(m));
  }
  return ids;
}

}  // namespace heed
