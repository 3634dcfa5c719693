// Location-aware attention and coverage learn (docs/MODELS.md#location-aware-attention,
// #coverage): small Bahdanau models, one with location filters and one with coverage trained
// with the coverage loss (train/coverage_loss.h), learn to reverse random sequences (10 symbols,
// lengths 3-8) far above chance in seconds, and the coverage loss falls as they learn.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "heed/autograd/cross_entropy_op.h"
#include "heed/autograd/elementwise_op.h"
#include "heed/autograd/tape.h"
#include "heed/decode/greedy.h"
#include "heed/kernels/gemm.h"
#include "heed/models/model_registry.h"
#include "heed/tensor/arena.h"
#include "heed/train/adam.h"
#include "heed/train/clip.h"
#include "heed/train/coverage_loss.h"
#include "support/reverse_task.h"

namespace heed {
namespace {

constexpr testing::ReverseTask kTask{.first_symbol = 4, .symbols = 10, .min_len = 3, .max_len = 8};

struct Learned {
  double tokens = 0;          // held-out symbols right at their position (greedy)
  double coverage_first = 0;  // mean coverage loss per target token, first 20 steps
  double coverage_last = 0;   // the same, last 20 steps
  double seconds = 0;
};

Learned train_reverse(std::int64_t location_filters, bool coverage, double coverage_weight,
                      int steps) {
  kernels::set_num_threads(1);
  const auto start = std::chrono::steady_clock::now();
  ModelConfig c;
  c.kind = ModelKind::bahdanau;
  c.src_vocab = c.tgt_vocab = kTask.vocab();
  c.emb_dim = 16;
  c.enc_hidden = 32;
  c.dec_hidden = 32;
  c.attn_dim = 32;
  c.location_filters = location_filters;
  c.location_width = 5;
  c.coverage = coverage;
  Rng init(7), data(11), held_out_rng(12345);
  std::unique_ptr<Seq2Seq> model = make_model(c, init, DType::f32);
  model->train();
  std::vector<Var> trace;
  model->set_attention_trace(&trace);
  const double lr = 1e-2;
  Adam adam(model->parameters(), AdamOptions{lr});
  Arena arena;
  Learned out;
  for (int step = 1; step <= steps; ++step) {
    testing::ReversePairs b = testing::reverse_batch(kTask, 32, data);
    {
      ArenaScope scope(&arena);
      Var logits = model->forward_packed(b.src, b.tgt_in);
      CrossEntropyResult ce =
          cross_entropy_with_count(logits, pack_targets(b.tgt_out, b.tgt_in), kPad);
      const auto N = static_cast<double>(ce.count);
      Var cov = coverage_loss(trace, b.tgt_in.lengths, 1.0, N);
      trace.clear();
      const double per_token = cov.value().item();
      if (step <= 20) out.coverage_first += per_token / 20;
      if (step > steps - 20) out.coverage_last += per_token / 20;
      Var loss = coverage_weight > 0 ? add(ce.loss, scale(cov, coverage_weight)) : ce.loss;
      Tape::current().backward(loss);
    }
    arena.reset();
    clip_grad_norm(model->parameters(), 5.0);
    adam.set_lr(lr * (1.0 - 0.9 * (step - 1) / steps));
    adam.step();
    adam.zero_grad();
  }
  model->set_attention_trace(nullptr);
  model->eval();
  const testing::ReversePairs held_out = testing::reverse_batch(kTask, 300, held_out_rng);
  DecodeOptions o;
  o.max_len = kTask.max_len + 2;
  const DecodeResult r = greedy_decode(*model, held_out.src, o);
  double right = 0, total = 0;
  for (std::size_t s = 0; s < held_out.reference.size(); ++s) {
    const auto& ref = held_out.reference[s];
    const auto& tok = r.best(s).tokens;
    for (std::size_t i = 0; i < ref.size(); ++i) right += i < tok.size() && tok[i] == ref[i];
    total += static_cast<double>(ref.size());
  }
  out.tokens = right / total;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("location_filters %lld, coverage %d, coverage_loss %g: %d steps of 32, token "
              "accuracy %.3f (chance 0.1), coverage loss per token %.3f -> %.3f, %.1f s\n",
              static_cast<long long>(location_filters), coverage ? 1 : 0, coverage_weight, steps,
              out.tokens, out.coverage_first, out.coverage_last, out.seconds);
  return out;
}

TEST(LocationAttentionLearns, BahdanauWithLocationFiltersReverses) {
  const Learned l = train_reverse(/*filters=*/4, /*coverage=*/false, 0.0, 300);
  EXPECT_GE(l.tokens, 0.9);
  EXPECT_LT(l.seconds, 30.0);
}

TEST(LocationAttentionLearns, BahdanauWithCoverageReversesAndTheCoverageLossFalls) {
  const Learned l = train_reverse(/*filters=*/0, /*coverage=*/true, 1.0, 300);
  EXPECT_GE(l.tokens, 0.9);
  EXPECT_LT(l.coverage_last, 0.5 * l.coverage_first);
  EXPECT_LT(l.seconds, 30.0);
}

}  // namespace
}  // namespace heed
