#include "heed/models/memory_network.h"

#include <gtest/gtest.h>

#include "heed/autograd/cross_entropy_op.h"
#include "heed/autograd/tape.h"
#include "heed/base/error.h"
#include "support/gradcheck.h"

namespace heed {
namespace {
using testing::gradcheck;

EncodedQuestion question(std::vector<std::vector<std::int32_t>> story, std::vector<std::int32_t> q,
                         std::int32_t answer) {
  EncodedQuestion e;
  e.story = std::move(story);
  e.question = std::move(q);
  e.answer = answer;
  return e;
}

ModelConfig tiny_config(bool position = true, bool temporal = true) {
  ModelConfig c;
  c.kind = ModelKind::memn2n;
  c.src_vocab = c.tgt_vocab = 9;
  c.emb_dim = 3;
  c.memory.hops = 2;
  c.memory.memory_size = 3;
  c.memory.position_encoding = position;
  c.memory.temporal_encoding = temporal;
  return c;
}

TEST(MemoryBatch, KeepsTheLastStatementsWithTheirAges) {
  const std::vector<EncodedQuestion> qs = {
      question({{4, 5}, {6}, {7, 8, 4}, {5}}, {6, 7}, 8),  // 4 statements, memory 3: drop the first
      question({{4}}, {5, 6, 7}, 4)};
  const MemoryBatch b = make_memory_batch(qs, {0, 1}, 3);
  EXPECT_EQ(b.size, 2);
  EXPECT_EQ(b.slots, 3);
  EXPECT_EQ(*b.counts, (std::vector<std::int32_t>{3, 1}));
  EXPECT_EQ(b.first, (std::vector<std::size_t>{1, 0}));
  EXPECT_EQ(b.memory->width, 3);
  EXPECT_EQ(b.memory->ids, (std::vector<std::int32_t>{6, 0, 0, 7, 8, 4, 5, 0, 0,  //
                                                      4, 0, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(b.memory->lengths, (std::vector<std::int32_t>{1, 3, 1, 1, 0, 0}));
  EXPECT_EQ(b.memory->time, (std::vector<std::int32_t>{2, 1, 0, 0, -1, -1}));
  EXPECT_EQ(b.question->ids, (std::vector<std::int32_t>{6, 7, 0, 5, 6, 7}));
  EXPECT_EQ(b.question->lengths, (std::vector<std::int32_t>{2, 3}));
  EXPECT_EQ(b.answers, (std::vector<std::int32_t>{8, 4}));
}

TEST(MemoryBatch, RandomEmptyMemoriesKeepTheOrderWithGaps) {
  std::vector<EncodedQuestion> qs;
  std::vector<std::vector<std::int32_t>> story;
  for (int i = 0; i < 20; ++i) story.push_back({4});
  qs.push_back(question(story, {5}, 4));
  Rng rng(3);
  bool gaps = false;
  for (int draw = 0; draw < 50; ++draw) {
    const MemoryBatch b = make_memory_batch(qs, {0}, 50, 0.5, &rng);
    const std::vector<std::int32_t>& t = b.memory->time;
    for (std::size_t i = 1; i < t.size(); ++i) EXPECT_GT(t[i - 1], t[i]);
    EXPECT_GE(t.back(), 0);
    EXPECT_LE(t.front(), 19 + 10);  // at most ceil(0.5 * 20) gaps
    gaps = gaps || t.front() > 19;
  }
  EXPECT_TRUE(gaps);
  // Capped at memory_size - 1.
  const MemoryBatch capped = make_memory_batch(qs, {0}, 20, 1.0, &rng);
  for (std::int32_t t : capped.memory->time) EXPECT_LE(t, 19);
}

TEST(MemoryNetwork, ParametersAreNamedForPyTorch) {
  Rng rng(1);
  MemoryNetwork net(tiny_config(), rng);
  std::vector<std::string> names;
  for (const auto& [n, v] : net.named_parameters()) names.push_back(n);
  EXPECT_EQ(names, (std::vector<std::string>{"embeddings.0.weight", "embeddings.1.weight",
                                             "embeddings.2.weight", "temporal.0.weight",
                                             "temporal.1.weight", "temporal.2.weight"}));
  MemoryNetwork plain(tiny_config(true, false), rng);
  EXPECT_EQ(plain.named_parameters().size(), 3u);
}

TEST(MemoryNetwork, GradientOfTheAnswerLossReachesEveryTable) {
  const std::vector<EncodedQuestion> qs = {question({{4, 5}, {6}, {7, 8, 4}, {5}}, {6, 7}, 8),
                                           question({{4}}, {5, 6, 7}, 4),
                                           question({}, {5}, 6)};
  for (bool linear : {false, true})
    for (auto [position, temporal] : {std::pair{true, true}, std::pair{false, false}}) {
      Rng rng(2);
      MemoryNetwork net(tiny_config(position, temporal), rng, DType::f64);
      const MemoryBatch b = make_memory_batch(qs, {0, 1, 2}, 3);
      EXPECT_TRUE(gradcheck([&] { return cross_entropy(net.forward(b, linear).logits, b.answers); },
                            net.parameters()))
          << "linear " << linear << ", position " << position << ", temporal " << temporal;
    }
}

TEST(MemoryNetwork, AttentionSumsToOneOverEachStory) {
  Rng rng(3);
  MemoryNetwork net(tiny_config(), rng);
  const std::vector<EncodedQuestion> qs = {question({{4, 5}, {6}}, {6, 7}, 8),
                                           question({{4}}, {5}, 4)};
  NoGradGuard no_grad;
  const MemoryAnswer a = net.forward(make_memory_batch(qs, {0, 1}, 3));
  ASSERT_EQ(a.attention.size(), 2u);
  for (const Tensor& p : a.attention) {
    const std::vector<double> v = p.to_vector();  // (2, 2)
    EXPECT_NEAR(v[0] + v[1], 1.0, 1e-6);
    EXPECT_NEAR(v[2], 1.0, 1e-6);
    EXPECT_EQ(v[3], 0.0);
  }
}

TEST(MemoryNetwork, PaddedMemoryLeavesWeightToTheEmptySlots) {
  // Memory of 3 slots: the first story fills it (padding changes nothing), the second holds
  // one statement (2 empty slots of score 0 take part in the softmax: its weight is below 1).
  ModelConfig padded = tiny_config();
  padded.memory.pad_memory = true;
  Rng rng_a(3), rng_b(3);
  MemoryNetwork plain(tiny_config(), rng_a), net(padded, rng_b);
  const std::vector<EncodedQuestion> qs = {question({{4, 5}, {6}, {7}}, {6, 7}, 8),
                                           question({{4}}, {5}, 4)};
  NoGradGuard no_grad;
  const MemoryBatch b = make_memory_batch(qs, {0, 1}, 3);
  const MemoryAnswer a = net.forward(b), base = plain.forward(b);
  ASSERT_EQ(a.attention.size(), 2u);
  for (std::size_t k = 0; k < 2; ++k) {
    const std::vector<double> v = a.attention[k].to_vector(), w = base.attention[k].to_vector();
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(v[i], w[i], 1e-6);  // the full story
    EXPECT_GT(v[3], 0.0);
    EXPECT_LT(v[3], 1.0);  // exp(s) / (exp(s) + 2)
    EXPECT_NEAR(w[3], 1.0, 1e-6);
  }
  // In linear start the empty slots add nothing.
  const MemoryAnswer la = net.forward(b, true), lb = plain.forward(b, true);
  EXPECT_EQ(la.logits.value().to_vector(), lb.logits.value().to_vector());
}

// The answer's product B x d x V decides: below 2^22 multiply-adds one thread.
TEST(MemoryNetwork, StepThreadsOnlyForLargeAnswerProducts) {
  Rng rng(5);
  ModelConfig c = tiny_config();
  c.src_vocab = c.tgt_vocab = 180;
  c.emb_dim = 50;
  const MemoryNetwork babi(c, rng);
  EXPECT_EQ(babi.step_threads(32, 2), 1);     // the joint bAbI model: 288,000
  EXPECT_EQ(babi.step_threads(466, 2), 1);    // 4,194,000: just below 2^22 = 4,194,304
  EXPECT_EQ(babi.step_threads(467, 2), 2);    // 4,203,000
  EXPECT_EQ(babi.step_threads(467, 1), 1);
  c.src_vocab = c.tgt_vocab = 20000;
  c.emb_dim = 100;
  c.memory.memory_size = 3;
  const MemoryNetwork large(c, rng);
  EXPECT_EQ(large.step_threads(1, 4), 1);     // 2,000,000
  EXPECT_EQ(large.step_threads(32, 4), 4);    // 64,000,000
}

TEST(MemoryNetwork, RefusesBadSizes) {
  Rng rng(4);
  ModelConfig c = tiny_config();
  c.memory.hops = 0;
  EXPECT_THROW(MemoryNetwork(c, rng), Error);
  c = tiny_config();
  c.tgt_vocab = 5;
  EXPECT_THROW(MemoryNetwork(c, rng), Error);
  c = tiny_config();
  c.src_vocab = 4;
  EXPECT_THROW(MemoryNetwork(c, rng), Error);
}

}  // namespace
}  // namespace heed
