#pragma once
// ModelConfig: everything that fixes a model's architecture (the `model:` section of a
// training config), typed: the config reader turns names into these enums once. Defaults give
// the Bahdanau model at the g2p sizes; what each kind accepts and its defaults live in its
// registry entry (models/model_registry.h).
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <span>

#include "heed/autograd/attention_op.h"
#include "heed/autograd/attention_hard.h"
#include "heed/autograd/rnn_sequence.h"
#include "heed/base/enum_names.h"

namespace heed {

// The encoder–decoder compositions (docs/MODELS.md#composition): where the decoder reads its
// context; and the image classifiers (models/image_classifier.h): ram, the recurrent attention
// model (docs/MODELS.md#recurrent-attention-model), fc, a fully connected network over the
// whole image (docs/MODELS.md#fully-connected-classifier), and cnn, a small convolutional
// network (docs/MODELS.md#small-cnn); and image2seq, a CNN encoder whose grid cells a Bahdanau
// decoder attends over (docs/MODELS.md#image-to-sequence); and memn2n, the end-to-end memory
// network that answers a question about a story (docs/MODELS.md#memory-network);
// transformer, encoder and decoder stacks of multi-head attention (docs/MODELS.md#transformer);
// and las, listen, attend and spell: a pyramidal recurrent listener over log-mel frames that
// the Bahdanau decoder attends over (docs/MODELS.md#listen-attend-and-spell).
enum class ModelKind { bahdanau, luong, noattn, ram, fc, cnn, image2seq, memn2n, transformer, las };
inline constexpr EnumName<ModelKind> kModelKindNames[] = {{ModelKind::bahdanau, "bahdanau"},
                                                          {ModelKind::luong, "luong"},
                                                          {ModelKind::noattn, "noattn"},
                                                          {ModelKind::ram, "ram"},
                                                          {ModelKind::fc, "fc"},
                                                          {ModelKind::cnn, "cnn"},
                                                          {ModelKind::image2seq, "image2seq"},
                                                          {ModelKind::memn2n, "memn2n"},
                                                          {ModelKind::transformer, "transformer"},
                                                          {ModelKind::las, "las"}};
constexpr std::span<const EnumName<ModelKind>> enum_names(ModelKind) { return kModelKindNames; }

// What each kind reads and writes, its family: one training task (train/task_registry.cpp) and
// one `heed show` view per family; and whether its decoder attends with a score and a mode
// (the model.attention keys). The config reader's key table (config/config_keys.cpp) derives
// which kinds read a key from these, so a new kind of an existing family needs no new key
// rules. Header-only: the config reader and the fuzzers use it without the models.
enum class ModelFamily {
  sequence_to_sequence,  // text in, text out: bahdanau, luong, noattn
  image_classification,  // an image in, a class out: ram, fc, cnn
  image_to_sequence,     // an image in, text out: image2seq
  question_answering,    // a story and a question in, an answer word out: memn2n
  speech_to_text,        // speech (log-mel frames) in, text out: las
};
struct ModelKindTraits {
  ModelKind kind;
  ModelFamily family;
  bool attention_decoder;  // a decoder that attends (model.score, model.attention.mode)
  // Recurrent encoder and decoder (model.encoder_cell, enc_hidden, dec_hidden, emb_dim, ...);
  // false for the kinds that are no encoder-decoder and for the Transformer (model.d_model, ...).
  bool recurrent;
};
inline constexpr ModelKindTraits kModelKindTraits[] = {
    {ModelKind::bahdanau, ModelFamily::sequence_to_sequence, true, true},
    {ModelKind::luong, ModelFamily::sequence_to_sequence, true, true},
    {ModelKind::noattn, ModelFamily::sequence_to_sequence, false, true},
    {ModelKind::ram, ModelFamily::image_classification, false, false},
    {ModelKind::fc, ModelFamily::image_classification, false, false},
    {ModelKind::cnn, ModelFamily::image_classification, false, false},
    {ModelKind::image2seq, ModelFamily::image_to_sequence, true, true},
    {ModelKind::memn2n, ModelFamily::question_answering, false, false},
    {ModelKind::transformer, ModelFamily::sequence_to_sequence, false, false},
    {ModelKind::las, ModelFamily::speech_to_text, true, true}};
static_assert(std::size(kModelKindTraits) == std::size(kModelKindNames),
              "every model kind needs its traits");
constexpr const ModelKindTraits& model_kind_traits(ModelKind kind) {
  return kModelKindTraits[static_cast<std::size_t>(kind)];  // listed in enum order (below)
}
static_assert([] {
  for (std::size_t i = 0; i < std::size(kModelKindTraits); ++i)
    if (static_cast<std::size_t>(kModelKindTraits[i].kind) != i) return false;
  return true;
}(), "kModelKindTraits lists the kinds in enum order");
constexpr ModelFamily model_family(ModelKind kind) { return model_kind_traits(kind).family; }
// bahdanau, luong, noattn: text in, text out; source and target vocabularies and tokenisers.
constexpr bool is_sequence_to_sequence(ModelKind kind) {
  return model_family(kind) == ModelFamily::sequence_to_sequence;
}
// ram, fc, cnn: no encoder–decoder (the registry builds an ImageClassifier), no vocabularies.
constexpr bool classifies_images(ModelKind kind) {
  return model_family(kind) == ModelFamily::image_classification;
}
// image2seq: an encoder–decoder whose source batches carry images (TokenBatch::images); no
// source vocabulary.
constexpr bool is_image_to_sequence(ModelKind kind) {
  return model_family(kind) == ModelFamily::image_to_sequence;
}
// Either of the two: no source vocabulary, tokeniser or src.vocab; the data are image files.
constexpr bool takes_images(ModelKind kind) {
  return classifies_images(kind) || is_image_to_sequence(kind);
}
// memn2n: stories and questions (data.babi), one vocabulary of words, one answer word; no
// encoder–decoder (models/memory_network.h).
constexpr bool answers_questions(ModelKind kind) {
  return model_family(kind) == ModelFamily::question_answering;
}

// las: an encoder–decoder whose source batches carry log-mel frames (TokenBatch::frames); no
// source vocabulary; the data are WAV files listed in .tsv manifests.
constexpr bool transcribes_speech(ModelKind kind) {
  return model_family(kind) == ModelFamily::speech_to_text;
}
// No source tokens: the encoder reads images or speech (no src.vocab, no source tokeniser).
constexpr bool reads_no_source_tokens(ModelKind kind) {
  return is_image_to_sequence(kind) || transcribes_speech(kind);
}

// model.core of the recurrent attention model: a ReLU RNN cell or an LSTM cell.
enum class RamCore { rnn, lstm };
inline constexpr EnumName<RamCore> kRamCoreNames[] = {{RamCore::rnn, "rnn"}, {RamCore::lstm, "lstm"}};
constexpr std::span<const EnumName<RamCore>> enum_names(RamCore) { return kRamCoreNames; }

// The recurrent attention model's sizes (model.glimpses, ... ; docs/CONFIG.md#model).
struct RamConfig {
  std::int64_t glimpses = 6;          // T: glimpses per image
  std::int64_t glimpse_size = 8;      // g: the side of every patch the sensor returns
  std::int64_t scales = 3;            // k: patches of sides g, 2g, ..., 2^(k-1) g
  std::int64_t glimpse_hidden = 128;  // h_g: what the patches become
  std::int64_t location_hidden = 128; // h_l: what the location becomes
  std::int64_t glimpse_dim = 256;     // g_t: the glimpse network's output
  RamCore core = RamCore::rnn;
  std::int64_t core_hidden = 256;     // h_t
  double location_std = 0.15;         // sigma of the location policy
  std::int64_t sample_paths = 1;      // M at test time: 1 = the mean locations, else M sampled paths
  bool random_locations = false;      // the ablation: l_1..l_{T-1} uniform in [-1, 1]^2, no policy
};

// The fully connected and convolutional image classifiers (kinds fc and cnn;
// docs/CONFIG.md#model); cnn's convolutions are model.conv_layers and model.conv_channels.
struct ImageClassifierConfig {
  std::int64_t image_height = 0;   // filled from the training images (fc and cnn read every pixel)
  std::int64_t image_width = 0;
  std::int64_t fc_layers = 1;      // fc: hidden layers (0: a linear classifier)
  std::int64_t fc_hidden = 256;    // fc: the width of each hidden layer
};

// The CNN encoder of model.kind image2seq (model.conv_layers, model.conv_channels;
// models/image_encoder.h): conv_layers conv3x3 + ReLU + maxpool 2x2 layers, the first with
// conv_channels channels, each next one with twice as many.
struct ImageEncoderConfig {
  std::int64_t conv_layers = 3;
  std::int64_t conv_channels = 16;
};

// The end-to-end memory network's sizes (model.hops, ...; kind memn2n only;
// docs/MODELS.md#memory-network). Its embedding size is model.emb_dim.
struct MemoryConfig {
  std::int64_t hops = 3;             // K
  std::int64_t memory_size = 50;     // the last N statements of a story are its memory
  bool position_encoding = true;     // l_j weights the words of a statement (else a bag of words)
  bool temporal_encoding = true;     // T_A, T_C rows added by a statement's age
  // The hops' softmax also counts memory_size - n empty slots of score 0 (the MemN2N code's
  // memory of memory_size slots, the unused ones null statements); false: only the n real ones.
  bool pad_memory = false;
};

// The Transformer's layer norm placement (model.norm): before each sub-layer, inside the
// residual branch (pre, the default: trains without warm-up tricks), or after the residual
// sum (post, the original paper's).
enum class NormPlacement { pre, post };
inline constexpr EnumName<NormPlacement> kNormPlacementNames[] = {{NormPlacement::pre, "pre"},
                                                                  {NormPlacement::post, "post"}};
constexpr std::span<const EnumName<NormPlacement>> enum_names(NormPlacement) {
  return kNormPlacementNames;
}

// The Transformer's positions (model.positions): fixed sines and cosines, or a learned table
// of model.max_positions rows per side.
enum class PositionEncoding { sinusoidal, learned };
inline constexpr EnumName<PositionEncoding> kPositionEncodingNames[] = {
    {PositionEncoding::sinusoidal, "sinusoidal"}, {PositionEncoding::learned, "learned"}};
constexpr std::span<const EnumName<PositionEncoding>> enum_names(PositionEncoding) {
  return kPositionEncodingNames;
}

// The Transformer's sizes (model.d_model, ...; kind transformer only, docs/MODELS.md#transformer).
// Its depths are model.enc_layers and model.dec_layers, its dropout model.dropout.
struct TransformerConfig {
  std::int64_t d_model = 256;   // every layer's width, the embeddings' too
  std::int64_t heads = 4;       // divides d_model
  std::int64_t ff_dim = 1024;   // the position-wise feed-forward layer's inner size
  NormPlacement norm = NormPlacement::pre;
  PositionEncoding positions = PositionEncoding::sinusoidal;
  std::int64_t max_positions = 512;  // learned positions: the longest source and target
  // The encoder-decoder attention that is the model's attention output (alignments, heed
  // show's main picture): decoder layer 1..dec_layers (0 = the last), head 1..heads (0 = the
  // heads averaged).
  std::int64_t alignment_layer = 0;
  std::int64_t alignment_head = 0;
  // One embedding table for the source and the target (src_emb.weight, over a joint
  // vocabulary: src_vocab == tgt_vocab); with tie_embeddings also the output layer's weight.
  bool share_embeddings = false;
};

// The listener of model.kind las (models/listener.h): model.enc_layers recurrent layers
// (model.encoder_cell, model.enc_hidden, model.bidirectional) over feature_dim log-mel bins;
// layers 1..log2(pyramid) each read adjacent pairs of the layer below joined, so the annotations
// are pyramid times fewer than the frames.
struct ListenerConfig {
  std::int64_t pyramid = 8;       // the time reduction: 1, 2, 4, 8, ... (a power of two)
  std::int64_t feature_dim = 0;   // filled from data.audio.mels
  // Joint CTC training (docs/MODELS.md#joint-ctc-training): lambda, the CTC loss's share of
  // the training loss, for a head over the annotations (0: no head).
  double ctc_weight = 0.0;
  // A convolutional front end before the recurrent layers (model.frontend_layers,
  // model.frontend_channels): that many conv 3x3 + ReLU + 2x2 max-pool layers (nn/conv_stack.h)
  // over each utterance's (frames, bins) image, each halving time and bins, the first with
  // frontend_channels channels and each next with twice as many (0 layers: none).
  std::int64_t frontend_layers = 0;
  std::int64_t frontend_channels = 16;

