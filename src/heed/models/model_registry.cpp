#include "heed/models/model_registry.h"

#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

#include "heed/base/memory.h"
#include "heed/models/pointer_generator.h"

namespace heed {

// Each defined in its kind's file.
extern const ModelKindSpec kBahdanauSpec;
extern const ModelKindSpec kLuongSpec;
extern const ModelKindSpec kNoAttentionSpec;
extern const ModelKindSpec kRamSpec;
extern const ModelKindSpec kImageToSequenceSpec;
extern const ModelKindSpec kFcSpec;
extern const ModelKindSpec kCnnSpec;
extern const ModelKindSpec kMemoryNetworkSpec;
extern const ModelKindSpec kTransformerSpec;
extern const ModelKindSpec kListenAttendSpellSpec;

namespace {
const ModelKindSpec* const kSpecs[] = {&kBahdanauSpec, &kLuongSpec, &kNoAttentionSpec, &kRamSpec,
                                       &kFcSpec, &kCnnSpec, &kImageToSequenceSpec,
                                       &kMemoryNetworkSpec, &kTransformerSpec,
                                       &kListenAttendSpellSpec};
}  // namespace

const ModelKindSpec& model_kind_spec(ModelKind kind) {
  for (const ModelKindSpec* s : kSpecs)
    if (s->kind == kind) return *s;
  throw Error(detail::concat("model.kind: no registry entry for '", enum_name(kind), "'"));
}

RnnCell encoder_cell(const ModelConfig& c) {
  return c.encoder_cell ? *c.encoder_cell : model_kind_spec(c.kind).default_encoder_cell;
}

void validate_model_config(const ModelConfig& c) {
  check_copy_config(c);  // models/pointer_generator.h: the kinds and settings copy works with
  if (answers_questions(c.kind)) {  // one vocabulary, tables and hops: the kind's checks
    model_kind_spec(c.kind).validate(c);
    check_model_fits_in_memory(c);
    return;
  }
  if (classifies_images(c.kind)) {  // no source vocabulary, encoder or decoder: the kind's checks
    HEED_CHECK(c.tgt_vocab >= 5, "model: tgt_vocab must hold the 4 special tokens and at least "
               "one class, got ", c.tgt_vocab);
    model_kind_spec(c.kind).validate(c);
    return;
  }
  HEED_CHECK((c.src_vocab >= 4 || reads_no_source_tokens(c.kind)) && c.tgt_vocab >= 4, "model: "
             "src_vocab and tgt_vocab must hold at least the 4 special tokens (pad, bos, eos, "
             "unk), got ", c.src_vocab, " and ", c.tgt_vocab);
  HEED_CHECK(c.attention_mode != AttentionMode::none || reads_no_source_tokens(c.kind),
             "model.attention.mode: none exists for image2seq and las; the text models' "
             "baseline without attention is model.kind noattn");
  HEED_CHECK(c.emb_dim > 0, "model.emb_dim must be positive, got ", c.emb_dim);
  HEED_CHECK(c.enc_hidden > 0, "model.enc_hidden must be positive, got ", c.enc_hidden);
  HEED_CHECK(c.dec_hidden > 0, "model.dec_hidden must be positive, got ", c.dec_hidden);
  HEED_CHECK(c.enc_layers >= 1, "model.enc_layers must be at least 1, got ", c.enc_layers);
  HEED_CHECK(c.dec_layers >= 1, "model.dec_layers must be at least 1, got ", c.dec_layers);
  HEED_CHECK(c.attn_dim >= 0, "model.attn_dim must be positive (or 0 for dec_hidden), got ",
             c.attn_dim);
  HEED_CHECK(c.out_dim >= 0, "model.out_dim must be positive (or 0 for dec_hidden), got ",
             c.out_dim);
  HEED_CHECK(c.dropout >= 0 && c.dropout < 1, "model.dropout must be in [0, 1), got ", c.dropout);
  model_kind_spec(c.kind).validate(c);
  check_model_fits_in_memory(c);
}

double estimated_parameters(const ModelConfig& c) {
  if (const auto own = model_kind_spec(c.kind).estimated_parameters) return own(c);
  if (answers_questions(c.kind))  // K + 1 word tables and as many temporal ones
    return static_cast<double>(c.memory.hops + 1) *
           (static_cast<double>(c.src_vocab) + static_cast<double>(c.memory.memory_size)) *
           static_cast<double>(c.emb_dim);
  // Doubles throughout: the point is to catch sizes whose products overflow.
  const double E = static_cast<double>(c.emb_dim), He = static_cast<double>(c.enc_hidden),
               Hd = static_cast<double>(c.dec_hidden), Le = static_cast<double>(c.enc_layers),
               Ld = static_cast<double>(c.dec_layers), Vs = static_cast<double>(c.src_vocab),
               Vt = static_cast<double>(c.tgt_vocab);
  const double dirs = c.bidirectional ? 2.0 : 1.0, enc = He * dirs;
  const double A = c.attn_dim > 0 ? static_cast<double>(c.attn_dim) : Hd;
  const double O = c.out_dim > 0 ? static_cast<double>(c.out_dim) : Hd;
  // Embeddings, LSTM stacks (4 gates; a GRU has 3), attention and output layers.
  // A score with a weight row per source position (location) has one up to max_src_len.
  const double location = score_spec(c.score).per_position
                              ? static_cast<double>(c.max_src_len) * (Hd + 1.0)
                              : 0.0;
  return (Vs + Vt) * E + Le * dirs * 4.0 * (std::max(E, enc) + He + 2.0) * He +
         Ld * 4.0 * (E + enc + 2.0 * Hd + 2.0) * Hd + (enc + Hd) * (A + O) + A + Vt * (O + 1.0) +
         location;
}

void check_model_fits_in_memory(const ModelConfig& c) {
  // Training holds each parameter four times (weights, gradients, Adam's two moments).
  const double params = estimated_parameters(c);
  const bool memory = answers_questions(c.kind);  // its own keys only
  const auto own = model_kind_spec(c.kind).size_keys;
  const std::vector<std::pair<const char*, std::int64_t>> sizes =
      own ? own(c) : memory ? std::vector<std::pair<const char*, std::int64_t>>{
                   {"emb_dim", c.emb_dim}, {"src_vocab", c.src_vocab},
                   {"hops", c.memory.hops}, {"memory_size", c.memory.memory_size}}
             : std::vector<std::pair<const char*, std::int64_t>>{
                   {"emb_dim", c.emb_dim},       {"enc_hidden", c.enc_hidden},
                   {"dec_hidden", c.dec_hidden}, {"enc_layers", c.enc_layers},
                   {"dec_layers", c.dec_layers}, {"attn_dim", c.attn_dim},
                   {"out_dim", c.out_dim},       {"src_vocab", c.src_vocab},
                   {"tgt_vocab", c.tgt_vocab},
                   {"max_src_len", score_spec(c.score).per_position ? c.max_src_len : 0}};
  const auto* largest = &sizes[0];
  for (const auto& s : sizes)
    if (s.second > largest->second) largest = &s;
  char count[32];
  std::snprintf(count, sizeof count, "%.3g", params);
  check_fits_in_memory(params * 16.0,
                       detail::concat("model: a ", enum_name(c.kind), " model with model.",
                                      largest->first, " ", largest->second, " has about ", count,
                                      " parameters; training it"),
                       detail::concat("lower model.", largest->first));
}

std::unique_ptr<Seq2Seq> make_model(const ModelConfig& config, Rng& rng, DType dtype) {
  validate_model_config(config);
  HEED_CHECK(!classifies_images(config.kind), "model.kind ", enum_name(config.kind),
             " classifies images and is no encoder-decoder; heed train and heed eval build it "
             "(models/image_classifier.h)");
  HEED_CHECK(!answers_questions(config.kind), "model.kind ", enum_name(config.kind),
             " answers questions and is no encoder-decoder (models/memory_network.h)");
  return model_kind_spec(config.kind).build(config, rng, dtype);
}

std::unique_ptr<ImageClassifier> make_image_classifier(const ModelConfig& config,
                                                       std::int64_t channels, Rng& rng,
                                                       DType dtype) {
  validate_model_config(config);
  const ModelKindSpec& spec = model_kind_spec(config.kind);
  HEED_CHECK(spec.build_classifier != nullptr, "model.kind ", enum_name(config.kind),
             " is no image classifier (ram, fc or cnn)");
  return spec.build_classifier(config, channels, rng, dtype);
}

std::int64_t max_source_length(const ModelConfig& config) {
  return model_kind_spec(config.kind).max_source_length(config);
}

std::int64_t max_target_length(const ModelConfig& config) {
  const ModelKindSpec& spec = model_kind_spec(config.kind);
  return spec.max_target_length ? spec.max_target_length(config) : 0;
}

}  // namespace heed
