#pragma once
// PyramidalListener: the encoder of model.kind las (docs/MODELS.md#listen-attend-and-spell;
// Chan et al. 2016, "Listen, Attend and Spell", sec. 3.1). Layer 0 is a bidirectional GRU or
// LSTM over the log-mel frames x_1..x_T; each layer l = 1..P (P = log2 model.pyramid) reads
// the outputs of the layer below with adjacent pairs joined,
//
//   h^l_i = BiRNN_l(h^l_{i-1}, [h^{l-1}_{2i-1}; h^{l-1}_{2i}])
//
// so that each halves the time steps (a row of odd length t pairs its last step with zeros:
// ceil(t / 2) steps); the layers above P (model.enc_layers - 1 - P of them) read their input
// as it is. The top layer's outputs are the annotations, pyramid times fewer than the frames
// (rounded up); its final states start the decoder (s_0 = tanh(W_init <-h_1)).
//
// With model.frontend_layers L > 0 a convolutional front end comes first (Zhang et al. 2017's
// convolutions before the recurrent layers): the utterance's frames as a one-channel image
// (T, bins), its time padded with zero frames to a multiple of 2^L, through L conv 3x3 + ReLU +
// 2x2 max-pool layers (nn/conv_stack.h), each utterance's steps past its own length set to zero
// after every ReLU (so a batch's padding never reaches a shorter row: an utterance gives the
// same annotations alone or in any batch); the layer-0 RNN reads each pooled step's channels x
// bins (C, bins / 2^L flattened channel-major). Parameters frontend.conv<l>.weight, .bias.
//
// Parameters: listener.<l>.weight_ih_l0 (and _reverse, weight_hh, bias_ih, bias_hh): layer l
// is PyTorch's nn.GRU / nn.LSTM of one layer in an nn.ModuleList. Dropout (model.dropout) in
// training on the input of every layer above the first. With model.ctc_weight > 0 a CTC head
// ctc.weight (V, annotation size), ctc.bias (V), an nn.Linear drawn after the layers: its
// logits over the annotations go to RunMode::ctc_logits when that is set (training).
//
// The frames reach the listener inside the source TokenBatch (token_batch.h): frames holds
// (B, T, bins), frame_lengths each row's frames, len and lengths the annotations' (speech_source
// below), ids are placeholders, so greedy and beam search and teacher forcing run unchanged.
#include <cstdint>
#include <memory>
#include <vector>

#include "heed/models/encoder.h"
#include "heed/models/model_config.h"
#include "heed/models/recurrent.h"
#include "heed/nn/conv_stack.h"
#include "heed/nn/linear.h"

namespace heed {

// The annotations of frames frames: ceil(frames / pyramid), each halving rounded up.
std::int64_t listener_length(std::int64_t frames, std::int64_t pyramid);

// A source batch for a speech model: frames (B, T, bins) zero after each row's frame_lengths
// (each in [1, T]), len and lengths the listener's annotations (listener_length), ids kPad.
// reduction: frames per annotation (ListenerConfig::reduction: the front end's and the
// pyramid's).
TokenBatch speech_source(Tensor frames, std::vector<std::int64_t> frame_lengths,
                         std::int64_t reduction);

// Utterances' features (frames_b, bins) zero-padded into one (B, max frames, bins) tensor of
// dtype, and speech_source of it.
TokenBatch speech_batch(const std::vector<Tensor>& utterances, std::int64_t reduction,
                        DType dtype);

// The values the layer-0 RNN reads per step: the front end's channels x pooled bins, or the
// frame's bins without one.
std::int64_t listener_input_dim(const ListenerConfig& c);

// The modules of the listener's layers, registered as "0", "1", ... (nn.ModuleList).
class ListenerLayers : public Module {
 public:
  ListenerLayers(const ModelConfig& config, RnnCell cell, Rng& rng, DType dtype);
  const RecurrentStack& operator[](std::size_t l) const { return *layers_[l]; }
  std::size_t size() const { return layers_.size(); }

 private:
  std::vector<std::unique_ptr<RecurrentStack>> layers_;
};

class PyramidalListener : public Encoder {
 public:
  // config.listener.feature_dim bins in, config.enc_layers layers of config.enc_hidden per
  // direction; cell: the encoder cell (model.encoder_cell or the kind's default).
  PyramidalListener(const ModelConfig& config, RnnCell cell, Rng& rng, DType dtype);

  // src.frames (B, T, feature_dim) with src.frame_lengths; src.len must be listener_length(T).
  EncoderOutput encode(const TokenBatch& src, const RunMode& mode) const override;
  std::int64_t output_dim() const override { return layers_[layers_.size() - 1].output_dim(); }
  NamedModules modules() override;

 private:
  // The front end over frames x (B, T, bins): (B, ceil(T / 2^L), listener_input_dim); lengths
  // (each row's frames) become each row's steps.
  Var front_end(const Var& x, std::vector<std::int32_t>& lengths) const;

  std::int64_t feature_dim_, pyramid_layers_, reduction_;
  std::unique_ptr<ConvStack> frontend_;  // model.frontend_layers > 0: "frontend"
  ListenerLayers layers_;
  std::unique_ptr<Linear> ctc_;  // model.ctc_weight > 0: the CTC head, "ctc" (V, annotations)
};

}  // namespace heed
