#include "heed/metrics/length_buckets.h"

#include <cmath>
#include <limits>

#include "heed/base/error.h"
#include "heed/base/utf8.h"
#include "heed/metrics/bootstrap.h"
#include "heed/metrics/text.h"

namespace heed::metrics {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string_view trim(std::string_view s) {
  const auto b = s.find_first_not_of(' ');
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(' ') - b + 1);
}

// A positive length; `item` names the bucket item in the message.
std::size_t parse_length(std::string_view text, std::string_view item) {
  HEED_CHECK(!text.empty() && text.size() <= 9 &&
                 text.find_first_not_of("0123456789") == std::string_view::npos,
             "--buckets: '", item,
             "' is not a length or a range (expected e.g. 10,20,30 or "
             "1-10,11-20,21-)");
  const std::size_t v = std::stoul(std::string(text));
  HEED_CHECK(v > 0, "--buckets: '", item, "': lengths start at 1");
  return v;
}

}  // namespace

std::size_t source_length(std::string_view line, LengthUnit unit) {
  if (unit == LengthUnit::words) return split_whitespace(line).size();
  std::size_t n = 0;
  char32_t cp = 0;
  for (std::size_t at = 0; at < line.size();) {
    at += decode_utf8_escaped_at(line, at, cp);
    n += !is_python_space(cp);
  }
  return n;
}

std::string LengthRange::label() const {
  if (!hi) return std::to_string(lo) + "+";
  if (*hi == lo) return std::to_string(lo);
  return std::to_string(lo) + "-" + std::to_string(*hi);
}

std::vector<LengthRange> parse_length_buckets(std::string_view spec) {
  std::vector<std::string_view> items;
  for (std::size_t start = 0;;) {
    std::size_t comma = spec.find(',', start);
    if (comma == std::string_view::npos) comma = spec.size();
    items.push_back(trim(spec.substr(start, comma - start)));
    if (comma == spec.size()) break;
    start = comma + 1;
  }
  const bool ranges = spec.find('-') != std::string_view::npos;
  std::vector<LengthRange> out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string_view item = items[i];
    HEED_CHECK(!item.empty(), "--buckets: empty item in '", spec, "'");
    const std::size_t dash = item.find('-');
    if (!ranges) {
      const std::size_t edge = parse_length(item, item);
      const std::size_t lo = out.empty() ? 1 : *out.back().hi + 1;
      HEED_CHECK(edge >= lo, "--buckets: edges must increase ('", item, "' after ", lo - 1, ")");
      out.push_back({lo, edge});
      continue;
    }
    HEED_CHECK(dash != std::string_view::npos, "--buckets: '", item,
               "' is a single edge among ranges; write either edges (10,20,30) or ranges "
               "(1-10,11-20,21-)");
    LengthRange r;
    r.lo = parse_length(trim(item.substr(0, dash)), item);
    const std::string_view hi = trim(item.substr(dash + 1));
    if (!hi.empty()) {
      r.hi = parse_length(hi, item);
      HEED_CHECK(*r.hi >= r.lo, "--buckets: '", item, "' ends before it starts");
    } else {
      HEED_CHECK(i + 1 == items.size(), "--buckets: only the last range may be open-ended ('", item,
                 "')");
    }
    HEED_CHECK(out.empty() || r.lo > *out.back().hi, "--buckets: '", item,
               "' overlaps or precedes the range before it (ranges must ascend)");
    out.push_back(r);
  }
  if (!ranges) out.push_back({*out.back().hi + 1, std::nullopt});
  return out;
}

std::vector<LengthRange> width_buckets(std::size_t width, std::size_t max_length) {
  HEED_CHECK(width > 0, "bucket width must be positive");
  std::vector<LengthRange> out;
  std::size_t lo = 1;
  while (lo + width <= max_length) {  // a bucket ending before max_length
    out.push_back({lo, lo + width - 1});
    lo += width;
  }
  out.push_back({lo, std::nullopt});
  return out;
}

LengthBreakdown score_by_length(const StatsTable& table, std::span<const std::size_t> lengths,
                                std::span<const LengthRange> buckets, std::size_t samples,
                                std::uint64_t seed) {
  HEED_CHECK(lengths.size() == table.rows(), "score_by_length: ", lengths.size(),
             " source lengths for ", table.rows(), " segments");
  HEED_CHECK(!buckets.empty(), "score_by_length: no buckets");
  std::vector<std::vector<std::size_t>> rows(buckets.size());
  LengthBreakdown out;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    std::size_t b = 0;
    while (b < buckets.size() && !buckets[b].contains(lengths[i])) ++b;
    if (b == buckets.size())
      ++out.outside;
    else
      rows[b].push_back(i);
  }
  for (std::size_t b = 0; b < buckets.size(); ++b) {
    LengthBucketScore s;
    s.range = buckets[b];
    s.n = rows[b].size();
    if (s.n == 0) {
      s.score = s.lower = s.upper = kNaN;
    } else {
      const ConfidenceInterval ci = bootstrap_ci(table.subset(rows[b]), samples, seed);
      s.score = ci.score;
      s.lower = ci.lower;
      s.upper = ci.upper;
    }
    out.buckets.push_back(s);
  }
  return out;
}

}  // namespace heed::metrics
