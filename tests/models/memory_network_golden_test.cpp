// The memory network against the PyTorch reference (tools/reference/memory.py, golden written by
// tools/make_memn2n_goldens.py): logits, every hop's attention, the loss and the gradient of
// every table, with softmax hops, in linear start, and without position and temporal encoding.
#include <gtest/gtest.h>

#include "heed/autograd/cross_entropy_op.h"
#include "heed/autograd/tape.h"
#include "heed/models/memory_network.h"
#include "heed/store/checkpoint.h"
#include "support/golden.h"

namespace heed {
namespace {
using testing::expect_close_to_golden;
using testing::golden_group;
using testing::load_golden;

std::vector<std::int32_t> ints(const Tensor& t) {
  std::vector<std::int32_t> out;
  for (double v : t.to_vector()) out.push_back(static_cast<std::int32_t>(v));
  return out;
}

// The golden's padded inputs in heed's batch layout (lengths from the padding; no temporal
// row for an empty slot).
MemoryBatch golden_batch(const SafeTensorsFile& g) {
  const Tensor& memory = g.get("in.memory");  // (B, S, J)
  const std::int64_t B = memory.dim(0), S = memory.dim(1), J = memory.dim(2);
  const std::vector<std::int32_t> ids = ints(memory), time = ints(g.get("in.time"));
  const Tensor& question = g.get("in.question");
  const std::vector<std::int32_t> q = ints(question);
  MemoryBatch b;
  b.size = B;
  b.slots = S;
  b.memory = std::make_shared<WordRowBatch>();
  b.memory->rows = B * S;
  b.memory->width = J;
  b.memory->ids = ids;
  for (std::int64_t r = 0; r < B * S; ++r) {
    std::int32_t len = 0;
    while (len < J && ids[static_cast<std::size_t>(r * J + len)] != 0) ++len;
    b.memory->lengths.push_back(len);
    b.memory->time.push_back(len > 0 ? time[static_cast<std::size_t>(r)] : -1);
  }
  b.question = std::make_shared<WordRowBatch>();
  b.question->rows = B;
  b.question->width = question.dim(1);
  b.question->ids = q;
  for (std::int64_t r = 0; r < B; ++r) {
    std::int32_t len = 0;
    while (len < question.dim(1) && q[static_cast<std::size_t>(r * question.dim(1) + len)] != 0)
      ++len;
    b.question->lengths.push_back(len);
  }
  b.counts = std::make_shared<std::vector<std::int32_t>>(ints(g.get("in.counts")));
  b.answers = ints(g.get("in.answer"));
  b.first.assign(static_cast<std::size_t>(B), 0);
  return b;
}

void check_case(const std::string& suffix, bool linear, bool encodings) {
  const SafeTensorsFile g = load_golden("memn2n");
  ModelConfig c;
  c.kind = ModelKind::memn2n;
  c.src_vocab = c.tgt_vocab = 20;
  c.emb_dim = 6;
  c.memory.hops = 3;
  c.memory.memory_size = 8;
  c.memory.position_encoding = c.memory.temporal_encoding = encodings;
  Rng rng(1);
  MemoryNetwork net(c, rng, DType::f64);
  const std::string tag = suffix.empty() ? "" : "_" + suffix;
  load_into(net, golden_group(g, "param" + tag + "."), "memn2n.safetensors");
  const MemoryBatch b = golden_batch(g);
  Tape::current().clear();
  net.zero_grad();
  const MemoryAnswer a = net.forward(b, linear);
  Var loss = cross_entropy(a.logits, b.answers);
  expect_close_to_golden(a.logits.value(), g.get("out.logits" + tag), "logits" + tag, 1e-9);
  const Tensor& p = g.get("out.p" + tag);  // (K, B, S)
  const std::vector<double> ref = p.to_vector();
  const std::size_t per_hop = static_cast<std::size_t>(p.dim(1) * p.dim(2));
  ASSERT_EQ(a.attention.size(), static_cast<std::size_t>(p.dim(0)));
  for (std::size_t k = 0; k < a.attention.size(); ++k) {
    const std::vector<double> hop(ref.begin() + static_cast<std::ptrdiff_t>(k * per_hop),
                                  ref.begin() + static_cast<std::ptrdiff_t>((k + 1) * per_hop));
    expect_close_to_golden(a.attention[k], Tensor::from({p.dim(1), p.dim(2)}, hop, DType::f64),
                           "p" + tag + " hop " + std::to_string(k + 1), 1e-9);
  }
  EXPECT_NEAR(loss.value().item(), g.get("out.loss" + tag).to_vector()[0], 1e-10);
  Tape::current().backward(loss);
  for (const auto& [name, v] : net.named_parameters())
    expect_close_to_golden(v.grad(), g.get("grad" + tag + "." + name), name, 1e-9);
}

TEST(MemoryNetworkGolden, SoftmaxHops) { check_case("", false, true); }
TEST(MemoryNetworkGolden, LinearStart) { check_case("linear", true, true); }
TEST(MemoryNetworkGolden, BagOfWordsWithoutTime) { check_case("plain", false, false); }

}  // namespace
}  // namespace heed
