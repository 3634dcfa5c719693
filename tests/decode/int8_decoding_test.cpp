// int8 decoding (MatmulPrecision::int8, docs/ENGINE.md): a model whose decoding precision is
// int8 runs every product with a weight on int8 (each recurrent cell's input and hidden
// products, the attention projections and keys, the output layer, every Transformer
// projection), and small models trained on the reverse task decode at int8 as they do at
// fp32, sentence for sentence with few exceptions.
#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "heed/autograd/cross_entropy_op.h"
#include "heed/autograd/tape.h"
#include "heed/decode/beam_search.h"
#include "heed/decode/frozen_model.h"
#include "heed/decode/greedy.h"
#include "heed/kernels/gemm.h"
#include "heed/models/model_registry.h"
#include "heed/tensor/arena.h"
#include "heed/train/adam.h"
#include "heed/train/clip.h"
#include "support/reverse_task.h"

namespace heed {
namespace {

constexpr testing::ReverseTask kTask{.first_symbol = 4, .symbols = 10, .min_len = 3, .max_len = 8};

ModelConfig config(const std::string& kind) {
  ModelConfig c;
  c.kind = parse_enum<ModelKind>(kind, "model.kind");
  c.src_vocab = c.tgt_vocab = kTask.vocab();
  c.emb_dim = 16;
  c.enc_hidden = 32;
  c.dec_hidden = 32;
  c.attn_dim = 32;
  if (kind == "luong") {
    c.encoder_cell = RnnCell::lstm;
    c.bidirectional = true;
    c.enc_layers = c.dec_layers = 2;
    c.score = AttentionScore::general;
  }
  if (kind == "transformer") {
    c.transformer.d_model = 32;
    c.transformer.heads = 4;
    c.transformer.ff_dim = 64;
    c.enc_layers = c.dec_layers = 2;
  }
  return c;
}

// The names of the model's weight matrices whose packed handle ran no product while the model
// decoded a batch greedily and by beam search at int8 (embeddings are looked up, not
// multiplied, and are left out).
std::vector<std::string> weights_without_int8_products(const Seq2Seq& model) {
  Rng rng(3);
  const testing::ReversePairs b = testing::reverse_batch(kTask, 5, rng);
  const FrozenModel frozen(model);
  DecodeOptions o;
  o.max_len = 6;
  greedy_decode(model, b.src, o);
  o.beam = 3;
  beam_search(model, b.src, o);
  std::vector<std::string> idle;  // (the handles are visible while `frozen` holds them)
  for (const auto& [name, w] : model.named_parameters()) {
    if (w.value().ndim() != 2 || name.find("_emb.") != std::string::npos) continue;
    const kernels::PackedWeight* h = w.packed_handle().get();
    if (!h)
      idle.push_back(name + " (no handle)");
    else if (h->precision() != kernels::MatmulPrecision::int8)
      idle.push_back(name + " (" + std::string(kernels::matmul_precision_name(h->precision())) + ")");
    else if (h->products() == 0)
      idle.push_back(name);
  }
  return idle;
}

TEST(Int8Decoding, EveryWeightMatrixRunsInt8Products) {
  kernels::set_num_threads(1);
  for (const char* kind : {"bahdanau", "luong", "transformer"}) {
    Rng init(5);
    std::unique_ptr<Seq2Seq> model = make_model(config(kind), init, DType::f32);
    model->eval();
    model->set_compute_type({.decoding = kernels::MatmulPrecision::int8});
    std::string listed;
    for (const std::string& n : weights_without_int8_products(*model)) listed += n + " ";
    // The mlp score's v (1 x attn_dim) is a dot product inside the attention kernel
    // (kernels/attention.h), fused with tanh and the softmax: no GEMM, so fp32.
    const std::string fp32 = std::string(kind) == "bahdanau" ? "attention.v.weight " : "";
    EXPECT_EQ(listed, fp32) << kind << ": no int8 product with these weights";
  }
}

// Trains `kind` on the reverse task (Adam, batches of 32), then decodes 300 held-out
// sequences greedily at fp32 and at int8.
struct Agreement {
  double accuracy_fp32 = 0, accuracy_int8 = 0;  // held-out symbols right at their position
  int same = 0, sentences = 0;                 // sentences decoded identically
};

Agreement train_and_compare(const std::string& kind, int steps, double lr) {
  kernels::set_num_threads(1);
  Rng init(7), data(11), held_out_rng(12345);
  std::unique_ptr<Seq2Seq> model = make_model(config(kind), init, DType::f32);
  model->train();
  Adam adam(model->parameters(), AdamOptions{lr});
  Arena arena;
  for (int step = 1; step <= steps; ++step) {
    testing::ReversePairs b = testing::reverse_batch(kTask, 32, data);
    {
      ArenaScope scope(&arena);
      Var logits = model->forward_packed(b.src, b.tgt_in);
      Var loss = cross_entropy_with_count(logits, pack_targets(b.tgt_out, b.tgt_in), kPad).loss;
      Tape::current().backward(loss);
    }
    arena.reset();
    clip_grad_norm(model->parameters(), 5.0);
    adam.set_lr(lr * (1.0 - 0.9 * (step - 1) / steps));
    adam.step();
    adam.zero_grad();
  }
  model->eval();
  const testing::ReversePairs held_out = testing::reverse_batch(kTask, 300, held_out_rng);
  DecodeOptions o;
  o.max_len = kTask.max_len + 2;
  std::vector<DecodeResult> results;
  for (const auto precision : {kernels::MatmulPrecision::f32, kernels::MatmulPrecision::int8}) {
    model->set_compute_type({.decoding = precision});
    results.push_back(greedy_decode(*model, held_out.src, o));
  }
  Agreement a;
  double right[2] = {0, 0}, total = 0;
  for (std::size_t s = 0; s < held_out.reference.size(); ++s) {
    const auto& ref = held_out.reference[s];
    for (int p = 0; p < 2; ++p) {
      const auto& tok = results[static_cast<std::size_t>(p)].best(s).tokens;
      for (std::size_t i = 0; i < ref.size(); ++i) right[p] += i < tok.size() && tok[i] == ref[i];
    }
    total += static_cast<double>(ref.size());
    a.same += results[0].best(s).tokens == results[1].best(s).tokens;
    ++a.sentences;
  }
  a.accuracy_fp32 = right[0] / total;
  a.accuracy_int8 = right[1] / total;
  std::printf("%s, %d steps: token accuracy fp32 %.3f, int8 %.3f; %d of %d sentences the same\n",
              kind.c_str(), steps, a.accuracy_fp32, a.accuracy_int8, a.same, a.sentences);
  return a;
}

TEST(Int8Decoding, ATrainedGruBahdanauModelDecodesAsInFp32) {
  const Agreement a = train_and_compare("bahdanau", 300, 1e-2);
  ASSERT_GE(a.accuracy_fp32, 0.9);
  EXPECT_GE(a.same, a.sentences - 3);  // at most 1% of the sentences differ
  EXPECT_GE(a.accuracy_int8, a.accuracy_fp32 - 0.01);
}

TEST(Int8Decoding, ATrainedLstmLuongModelDecodesAsInFp32) {
  const Agreement a = train_and_compare("luong", 300, 1e-2);
  ASSERT_GE(a.accuracy_fp32, 0.9);
  EXPECT_GE(a.same, a.sentences - 3);
  EXPECT_GE(a.accuracy_int8, a.accuracy_fp32 - 0.01);
}

}  // namespace
}  // namespace heed
