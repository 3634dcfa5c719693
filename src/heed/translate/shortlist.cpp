#include "heed/translate/shortlist.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "heed/base/atomic_file.h"
#include "heed/base/error.h"
#include "heed/models/token_batch.h"

namespace heed {
namespace {

constexpr std::string_view kMagic = "heed-shortlist";
constexpr std::string_view kVersion = "1";

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t tab = line.find('\t', start);
    out.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos) return out;
    start = tab + 1;
  }
}

// The value of "key=value" in a header field, checked to be a count.
std::size_t header_count(const std::string& field, std::string_view key, const std::string& path) {
  const std::string prefix = std::string(key) + "=";
  HEED_CHECK(field.rfind(prefix, 0) == 0 && field.size() > prefix.size() &&
                 field.size() - prefix.size() <= 9 &&
                 field.find_first_not_of("0123456789", prefix.size()) == std::string::npos,
             "shortlist ", path, " line 1: expected '", prefix, "<count>', got '", field, "'");
  return static_cast<std::size_t>(std::stoull(field.substr(prefix.size())));
}

// The best `n` keys of `score` (higher first, ties by key).
template <typename Score>
std::vector<std::string> best(const std::map<std::string, Score>& score, std::size_t n) {
  std::vector<std::pair<std::string, Score>> all(score.begin(), score.end());
  std::stable_sort(all.begin(), all.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < all.size() && i < n; ++i) out.push_back(all[i].first);
  return out;
}

}  // namespace

void write_shortlist(const std::string& path, const Shortlist& s) {
  auto check = [&](const std::string& piece) {
    HEED_CHECK(!piece.empty() && piece.find_first_of("\t\n\r") == std::string::npos, "shortlist ",
               path, ": cannot write the piece '", piece,
               "' (empty, or a TAB or line break inside)");
  };
  for (const std::string& p : s.frequent) check(p);
  for (const auto& [source, targets] : s.lists) {
    check(source);
    for (const std::string& t : targets) check(t);
  }
  std::ostringstream out;
  out << kMagic << '\t' << kVersion << "\ttop-k=" << s.top_k << "\tfrequent=" << s.frequent.size()
      << "\tfrom=" << enum_name(s.from) << '\n';
  for (std::size_t i = 0; i < s.frequent.size(); ++i) out << (i ? "\t" : "") << s.frequent[i];
  out << '\n';
  for (const auto& [source, targets] : s.lists) {
    out << source;
    for (const std::string& t : targets) out << '\t' << t;
    out << '\n';
  }
  write_file_atomically(path, out.str());
}

Shortlist read_shortlist(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  HEED_CHECK(in.good(), "shortlist ", path, ": cannot open the file");
  Shortlist s;
  std::string line;
  std::size_t number = 0;
  auto next = [&] {
    if (!std::getline(in, line)) return false;
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return true;
  };
  HEED_CHECK(next(), "shortlist ", path, ": the file is empty; expected the header line '", kMagic,
             "<TAB>", kVersion, "<TAB>top-k=K<TAB>frequent=N<TAB>from=...'");
  const std::vector<std::string> header = split_tabs(line);
  HEED_CHECK(header[0] == kMagic, "shortlist ", path, " line 1: expected the header '", kMagic,
             "<TAB>", kVersion, "<TAB>top-k=K<TAB>frequent=N<TAB>from=...', got '",
             line.substr(0, 80), "' (not a shortlist file made by heed shortlist?)");
  HEED_CHECK(header.size() >= 2 && header[1] == kVersion, "shortlist ", path, " line 1: version '",
             header.size() >= 2 ? header[1] : "", "' is not supported (expected ", kVersion, ")");
  HEED_CHECK(header.size() == 5, "shortlist ", path,
             " line 1: expected 5 TAB-separated fields, got ", header.size());
  s.top_k = header_count(header[2], "top-k", path);
  const std::size_t frequent = header_count(header[3], "frequent", path);
  HEED_CHECK(header[4].rfind("from=", 0) == 0 && enum_from_name(header[4].substr(5), s.from),
             "shortlist ", path, " line 1: expected 'from=' ", enum_choices<ShortlistSource>(),
             ", got '", header[4], "'");
  HEED_CHECK(next(), "shortlist ", path, " line 2: missing; expected the ", frequent,
             " frequent target pieces");
  if (frequent > 0) s.frequent = split_tabs(line);
  HEED_CHECK(s.frequent.size() == frequent, "shortlist ", path, " line 2: ", s.frequent.size(),
             " frequent target pieces, the header says ", frequent);
  for (const std::string& p : s.frequent)
    HEED_CHECK(!p.empty(), "shortlist ", path,
               " line 2: an empty target piece (two TABs in a row?)");
  std::set<std::string> seen;
  while (next()) {
    std::vector<std::string> fields = split_tabs(line);
    HEED_CHECK(!fields[0].empty(), "shortlist ", path, " line ", number,
               ": expected a source piece, TAB and its target pieces; the source piece is empty");
    HEED_CHECK(fields.size() - 1 <= s.top_k, "shortlist ", path, " line ", number, ": ",
               fields.size() - 1, " target pieces, more than top-k=", s.top_k);
    for (std::size_t i = 1; i < fields.size(); ++i)
      HEED_CHECK(!fields[i].empty(), "shortlist ", path, " line ", number,
                 ": an empty target piece (two TABs in a row?)");
    HEED_CHECK(seen.insert(fields[0]).second, "shortlist ", path, " line ", number,
               ": source piece '", fields[0], "' listed twice");
    std::string source = std::move(fields[0]);
    fields.erase(fields.begin());
    s.lists.emplace_back(std::move(source), std::move(fields));
  }
  return s;
}

