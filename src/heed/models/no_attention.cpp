// The no-attention baseline (docs/MODELS.md#no-attention): Bahdanau's model with the attention
// switched off, so every decoder step reads the same fixed context [->h_m; <-h_1] (Cho et al.
// 2014; Sutskever et al. 2014 read only the initial state).
#include "heed/models/bahdanau_decoder.h"
#include "heed/models/model_registry.h"

namespace heed {
namespace {

void validate(const ModelConfig& c) {
  validate_gru_decoder_model(c);
  HEED_CHECK(c.attention_mode == AttentionMode::soft, "model.attention.mode: hard attention "
             "needs attention, and noattn has none (use kind bahdanau or luong, or mode soft)");
}

std::unique_ptr<Seq2Seq> build(const ModelConfig& c, Rng& rng, DType dtype) {
  return make_gru_decoder_model(c, /*attend=*/false, rng, dtype);
}

std::int64_t any_length(const ModelConfig&) { return 0; }

}  // namespace

extern const ModelKindSpec kNoAttentionSpec{ModelKind::noattn, RnnCell::gru,
                                            validate, build, any_length};

}  // namespace heed
