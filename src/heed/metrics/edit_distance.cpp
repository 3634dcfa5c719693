#include "heed/metrics/edit_distance.h"

#include <algorithm>

namespace heed::metrics {

namespace {

// Two rows of the dynamic programme over (hyp prefix, ref prefix), for any two sequences.
template <typename Seq>
std::size_t levenshtein(const Seq& hyp, const Seq& ref) {
  std::vector<std::size_t> prev(ref.size() + 1), cur(ref.size() + 1);
  for (std::size_t j = 0; j <= ref.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= hyp.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= ref.size(); ++j) {
      std::size_t substitute = prev[j - 1] + (hyp[i - 1] == ref[j - 1] ? 0 : 1);
      cur[j] = std::min({substitute, prev[j] + 1, cur[j - 1] + 1});
    }
    std::swap(prev, cur);
  }
  return prev[ref.size()];
}

}  // namespace

std::size_t edit_distance(const std::vector<std::string>& hyp, const std::vector<std::string>& ref) {
  return levenshtein(hyp, ref);
}

std::size_t edit_distance_chars(std::string_view a, std::string_view b) { return levenshtein(a, b); }

}  // namespace heed::metrics
