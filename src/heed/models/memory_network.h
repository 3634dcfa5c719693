#pragma once
// The end-to-end memory network (Sukhbaatar et al. 2015; docs/MODELS.md#memory-network): a
// story's statements are written into memory as position-weighted bags of words with a
// temporal row; the question's state reads the memory in K hops of attention, each adding what
// it read; the last state scores every word of the vocabulary as the answer. Adjacent weight
// tying: K + 1 embedding tables, A^k = embeddings.(k-1), C^k = embeddings.k, B = A^1 and the
// answer's W^T = C^K (likewise the temporal tables).
#include <cstdint>
#include <memory>
#include <vector>

#include "heed/autograd/bag_of_words_op.h"
#include "heed/autograd/var.h"
#include "heed/base/random.h"
#include "heed/data/babi_encoding.h"
#include "heed/models/model_config.h"
#include "heed/nn/module.h"
#include "heed/tensor/dtype.h"

namespace heed {

// A batch of B questions in the model's layout: the memory's B x S slots (S = the most
// statements any of them keeps, at most memory_size; statement i of story b at slot
// b * S + i, oldest first), each with its temporal index, and the questions.
struct MemoryBatch {
  std::int64_t size = 0;   // B
  std::int64_t slots = 0;  // S
  std::shared_ptr<WordRowBatch> memory;    // B * S rows; time[b * S + i] = t_i
  std::shared_ptr<WordRowBatch> question;  // B rows, no times
  std::shared_ptr<std::vector<std::int32_t>> counts;  // n_b: statements kept
  std::vector<std::int32_t> answers;                  // B
  // For each row, the first statement of its story that the memory keeps (story[first + i] is
  // slot i): earlier ones fell outside memory_size.
  std::vector<std::size_t> first;
};

// The batch of questions[members] keeping the last memory_size statements of each story, with
// t_i = n - i (0 for the most recent). empty_share > 0 (training's random empty memories): up
// to ceil(empty_share * n) gaps drawn from rng are inserted between the temporal indices (they
// keep their order), capped at memory_size - 1.
MemoryBatch make_memory_batch(const std::vector<EncodedQuestion>& questions,
                              const std::vector<std::size_t>& members, std::int64_t memory_size,
                              double empty_share = 0.0, Rng* rng = nullptr);

struct MemoryAnswer {
  Var logits;                      // (B, V)
  std::vector<Tensor> attention;   // K tensors (B, S): p^k, 0 on empty slots
};

class MemoryNetwork : public Module {
 public:
  // config.src_vocab words, config.emb_dim = d, config.memory; every table N(0, 0.1^2).
  MemoryNetwork(const ModelConfig& config, Rng& rng, DType dtype = DType::f32);

  // The answer's logits and each hop's attention. linear_start: no softmax in the hops.
  MemoryAnswer forward(const MemoryBatch& batch, bool linear_start) const;
  // The same in the mode the weights were trained in (linear_hops).
  MemoryAnswer forward(const MemoryBatch& batch) const { return forward(batch, linear_hops_); }

  // Weights saved while linear start was still on answer without the hops' softmax (the
  // weights file's kMemoryHopsKey says "linear"); heed eval, show and serve follow it.
  void set_linear_hops(bool on) { linear_hops_ = on; }
  bool linear_hops() const { return linear_hops_; }

  // The kernel threads worth giving one step (forward, backward, or inference) on `batch`
  // questions, of `threads`: its only multi-threaded kernels are the answer's products
  // (B x d by d x V, forward and backward), and one below 2^22 multiply-adds (the joint bAbI
  // model's 32 x 50 x 180 = 288,000) is done before a second thread helps, while with
  // libgomp's default spin-waiting on a loaded machine every parallel region costs far more
  // (docs/PERFORMANCE.md#memory-network). 1 for such a batch, else threads.
  int step_threads(std::int64_t batch, int threads) const;

  std::int64_t hops() const { return static_cast<std::int64_t>(embeddings_.size()) - 1; }
  std::int64_t vocab() const { return vocab_; }
  std::int64_t dim() const { return dim_; }
  std::int64_t memory_size() const { return config_.memory_size; }

 private:
  MemoryConfig config_;
  std::int64_t vocab_, dim_;
  bool linear_hops_ = false;
  std::vector<Var> embeddings_;  // K + 1 tables (V, d)
  std::vector<Var> temporal_;    // K + 1 tables (memory_size, d), or none
};

// The weights metadata entry that says how the hops were trained when the weights were saved:
// "softmax" (also when absent) or "linear" (linear start was still on).
inline constexpr const char* kMemoryHopsKey = "heed.memn2n.hops";

// Throws heed::Error naming the key unless a memory network can be built from config.
void validate_memory_network(const ModelConfig& config);

}  // namespace heed
