// A small Bahdanau and a small Luong model learn to reverse random sequences (20 symbols,
// lengths 5-15) to >= 99% greedy exact match on 500 held-out sequences. The training loop
// and greedy decoding are written inline (Adam, clipping, step() with argmax), so the test
// depends on the models layer alone.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "heed/autograd/cross_entropy.h"
#include "heed/autograd/tape.h"
#include "heed/kernels/gemm.h"
#include "heed/models/model_factory.h"
#include "heed/tensor/arena.h"
#include "heed/train/adam.h"
#include "heed/train/clip.h"

namespace heed {
namespace {

constexpr std::int32_t kFirstSymbol = 4, kSymbols = 20;
constexpr std::int64_t kMinLen = 5, kMaxLen = 15;

struct Pairs {
  TokenBatch src, tgt_in;
  std::vector<std::int32_t> tgt_out;
  std::vector<std::vector<std::int32_t>> reference;  // the reversed sequences
};

Pairs reverse_batch(std::int64_t B, Rng& rng) {
  std::vector<std::vector<std::int32_t>> seqs;
  std::int64_t m = 0;
  for (std::int64_t b = 0; b < B; ++b) {
    const auto len = kMinLen + static_cast<std::int64_t>(rng.below(kMaxLen - kMinLen + 1));
    std::vector<std::int32_t> s;
    for (std::int64_t i = 0; i < len; ++i)
      s.push_back(kFirstSymbol + static_cast<std::int32_t>(rng.below(kSymbols)));
    m = std::max(m, len);
    seqs.push_back(s);
  }
  Pairs p;
  p.src = {B, m, std::vector<std::int32_t>(B * m, kPad), {}};
  p.tgt_in = {B, m + 1, std::vector<std::int32_t>(B * (m + 1), kPad), {}};
  p.tgt_out.assign(B * (m + 1), kPad);
  for (std::int64_t b = 0; b < B; ++b) {
    const auto& s = seqs[b];
    const auto len = static_cast<std::int64_t>(s.size());
    std::vector<std::int32_t> r(s.rbegin(), s.rend());
    p.src.lengths.push_back(len);
    p.tgt_in.lengths.push_back(len + 1);
    p.tgt_in.ids[b * (m + 1)] = kBos;
    for (std::int64_t i = 0; i < len; ++i) {
      p.src.ids[b * m + i] = s[i];
      p.tgt_in.ids[b * (m + 1) + i + 1] = r[i];
      p.tgt_out[b * (m + 1) + i] = r[i];
    }
    p.tgt_out[b * (m + 1) + len] = kEos;
    p.reference.push_back(r);
  }
  return p;
}

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
    Pairs b = reverse_batch(schedule.batch, data);
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
  const Pairs held_out = reverse_batch(500, held_out_rng);
  const double acc = exact_match(*model, held_out);
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%s: %d steps of %lld, exact match %.3f on 500 held-out, %.1f s\n",
              config.kind.c_str(), schedule.steps, static_cast<long long>(schedule.batch), acc,
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
  c.kind = kind;
  c.src_vocab = c.tgt_vocab = kFirstSymbol + kSymbols;
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
  c.score = "general";
  c.enc_layers = c.dec_layers = 1;
  learns_to_reverse(c, {steps_from_env(800), 64, lr_from_env(1e-2)});
}

}  // namespace
}  // namespace heed
