// Bahdanau et al. (2015), "RNNsearch" (docs/MODELS.md#bahdanau): a TextEncoder (by default one
// bidirectional GRU layer) and the BahdanauDecoder with additive attention. Beyond the paper:
// encoder_cell lstm, enc_layers > 1, dropout, tie_embeddings.
#include "heed/models/bahdanau_decoder.h"
#include "heed/models/model_registry.h"
#include "heed/models/score_checks.h"

namespace heed {
namespace {

void validate(const ModelConfig& c) {
  validate_gru_decoder_model(c);
  check_additive_score(c, "bahdanau uses additive (mlp) attention", " (other scores: kind luong)");
}

std::unique_ptr<Seq2Seq> build(const ModelConfig& c, Rng& rng, DType dtype) {
  return make_gru_decoder_model(c, /*attend=*/true, rng, dtype);
}

std::int64_t any_length(const ModelConfig&) { return 0; }

}  // namespace

extern const ModelKindSpec kBahdanauSpec{ModelKind::bahdanau, RnnCell::gru, validate, build,
                                         any_length};

}  // namespace heed
