#pragma once
// Levenshtein distance between token sequences (unit cost substitution, insertion,
// deletion), the count behind WER and PER.
#include <cstddef>
#include <string>
#include <vector>

namespace heed::metrics {

std::size_t edit_distance(const std::vector<std::string>& hyp, const std::vector<std::string>& ref);

}  // namespace heed::metrics
