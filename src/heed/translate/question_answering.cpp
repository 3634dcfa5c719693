#include "heed/translate/question_answering.h"

#include <algorithm>
#include <cmath>

#include "heed/autograd/tape.h"
#include "heed/tensor/arena.h"

namespace heed {

std::vector<AnsweredQuestion> answer_questions(const MemoryNetwork& model,
                                               const std::vector<EncodedQuestion>& questions,
                                               std::int64_t batch) {
  NoGradGuard no_grad;
  std::vector<AnsweredQuestion> out(questions.size());
  Arena arena;
  const std::int64_t V = model.vocab();
  for (std::size_t start = 0; start < questions.size(); start += static_cast<std::size_t>(batch)) {
    const std::size_t end = std::min(questions.size(), start + static_cast<std::size_t>(batch));
    std::vector<std::size_t> members;
    for (std::size_t i = start; i < end; ++i) members.push_back(i);
    {
      ArenaScope scope(&arena);
      const MemoryBatch b = make_memory_batch(questions, members, model.memory_size());
      const MemoryAnswer a = model.forward(b);
      const std::vector<double> logits = a.logits.value().to_vector();
      std::vector<std::vector<double>> hops;
      for (const Tensor& p : a.attention) hops.push_back(p.to_vector());
      for (std::size_t r = 0; r < members.size(); ++r) {
        AnsweredQuestion& q = out[members[r]];
        const EncodedQuestion& e = questions[members[r]];
        const double* row = logits.data() + static_cast<std::ptrdiff_t>(r) * V;
        const std::int64_t best = std::max_element(row, row + V) - row;
        double sum = 0.0;
        for (std::int64_t v = 0; v < V; ++v) sum += std::exp(row[v] - row[best]);
        q.predicted = static_cast<std::int32_t>(best);
        q.probability = 1.0 / sum;
        if (e.answer >= 0 && e.answer < V) q.answer_probability = std::exp(row[e.answer] - row[best]) / sum;
        q.first = b.first[r];
        const std::int32_t n = (*b.counts)[r];
        for (const std::vector<double>& p : hops) {
          const double* pr = p.data() + static_cast<std::ptrdiff_t>(r) * b.slots;
          q.attention.emplace_back(pr, pr + n);
          if (n == 0) continue;
          const std::size_t top = q.first + static_cast<std::size_t>(std::max_element(pr, pr + n) - pr);
          if (std::find(e.supporting.begin(), e.supporting.end(), top) != e.supporting.end())
            q.attention_found_support = true;
        }
      }
    }
    arena.reset();
  }
  return out;
}

}  // namespace heed
