#pragma once
// What a memory network read (docs/VISUALIZE.md#hops-of-a-memory-network): the story's statements
// in memory as rows, the hops as columns, each cell the hop's attention weight on that
// statement in viridis with its value; the supporting facts marked; the question, the answer
// given with its probability, and the expected answer above. Drawn once with cairo onto an
// SVG or a PNG surface, as the attention pictures (attention_picture.h).
#include <cstddef>
#include <string>
#include <vector>

namespace heed::viz {

struct MemoryHopsPicture {
  std::string title;                    // "Task 1 · line 3 · model"
  std::vector<std::string> statements;  // the statements in memory, oldest first
  std::size_t first_number = 1;         // the number shown beside statements[0] (1-based)
  std::vector<bool> supporting;         // per statement: a supporting fact
  std::vector<std::vector<double>> hops;  // K x statements: the weights
  std::string question, answer, expected;  // answer: what the model said; expected: "" = unknown
  double probability = 0.0;               // the answer's probability
};

// Throws heed::Error when a hop's row or supporting's size differs from the statements', or a
// weight is not finite.
void check_memory_hops_picture(const MemoryHopsPicture& picture);

// An SVG document; its <title> is the title, its <desc> the question and the answer.
std::string memory_hops_svg(const MemoryHopsPicture& p, const std::string& id_prefix = "");
// PNG bytes, the SVG's size x scale pixels (rounded up).
std::string memory_hops_png(const MemoryHopsPicture& p, double scale = 2.0);

}  // namespace heed::viz
