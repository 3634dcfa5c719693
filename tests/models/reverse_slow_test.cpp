// A small Bahdanau and a small Luong model learn to reverse random sequences (20 symbols,
// lengths 5-15) to >= 99% greedy exact match on 500 held-out sequences. The training loop
// and greedy decoding are written inline (Adam, clipping, step() with argmax), so the test
// depends on the models layer alone.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

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

constexpr testing::ReverseTask kTask{.first_symbol = 4, .symbols = 20, .min_len = 5, .max_len = 15};

using Pairs = testing::ReversePairs;

// Greedy decoding with step() and argmax; the share of sequences reproduced exactly.
double exact_match(const Seq2Seq& model, const Pairs& data) {
  NoGradGuard no_grad;
  Encoded enc = model.encode(data.src);
  DecoderState state = model.initial_state(enc);
  const std::int64_t B = data.src.batch, V = model.tgt_vocab();
  std::vector<std::int32_t> y(B, kBos);
  std::vector<std::vector<std::int32_t>> out(B);
  std::vector<bool> done(B, false);
  for (std::int64_t t = 0; t < data.src.len + 2; ++t) {
    StepOutput s = model.step(y, state, enc);
    const Tensor logits = s.logits.value();
    const float* l = logits.data<float>();
    for (std::int64_t b = 0; b < B; ++b) {
      const float* row = l + b * V;
      y[b] = static_cast<std::int32_t>(std::max_element(row, row + V) - row);
      if (done[b]) continue;
      if (y[b] == kEos) done[b] = true;
      else out[b].push_back(y[b]);
    }
  }
  std::int64_t right = 0;
  for (std::int64_t b = 0; b < B; ++b) right += done[b] && out[b] == data.reference[b];
  return static_cast<double>(right) / static_cast<double>(B);
}

struct Schedule {
  int steps;
  std::int64_t batch;
  double lr;
};

void learns_to_reverse(const ModelConfig& config, const Schedule& schedule) {
  // Small GEMMs: one thread is fastest, and immune to other work on a shared machine.
  kernels::set_num_threads(1);
  const auto start = std::chrono::steady_clock::now();
  Rng init(7), data(11), held_out_rng(12345);
  std::unique_ptr<Seq2Seq> model = make_model(config, init, DType::f32);
  model->train();
  model->set_rng(&init);
  Adam adam(model->parameters(), AdamOptions{schedule.lr});
  Arena arena;
  for (int step = 1; step <= schedule.steps; ++step) {
    Pairs b = testing::reverse_batch(kTask, schedule.batch, data);
    {
      ArenaScope scope(&arena);
      Var loss = cross_entropy(model->forward(b.src, b.tgt_in), b.tgt_out, kPad);
      Tape::current().backward(loss);
    }
    arena.reset();
    clip_grad_norm(model->parameters(), 5.0);
    // Linear decay to a tenth: the last steps polish the long sequences.
    adam.set_lr(schedule.lr * (1.0 - 0.9 * (step - 1) / schedule.steps));
    adam.step();
    adam.zero_grad();
  }
  model->eval();
  const Pairs held_out = testing::reverse_batch(kTask, 500, held_out_rng);
  const double acc = exact_match(*model, held_out);
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%s: %d steps of %lld, exact match %.3f on 500 held-out, %.1f s\n",
              std::string(enum_name(config.kind)).c_str(), schedule.steps, static_cast<long long>(schedule.batch), acc,
              secs);
  EXPECT_GE(acc, 0.99);
  EXPECT_LT(secs, 60.0);
}

// HEED_REVERSE_STEPS overrides the number of training steps (for tuning by hand).
int steps_from_env(int fallback) {
  const char* v = std::getenv("HEED_REVERSE_STEPS");
  return v ? std::atoi(v) : fallback;
}

double lr_from_env(double fallback) {
  const char* v = std::getenv("HEED_REVERSE_LR");
  return v ? std::atof(v) : fallback;
}

ModelConfig reverse_config(const std::string& kind) {
  ModelConfig c;
  c.kind = parse_enum<ModelKind>(kind, "model.kind");
  c.src_vocab = c.tgt_vocab = kTask.vocab();
  c.emb_dim = 32;
  c.enc_hidden = 64;
  c.dec_hidden = 64;
  c.attn_dim = 64;
  return c;
}

TEST(ModelsLearn, BahdanauReverses) {
  learns_to_reverse(reverse_config("bahdanau"), {steps_from_env(800), 64, lr_from_env(1e-2)});
}

TEST(ModelsLearn, LuongReverses) {
  ModelConfig c = reverse_config("luong");
  c.bidirectional = false;
  c.score = AttentionScore::general;
  c.enc_layers = c.dec_layers = 1;
  learns_to_reverse(c, {steps_from_env(800), 64, lr_from_env(1e-2)});
}

}  // namespace
}  // namespace heed