bool ShortlistBuilder::listable(const std::string& piece) {
  if (!piece.empty() && piece.find_first_of("\t\n\r") == std::string::npos) return true;
  unlistable_.insert(piece);
  return false;
}

void ShortlistBuilder::add_pair(const std::vector<std::string>& source,
                                const std::vector<std::string>& target) {
  std::set<std::string> s, t;
  for (const std::string& a : source)
    if (listable(a)) s.insert(a);
  for (const std::string& b : target)
    if (listable(b)) {
      ++target_count_[b];
      t.insert(b);
    }
  for (const std::string& a : s) ++src_sentences_[a];
  for (const std::string& b : t) ++tgt_sentences_[b];
  for (const std::string& a : s) {
    auto& row = cooc_[a];
    for (const std::string& b : t) ++row[b];
  }
}

void ShortlistBuilder::add_link(const std::string& s, const std::string& t) {
  if (listable(s) && listable(t)) ++links_[s][t];
}

Shortlist ShortlistBuilder::build(ShortlistSource from, std::size_t top_k,
                                  std::size_t frequent) const {
  Shortlist out;
  out.from = from;
  out.top_k = top_k;
  out.frequent = best(target_count_, frequent);
  if (from == ShortlistSource::attention) {
    for (const auto& [s, row] : links_) out.lists.emplace_back(s, best(row, top_k));
    return out;
  }
  for (const auto& [s, row] : cooc_) {
    const double cs = static_cast<double>(src_sentences_.at(s));
    std::map<std::string, double> dice;
    for (const auto& [t, c] : row)
      dice[t] = 2.0 * static_cast<double>(c) / (cs + static_cast<double>(tgt_sentences_.at(t)));
    out.lists.emplace_back(s, best(dice, top_k));
  }
  return out;
}

ShortlistIndex::ShortlistIndex(const Shortlist& s, const Vocabulary& source,
                               const Vocabulary& target)
    : per_source_(source.size()), tgt_vocab_(target.size()) {
  base_ = {kPad, kBos, kEos, kUnk};
  auto target_id = [&](const std::string& piece, std::vector<std::int32_t>& into) {
    if (!target.contains(piece)) {
      ++skipped_targets_;
      return;
    }
    into.push_back(target.id(piece));
  };
  for (const std::string& p : s.frequent) target_id(p, base_);
  std::sort(base_.begin(), base_.end());
  base_.erase(std::unique(base_.begin(), base_.end()), base_.end());
  for (const auto& [piece, targets] : s.lists) {
    if (!source.contains(piece)) {
      ++skipped_sources_;
      continue;
    }
    auto& row = per_source_[static_cast<std::size_t>(source.id(piece))];
    for (const std::string& t : targets) target_id(t, row);
  }
}

std::vector<std::int32_t> ShortlistIndex::batch_ids(
    std::span<const std::int32_t> source_ids) const {
  std::vector<char> in(tgt_vocab_, 0);
  for (std::int32_t id : base_) in[static_cast<std::size_t>(id)] = 1;
  for (std::int32_t s : source_ids) {
    HEED_CHECK(s >= 0 && static_cast<std::size_t>(s) < per_source_.size(), "shortlist: source id ",
               s, " is outside the source vocabulary of ", per_source_.size());
    for (std::int32_t t : per_source_[static_cast<std::size_t>(s)])
      in[static_cast<std::size_t>(t)] = 1;
  }
  std::vector<std::int32_t> out;
  for (std::size_t i = 0; i < in.size(); ++i)
    if (in[i]) out.push_back(static_cast<std::int32_t>(i));
  return out;
}

}  // namespace heed
