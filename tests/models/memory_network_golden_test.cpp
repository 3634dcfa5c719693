// The memory network against the PyTorch reference (tools/reference/memory.py, golden written by
// tools/make_memn2n_goldens.py): logits, every hop's attention, the loss and the gradient of
// every table, with softmax hops, in linear start, and without position and temporal encoding.
#include <gtest/gtest.h>

#include "heed/autograd/cross_entropy_op.h"
#include "heed/autograd/tape.h"
#include "heed/models/memory_network.h"
#include "heed/store/checkpoint.h"
#include "support/golden.h"
#include "support/golden_memory_batch.h"

namespace heed {
namespace {
using testing::expect_close_to_golden;
using testing::golden_group;
using testing::golden_memory_batch;
using testing::load_golden;

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
  const MemoryBatch b = golden_memory_batch(g);
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
