#include "heed/metrics/aer.h"

#include <algorithm>
#include <charconv>

#include "heed/base/error.h"

namespace heed::metrics {
namespace {

bool by_target(const AlignmentLink& a, const AlignmentLink& b) {
  return a.second != b.second ? a.second < b.second : a.first < b.first;
}

void sort_unique(std::vector<AlignmentLink>& links) {
  std::sort(links.begin(), links.end(), by_target);
  links.erase(std::unique(links.begin(), links.end()), links.end());
}

// A position: digits only, shifted to 0-based.
bool parse_position(std::string_view s, bool one_based, std::int32_t& out) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  std::int32_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return false;
  if (one_based) {
    if (v < 1) return false;
    --v;
  }
  out = v;
  return true;
}

std::size_t count_in(const std::vector<AlignmentLink>& sorted_links,
                     const std::vector<AlignmentLink>& links) {
  std::size_t n = 0;
  for (const auto& l : links)
    n += std::binary_search(sorted_links.begin(), sorted_links.end(), l, by_target);
  return n;
}

}  // namespace

SentenceAlignment parse_pharaoh(std::string_view line, std::string_view where, bool one_based) {
  SentenceAlignment a;
  std::size_t pos = 0;
  while (pos < line.size()) {
    if (line[pos] == ' ' || line[pos] == '\t') {
      ++pos;
      continue;
    }
    std::size_t end = pos;
    while (end < line.size() && line[end] != ' ' && line[end] != '\t') ++end;
    const std::string_view token = line.substr(pos, end - pos);
    pos = end;
    // i-j, i?j, i-j-P, i-j-S
    bool possible = false;
    std::string_view rest = token;
    if (rest.size() > 2 && rest[rest.size() - 2] == '-' &&
        (rest.back() == 'P' || rest.back() == 'S')) {
      possible = rest.back() == 'P';
      rest.remove_suffix(2);
    }
    const std::size_t sep = rest.find_first_of("-?");
    AlignmentLink link{};
    const bool ok = sep != std::string_view::npos && (rest[sep] == '-' || token == rest) &&
                    parse_position(rest.substr(0, sep), one_based, link.first) &&
                    parse_position(rest.substr(sep + 1), one_based, link.second);
    HEED_CHECK(ok, where, ": bad alignment link '", token, "'; expected i-j (sure), i?j or i-j-P "
               "(possible) with ", one_based ? "1-based" : "0-based",
               " positions, links separated by spaces");
    possible = possible || rest[sep] == '?';
    (possible ? a.possible : a.sure).push_back(link);
  }
  sort_unique(a.sure);
  sort_unique(a.possible);
  // A link given as sure and as possible is sure.
  std::erase_if(a.possible, [&](const AlignmentLink& l) {
    return std::binary_search(a.sure.begin(), a.sure.end(), l, by_target);
  });
  return a;
}

std::string format_pharaoh(const std::vector<AlignmentLink>& links) {
  std::string s;
  for (const auto& [i, j] : links) {
    if (!s.empty()) s += ' ';
    s += std::to_string(i);
    s += '-';
    s += std::to_string(j);
  }
  return s;
}

void add_aer_counts(AerCounts& counts, const SentenceAlignment& gold,
                    const SentenceAlignment& hyp) {
  std::vector<AlignmentLink> a = hyp.sure;
  a.insert(a.end(), hyp.possible.begin(), hyp.possible.end());
  sort_unique(a);
  std::vector<AlignmentLink> p = gold.sure;
  p.insert(p.end(), gold.possible.begin(), gold.possible.end());
  sort_unique(p);
  counts.hyp += a.size();
  counts.sure += gold.sure.size();
  counts.hyp_sure += count_in(gold.sure, a);
  counts.hyp_possible += count_in(p, a);
}

AerScore aer_score(const AerCounts& c) {
  AerScore s;
  if (c.hyp > 0) s.precision = static_cast<double>(c.hyp_possible) / static_cast<double>(c.hyp);
  if (c.sure > 0) s.recall = static_cast<double>(c.hyp_sure) / static_cast<double>(c.sure);
  if (c.hyp + c.sure > 0)
    s.aer = 1.0 - static_cast<double>(c.hyp_sure + c.hyp_possible) /
                      static_cast<double>(c.hyp + c.sure);
  return s;
}

StatsTable aer_stats(const std::vector<std::string>& hyps, std::string_view hyp_name,
                     bool hyp_one_based, const std::vector<std::string>& refs,
                     std::string_view ref_name, bool ref_one_based) {
  HEED_CHECK(hyps.size() == refs.size(), ref_name, " has ", refs.size(), " lines but ", hyp_name,
             " has ", hyps.size());
  StatsTable table("aer", 4,
                   [](std::span<const double> sums) { return 100.0 * aer_from_sums(sums).aer; });
  for (std::size_t i = 0; i < hyps.size(); ++i) {
    const std::string line = std::to_string(i + 1);
    const auto gold = parse_pharaoh(refs[i], std::string(ref_name) + ":" + line, ref_one_based);
    const auto hyp = parse_pharaoh(hyps[i], std::string(hyp_name) + ":" + line, hyp_one_based);
    AerCounts c;
    add_aer_counts(c, gold, hyp);
    const double row[4] = {static_cast<double>(c.hyp), static_cast<double>(c.sure),
                           static_cast<double>(c.hyp_sure), static_cast<double>(c.hyp_possible)};
    table.add_row(row);
  }
  // AER divides by |A| + |S|: with no hypothesis link and no sure gold link it is 0/0, not
  // a perfect 0.00 (a file of empty lines, or links in the other column's format).
  const auto sums = table.column_sums();
  HEED_CHECK(sums[0] + sums[1] > 0, "AER is undefined: ", hyp_name, " has no link and ",
             ref_name, " no sure link (it divides by their number); check that the files hold "
             "Pharaoh links such as 0-0 1-2");
  return table;
}

AerScore aer_from_sums(std::span<const double> sums) {
  HEED_CHECK(sums.size() == 4, "aer: expected 4 sums, got ", sums.size());
  AerCounts c;
  c.hyp = static_cast<std::size_t>(sums[0]);
  c.sure = static_cast<std::size_t>(sums[1]);
  c.hyp_sure = static_cast<std::size_t>(sums[2]);
  c.hyp_possible = static_cast<std::size_t>(sums[3]);
  return aer_score(c);
}

}  // namespace heed::metrics
