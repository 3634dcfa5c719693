// The end-to-end memory network: docs/MODELS.md#memory-network.
#include "heed/models/memory_network.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "heed/autograd/elementwise_op.h"
#include "heed/autograd/matmul.h"
#include "heed/autograd/memory_hop_op.h"
#include "heed/base/error.h"
#include "heed/tensor/arena.h"

namespace heed {

namespace {

Tensor normal_table(std::int64_t rows, std::int64_t dim, Rng& rng, DType dtype) {
  ArenaScope heap(nullptr);
  Tensor t = Tensor::empty({rows, dim}, dtype);
  dispatch(dtype, [&]<typename T>() {
    T* p = t.data<T>();
    for (std::int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<T>(rng.normal(0.0, 0.1));
  });
  return t;
}

// Temporal indices t_1..t_n (oldest first): n - i, with gaps drawn by rng when empty_share > 0.
void temporal_indices(std::int64_t n, std::int64_t memory_size, double empty_share, Rng* rng,
                      std::int32_t* out) {
  std::int64_t gaps = 0;
  if (empty_share > 0 && rng && n > 0)
    gaps = static_cast<std::int64_t>(rng->below(
        static_cast<std::uint64_t>(std::ceil(empty_share * static_cast<double>(n))) + 1));
  if (gaps == 0) {
    for (std::int64_t i = 0; i < n; ++i) out[i] = static_cast<std::int32_t>(n - 1 - i);
    return;
  }
  // n of the n + gaps slots, chosen at random, in order; statement i takes the i-th chosen
  // slot counted from the end (the most recent statement the nearest).
  std::vector<std::int64_t> slots(static_cast<std::size_t>(n + gaps));
  for (std::size_t i = 0; i < slots.size(); ++i) slots[i] = static_cast<std::int64_t>(i);
  for (std::size_t i = slots.size(); i > 1; --i)
    std::swap(slots[i - 1], slots[static_cast<std::size_t>(rng->below(i))]);
  slots.resize(static_cast<std::size_t>(n));
  std::sort(slots.begin(), slots.end(), std::greater<>());  // oldest (largest) first
  for (std::int64_t i = 0; i < n; ++i)
    out[i] = static_cast<std::int32_t>(std::min(slots[static_cast<std::size_t>(i)], memory_size - 1));
}

}  // namespace

MemoryBatch make_memory_batch(const std::vector<EncodedQuestion>& questions,
                              const std::vector<std::size_t>& members, std::int64_t memory_size,
                              double empty_share, Rng* rng) {
  MemoryBatch b;
  b.size = static_cast<std::int64_t>(members.size());
  std::int64_t width = 0, qwidth = 0;
  for (std::size_t m : members) {
    const EncodedQuestion& q = questions.at(m);
    const auto n = std::min<std::int64_t>(static_cast<std::int64_t>(q.story.size()), memory_size);
    b.slots = std::max(b.slots, n);
    for (std::size_t i = q.story.size() - static_cast<std::size_t>(n); i < q.story.size(); ++i)
      width = std::max(width, static_cast<std::int64_t>(q.story[i].size()));
    qwidth = std::max(qwidth, static_cast<std::int64_t>(q.question.size()));
  }
  b.memory = std::make_shared<WordRowBatch>();
  b.question = std::make_shared<WordRowBatch>();
  b.counts = std::make_shared<std::vector<std::int32_t>>();
  WordRowBatch& mem = *b.memory;
  mem.rows = b.size * b.slots;
  mem.width = width;
  mem.ids.assign(static_cast<std::size_t>(mem.rows * width), 0);
  mem.lengths.assign(static_cast<std::size_t>(mem.rows), 0);
  mem.time.assign(static_cast<std::size_t>(mem.rows), -1);
  WordRowBatch& qs = *b.question;
  qs.rows = b.size;
  qs.width = qwidth;
  qs.ids.assign(static_cast<std::size_t>(b.size * qwidth), 0);
  qs.lengths.assign(static_cast<std::size_t>(b.size), 0);
  for (std::int64_t r = 0; r < b.size; ++r) {
    const EncodedQuestion& q = questions[members[static_cast<std::size_t>(r)]];
    const auto n = std::min<std::int64_t>(static_cast<std::int64_t>(q.story.size()), memory_size);
    const std::size_t first = q.story.size() - static_cast<std::size_t>(n);
    b.first.push_back(first);
    b.counts->push_back(static_cast<std::int32_t>(n));
    temporal_indices(n, memory_size, empty_share, rng, mem.time.data() + r * b.slots);
    for (std::int64_t i = 0; i < n; ++i) {
      const std::vector<std::int32_t>& s = q.story[first + static_cast<std::size_t>(i)];
      const std::int64_t row = r * b.slots + i;
      std::copy(s.begin(), s.end(), mem.ids.begin() + row * width);
      mem.lengths[static_cast<std::size_t>(row)] = static_cast<std::int32_t>(s.size());
    }
    std::copy(q.question.begin(), q.question.end(), qs.ids.begin() + r * qwidth);
    qs.lengths[static_cast<std::size_t>(r)] = static_cast<std::int32_t>(q.question.size());
    b.answers.push_back(q.answer);
  }
  return b;
}

void validate_memory_network(const ModelConfig& c) {
  HEED_CHECK(c.src_vocab >= 5, "model: src_vocab (the words) must hold the 4 special tokens and "
             "at least one word, got ", c.src_vocab);
  HEED_CHECK(c.tgt_vocab == 0 || c.tgt_vocab == c.src_vocab, "model.kind memn2n answers with a "
             "word of its one vocabulary: tgt_vocab must equal src_vocab (", c.src_vocab,
             "), got ", c.tgt_vocab);
  HEED_CHECK(c.emb_dim > 0, "model.emb_dim must be positive, got ", c.emb_dim);
  HEED_CHECK(c.memory.hops >= 1, "model.hops must be at least 1, got ", c.memory.hops);
  HEED_CHECK(c.memory.memory_size >= 1, "model.memory_size must be at least 1, got ",
             c.memory.memory_size);
}

MemoryNetwork::MemoryNetwork(const ModelConfig& config, Rng& rng, DType dtype)
    : config_(config.memory), vocab_(config.src_vocab), dim_(config.emb_dim) {
  validate_memory_network(config);
  for (std::int64_t k = 0; k <= config_.hops; ++k)
    embeddings_.push_back(register_parameter("embeddings." + std::to_string(k) + ".weight",
                                             normal_table(vocab_, dim_, rng, dtype)));
  if (config_.temporal_encoding)
    for (std::int64_t k = 0; k <= config_.hops; ++k)
      temporal_.push_back(register_parameter("temporal." + std::to_string(k) + ".weight",
                                             normal_table(config_.memory_size, dim_, rng, dtype)));
}

int MemoryNetwork::step_threads(std::int64_t batch, int threads) const {
  constexpr double kParallelProduct = 1 << 22;  // multiply-adds
  const double work = static_cast<double>(batch) * static_cast<double>(dim_) *
                      static_cast<double>(vocab_);
  return work < kParallelProduct ? 1 : threads;
}

MemoryAnswer MemoryNetwork::forward(const MemoryBatch& batch, bool linear_start) const {
  const bool position = config_.position_encoding;
  const auto table = [&](std::size_t k) { return temporal_.empty() ? Var() : temporal_[k]; };
  std::shared_ptr<const WordRowBatch> memory = batch.memory;
  if (temporal_.empty() && !memory->time.empty()) {  // no temporal encoding: no times
    auto plain = std::make_shared<WordRowBatch>(*memory);
    plain->time.clear();
    memory = plain;
  }
  // Every table's view of the memory: A^k (k = 1..K) are tables 0..K-1, C^k tables 1..K.
  std::vector<Var> written;
  for (std::size_t k = 0; k < embeddings_.size(); ++k)
    written.push_back(bag_of_words(embeddings_[k], table(k), memory, position));
  Var u = bag_of_words(embeddings_[0], Var(), batch.question, position);  // B = A^1
  MemoryAnswer out;
  for (std::size_t k = 0; k + 1 < embeddings_.size(); ++k) {
    MemoryHop hop = memory_hop(u, written[k], written[k + 1], batch.counts, batch.slots,
                               linear_start, config_.pad_memory ? config_.memory_size : 0);
    u = add(u, hop.o);
    out.attention.push_back(std::move(hop.p));
  }
  out.logits = linear(u, embeddings_.back());  // W = C^K
  return out;
}

}  // namespace heed
