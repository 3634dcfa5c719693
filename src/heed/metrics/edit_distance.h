#pragma once
// Levenshtein distance (unit cost substitution, insertion, deletion): between token
// sequences, the count behind WER and PER; between the bytes of two words, the closeness
// behind "did you mean" suggestions (unknown config keys and commands).
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace heed::metrics {

std::size_t edit_distance(const std::vector<std::string>& hyp, const std::vector<std::string>& ref);
std::size_t edit_distance_chars(std::string_view a, std::string_view b);

}  // namespace heed::metrics
