#pragma once
// TextEncoder: token embeddings, then a stacked (optionally bidirectional) GRU or LSTM over
// them (docs/MODELS.md#encoders). Parameters: src_emb.weight and the recurrent stack under
// PyTorch's nn.GRU / nn.LSTM names (encoder.weight_ih_l0, encoder.weight_hh_l0_reverse, ...).
// Dropout, in training: between the recurrent layers, and on the embeddings when
// embedding_dropout (Bahdanau's choice; Luong's model drops only between layers).
#include <memory>

#include "heed/models/encoder.h"
#include "heed/models/recurrent.h"
#include "heed/nn/embedding_layer.h"

namespace heed {

struct TextEncoderShape {
  RnnCell cell = RnnCell::gru;
  std::int64_t hidden = 256;  // per direction
  int layers = 1;
  bool bidirectional = true;
  bool embedding_dropout = true;
};

class TextEncoder : public Encoder {
 public:
  // The embedding is made by the caller (the model's builder keeps the reference's order of
  // random draws: source embedding, target embedding, then the encoder).
  TextEncoder(std::unique_ptr<Embedding> src_emb, const TextEncoderShape& shape, Rng& rng,
              DType dtype);

  EncoderOutput encode(const TokenBatch& src, const RunMode& mode) const override;
  std::int64_t output_dim() const override { return rnn_.output_dim(); }
  NamedModules modules() override { return {{"src_emb", emb_.get()}, {"encoder", &rnn_}}; }

 private:
  std::unique_ptr<Embedding> emb_;
  RecurrentStack rnn_;
  bool embedding_dropout_;
};

}  // namespace heed
