#include "heed/models/text_encoder.h"

#include <cstdint>
#include <vector>

#include "heed/autograd/index.h"

namespace heed {
namespace {

std::vector<std::int32_t> to_int32(const std::vector<std::int64_t>& lengths) {
  return std::vector<std::int32_t>(lengths.begin(), lengths.end());
}

// The final state of layer l, direction d (0 forward, 1 reverse) from h_n (L*dirs, B, H).
Var final_state(const Var& h_n, int layer, int direction, int directions) {
  return select(h_n, 0, static_cast<std::int64_t>(layer) * directions + direction);
}

}  // namespace

TextEncoder::TextEncoder(std::unique_ptr<Embedding> src_emb, const TextEncoderShape& shape,
                         Rng& rng, DType dtype)
    : emb_(std::move(src_emb)),
      rnn_(shape.cell, emb_->weight.dim(1), shape.hidden, shape.layers, shape.bidirectional, rng,
           dtype),
      embedding_dropout_(shape.embedding_dropout) {}

EncoderOutput TextEncoder::encode(const TokenBatch& src, const RunMode& mode) const {
  Var x = emb_->forward(src.ids, {src.batch, src.len});
  if (mode.source_embeddings) *mode.source_embeddings = x;
  if (embedding_dropout_) x = maybe_dropout(x, mode);
  RnnSequenceOutput r =
      rnn_.forward(x, to_int32(src.lengths), mode.dropout, mode.training, mode.rng, mode.precision);
  EncoderOutput out;
  out.annotations = r.output;  // (B, m, dirs * d)
  out.lengths = src.lengths;
  out.h_n = r.h_n;
  out.c_n = r.c_n;
  out.layers = rnn_.layers();
  out.directions = rnn_.directions();
  return out;
}

Var EncoderOutput::final_h(int layer, int direction) const {
  return final_state(h_n, layer, direction, directions);
}

Var EncoderOutput::final_c(int layer, int direction) const {
  HEED_CHECK(c_n.defined(), "encoder: final cell states exist only for an LSTM encoder");
  return final_state(c_n, layer, direction, directions);
}

}  // namespace heed
