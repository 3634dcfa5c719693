// The Transformer learns: a small model (d_model 32, 4 heads, one encoder and one decoder
// layer) learns to reverse random sequences (10 symbols, lengths 3-8) in a few seconds, with
// greedy decoding through the incremental step (the cached keys and values) and its
// encoder-decoder attention pointing at the reversed position.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "heed/autograd/attention_hard.h"
#include "heed/autograd/cross_entropy_op.h"
#include "heed/autograd/tape.h"
#include "heed/kernels/gemm.h"
#include "heed/models/model_registry.h"
#include "heed/tensor/arena.h"
#include "heed/train/adam.h"
#include "heed/train/clip.h"
#include "support/reverse_task.h"

namespace heed {
namespace {

constexpr testing::ReverseTask kTask{.first_symbol = 4, .symbols = 10, .min_len = 3, .max_len = 8};

struct Accuracy {
  double exact = 0, tokens = 0, aligned = 0;
};

Accuracy greedy_accuracy(const Seq2Seq& model, const testing::ReversePairs& data) {
  NoGradGuard no_grad;
  Encoded enc = model.encode(data.src);
  DecoderState state = model.initial_state(enc);
  const std::int64_t B = data.src.batch, V = model.tgt_vocab();
  std::vector<std::int32_t> y(static_cast<std::size_t>(B), kBos);
  std::vector<std::vector<std::int32_t>> out(static_cast<std::size_t>(B));
  std::vector<bool> done(static_cast<std::size_t>(B), false);
  double aligned = 0, steps = 0;
  for (std::int64_t t = 0; t < data.src.len + 2; ++t) {
    StepOutput s = model.step(y, state, enc);
    const std::vector<std::int64_t> pos = argmax_positions(s.alpha.value());
    const float* l = s.logits.value().data<float>();
    for (std::int64_t b = 0; b < B; ++b) {
      const auto i = static_cast<std::size_t>(b);
      const std::int64_t len = data.src.lengths[i];
      if (t < len) {
        aligned += pos[i] == len - 1 - t;
        ++steps;
      }
      const float* row = l + b * V;
      y[i] = static_cast<std::int32_t>(std::max_element(row, row + V) - row);
      if (done[i]) continue;
      if (y[i] == kEos)
        done[i] = true;
      else
        out[i].push_back(y[i]);
    }
  }
  Accuracy a;
  double right = 0, total = 0;
  for (std::int64_t b = 0; b < B; ++b) {
    const auto i = static_cast<std::size_t>(b);
    const auto& ref = data.reference[i];
    a.exact += done[i] && out[i] == ref;
    for (std::size_t k = 0; k < ref.size(); ++k) right += k < out[i].size() && out[i][k] == ref[k];
    total += static_cast<double>(ref.size());
  }
  a.exact /= static_cast<double>(B);
  a.tokens = right / total;
  a.aligned = aligned / steps;
  return a;
}

TEST(TransformerLearns, ReversesSequences) {
  kernels::set_num_threads(1);
  const auto start = std::chrono::steady_clock::now();
  ModelConfig c;
  c.kind = ModelKind::transformer;
  c.src_vocab = c.tgt_vocab = kTask.vocab();
  c.transformer.d_model = 32;
  c.transformer.heads = 4;
  c.transformer.ff_dim = 64;
  c.enc_layers = c.dec_layers = 1;
  Rng init(7), data(11), held_out(12345);
  std::unique_ptr<Seq2Seq> model = make_model(c, init, DType::f32);
  model->train();
  model->set_rng(&init);
  const int steps = 600;
  const double lr = 3e-3;
  Adam adam(model->parameters(), AdamOptions{lr});
  Arena arena;
  for (int step = 1; step <= steps; ++step) {
    testing::ReversePairs b = testing::reverse_batch(kTask, 32, data);
    {
      ArenaScope scope(&arena);
      Var logits = model->forward_packed(b.src, b.tgt_in);
      Var loss = cross_entropy(logits, pack_targets(b.tgt_out, b.tgt_in), kPad);
      Tape::current().backward(loss);
    }
    arena.reset();
    clip_grad_norm(model->parameters(), 5.0);
    adam.set_lr(lr * std::min(1.0, step / 50.0) * (1.0 - 0.9 * (step - 1) / steps));
    adam.step();
    adam.zero_grad();
  }
  model->eval();
  const Accuracy acc = greedy_accuracy(*model, testing::reverse_batch(kTask, 500, held_out));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("transformer: %d steps of 32, exact match %.3f, token accuracy %.3f (chance %.2f), "
              "alignment %.3f on 500 held-out, %.1f s\n",
              steps, acc.exact, acc.tokens, 1.0 / kTask.symbols, acc.aligned, seconds);
  EXPECT_GT(acc.exact, 0.9);
  EXPECT_GT(acc.tokens, 0.95);
  EXPECT_GT(acc.aligned, 0.3);  // chance: about 0.2
}

}  // namespace
}  // namespace heed