  // Frames per annotation: the front end's reduction times the pyramid's.
  std::int64_t reduction() const { return pyramid << frontend_layers; }
};

struct ModelConfig {
  ModelKind kind = ModelKind::bahdanau;
  std::int64_t src_vocab = 0;      // filled from the vocabularies
  std::int64_t tgt_vocab = 0;
  std::int64_t emb_dim = 128;
  // Encoder: cell, depth, direction. Unset cell = the kind's default (model_kind.h).
  std::optional<RnnCell> encoder_cell;
  std::int64_t enc_hidden = 256;   // per direction
  std::int64_t enc_layers = 1;
  bool bidirectional = true;
  std::int64_t dec_hidden = 256;
  std::int64_t dec_layers = 1;     // Luong: decoder LSTM stack depth
  std::int64_t attn_dim = 0;       // additive / concat attention size; 0 = the kind's default
  std::int64_t out_dim = 0;        // Bahdanau/noattn deep-output size; 0 = dec_hidden
  AttentionScore score = AttentionScore::mlp;
  bool input_feed = true;          // Luong
  bool local_p = false;            // Luong local-p attention
  std::int64_t window = 10;        // local-p half-width D
  std::int64_t max_src_len = 100;  // location score
  // Location features of an additive score (docs/MODELS.md#location-aware-attention,
  // #coverage): k filters of odd width r over the previous step's weights (0: off), and the
  // coverage vector.
  std::int64_t location_filters = 0;
  std::int64_t location_width = 7;
  bool coverage = false;
  // model.attention: soft (the expectation) or hard (one sampled position, REINFORCE), and
  // what hard attention reads when decoding (docs/MODELS.md#hard-attention).
  AttentionMode attention_mode = AttentionMode::soft;
  HardEval hard_eval = HardEval::argmax;
  double dropout = 0.0;
  bool tie_embeddings = false;     // target embedding shares the output layer's weight
  // Copy attention (See et al. 2017; docs/MODELS.md#copy-attention): p_gen mixes the output
  // distribution with the attention over source words, which extend the target vocabulary.
  bool copy = false;
  RamConfig ram;                   // kind ram only (the keys sit in model: beside the others)
  ImageEncoderConfig image;        // kind image2seq only (likewise)
  ImageClassifierConfig classifier;  // kinds fc and cnn only (model.fc_*, model.image_*)
  MemoryConfig memory;             // kind memn2n only (model.hops, ...)
  TransformerConfig transformer;   // kind transformer only (model.d_model, ...)
  ListenerConfig listener;         // kind las only (model.pyramid, model.feature_dim)

  std::int64_t resolved_out_dim() const { return out_dim > 0 ? out_dim : dec_hidden; }
  // The annotation size: enc_hidden per direction.
  std::int64_t annotation_dim() const { return enc_hidden * (bidirectional ? 2 : 1); }
};

}  // namespace heed
