#include "support/golden_memory_batch.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace heed::testing {
namespace {

std::vector<std::int32_t> ints(const Tensor& t) {
  std::vector<std::int32_t> out;
  for (double v : t.to_vector()) out.push_back(static_cast<std::int32_t>(v));
  return out;
}

// The real length of each row of ids (rows x width, PAD = 0 after the words).
std::vector<std::int32_t> lengths(const std::vector<std::int32_t>& ids, std::int64_t rows,
                                  std::int64_t width) {
  std::vector<std::int32_t> out;
  for (std::int64_t r = 0; r < rows; ++r) {
    std::int32_t len = 0;
    while (len < width && ids[static_cast<std::size_t>(r * width + len)] != 0) ++len;
    out.push_back(len);
  }
  return out;
}

}  // namespace

MemoryBatch golden_memory_batch(const SafeTensorsFile& g) {
  const Tensor& memory = g.get("in.memory");  // (B, S, J)
  const std::int64_t B = memory.dim(0), S = memory.dim(1), J = memory.dim(2);
  const std::vector<std::int32_t> time = ints(g.get("in.time"));
  const Tensor& question = g.get("in.question");
  MemoryBatch b;
  b.size = B;
  b.slots = S;
  b.memory = std::make_shared<WordRowBatch>();
  b.memory->rows = B * S;
  b.memory->width = J;
  b.memory->ids = ints(memory);
  b.memory->lengths = lengths(b.memory->ids, B * S, J);
  for (std::int64_t r = 0; r < B * S; ++r)
    b.memory->time.push_back(b.memory->lengths[static_cast<std::size_t>(r)] > 0
                                 ? time[static_cast<std::size_t>(r)]
                                 : -1);
  b.question = std::make_shared<WordRowBatch>();
  b.question->rows = B;
  b.question->width = question.dim(1);
  b.question->ids = ints(question);
  b.question->lengths = lengths(b.question->ids, B, question.dim(1));
  b.counts = std::make_shared<std::vector<std::int32_t>>(ints(g.get("in.counts")));
  b.answers = ints(g.get("in.answer"));
  b.first.assign(static_cast<std::size_t>(B), 0);
  return b;
}

}  // namespace heed::testing
