#pragma once
// Quality by source length (Bahdanau et al. 2015, figure 2): the segments are grouped by
// the length of their source sentence and each group is scored on its own, with a
// bootstrap 95% interval, from the one StatsTable of the corpus (no text is re-read).
// Empty buckets are kept (n = 0, score NaN) so that every system scored with the same
// buckets reports the same rows; segments that fall in no bucket (a source of length 0,
// a gap between explicit ranges) are counted, not scored.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "heed/base/enum_names.h"
#include "heed/metrics/stats_table.h"

namespace heed::metrics {

using heed::operator<<;  // streams the enums below by name (base/enum_names.h)

enum class LengthUnit { words, chars };
inline constexpr EnumName<LengthUnit> kLengthUnitNames[] = {{LengthUnit::words, "words"},
                                                             {LengthUnit::chars, "chars"}};
constexpr std::span<const EnumName<LengthUnit>> enum_names(LengthUnit) { return kLengthUnitNames; }

// words: whitespace-separated tokens (Python's str.split()); chars: code points that are
// not whitespace, so a G2P source gives the word's length whether it is written "cat" or
// "c a t". Invalid UTF-8 bytes count one each.
std::size_t source_length(std::string_view line, LengthUnit unit);

struct LengthRange {
  std::size_t lo = 1;
  std::optional<std::size_t> hi;  // none: open-ended ("51+")
  bool contains(std::size_t length) const { return length >= lo && (!hi || length <= *hi); }
  std::string label() const;  // "1-10", "7" (lo == hi), "51+"
};

// Bucket specifications:
//   upper edges "10,20,30"          -> 1-10, 11-20, 21-30, 31+
//   explicit ranges "1-10,11-20,31-" -> as written ("31-" is open-ended)
// Edges must increase; ranges must be ascending and must not overlap (gaps are allowed).
// The two forms do not mix. Throws heed::Error naming the offending item.
std::vector<LengthRange> parse_length_buckets(std::string_view spec);
// Buckets of a fixed width starting at 1, up to the one holding max_length; that last one
// is open-ended (width 10, max_length 37: 1-10, 11-20, 21-30, 31+).
std::vector<LengthRange> width_buckets(std::size_t width, std::size_t max_length);

struct LengthBucketScore {
  LengthRange range;
  std::size_t n = 0;                       // segments in the bucket
  double score = 0, lower = 0, upper = 0;  // NaN when n == 0
};

struct LengthBreakdown {
  std::vector<LengthBucketScore> buckets;
  std::size_t outside = 0;  // segments in no bucket
};

// lengths[i] is the source length of segment i (table row i). Each bucket's interval is
// bootstrap_ci(table.subset(rows of the bucket), samples, seed): the same seed for every
// bucket, so the result repeats exactly.
LengthBreakdown score_by_length(const StatsTable& table, std::span<const std::size_t> lengths,
                                std::span<const LengthRange> buckets, std::size_t samples = 1000,
                                std::uint64_t seed = 12345);

}  // namespace heed::metrics
