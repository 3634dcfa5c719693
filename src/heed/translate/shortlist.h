#pragma once
// A vocabulary shortlist (docs/DECODING.md#vocabulary-shortlists): for each source piece the k
// target pieces it is most often translated by, plus the n most frequent target pieces. Decoding a
// batch then scores only the union of the frequent pieces and its source tokens' lists
// (TokenBatch::shortlist, models/output_shortlist.h) instead of the whole target vocabulary.
//
// The file is text, pieces as strings (so it reads against any model with these vocabularies):
//   line 1  heed-shortlist<TAB>1<TAB>top-k=K<TAB>frequent=N<TAB>from=attention|cooccurrence
//   line 2  the N frequent target pieces, TAB-separated (empty for N = 0)
//   then    one line per source piece: the piece, TAB, its (at most K) target pieces, TAB-separated
// A line naming the same source piece twice, an empty piece or a wrong header is an error
// naming the file and the line.
//
// ShortlistBuilder makes one from a parallel text: from the model's own attention (each
// target piece linked to its most attended source piece by forced decoding, heed align's
// code path; the links counted) or from co-occurrence alone (pairs of pieces in the same
// sentence pair, ranked by the Dice coefficient 2 c(s,t) / (c(s) + c(t))).
#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "heed/base/enum_names.h"
#include "heed/data/vocabulary.h"

namespace heed {

enum class ShortlistSource { attention, cooccurrence };
inline constexpr EnumName<ShortlistSource> kShortlistSourceNames[] = {
    {ShortlistSource::attention, "attention"}, {ShortlistSource::cooccurrence, "cooccurrence"}};
constexpr std::span<const EnumName<ShortlistSource>> enum_names(ShortlistSource) {
  return kShortlistSourceNames;
}

struct Shortlist {
  ShortlistSource from = ShortlistSource::attention;
  std::size_t top_k = 0;
  std::vector<std::string> frequent;  // most frequent first
  // Source piece -> its target pieces, best first; in file order (sorted by source piece).
  std::vector<std::pair<std::string, std::vector<std::string>>> lists;
};

// Writes atomically; reads with errors naming the file and the line.
void write_shortlist(const std::string& path, const Shortlist& shortlist);
Shortlist read_shortlist(const std::string& path);

class ShortlistBuilder {
 public:
  // One sentence pair's pieces (no EOS): the target frequencies and the co-occurrence counts.
  // A piece the file cannot hold (empty, or a TAB or line break inside: raw text with a TAB
  // that the tokenizer passed through; no vocabulary holds such a piece) is left out, here and
  // in add_link, and counted.
  void add_pair(const std::vector<std::string>& source, const std::vector<std::string>& target);
  // One alignment link from source piece s to target piece t.
  void add_link(const std::string& s, const std::string& t);
  // Per source piece its top_k targets by link count (attention) or Dice (cooccurrence),
  // ties by piece; the `frequent` most frequent target pieces, ties by piece.
  Shortlist build(ShortlistSource from, std::size_t top_k, std::size_t frequent) const;
  // The distinct pieces left out so far.
  std::size_t unlistable() const { return unlistable_.size(); }

 private:
  bool listable(const std::string& piece);
  std::set<std::string> unlistable_;
  std::map<std::string, std::size_t> target_count_;                   // occurrences
  std::map<std::string, std::size_t> src_sentences_, tgt_sentences_;  // sentences holding it
  std::map<std::string, std::map<std::string, std::size_t>> cooc_, links_;
};

// A shortlist resolved against a model's vocabularies: per source id its target ids.
class ShortlistIndex {
 public:
  ShortlistIndex(const Shortlist& shortlist, const Vocabulary& source, const Vocabulary& target);
  // The batch's shortlist: sorted unique ids, the specials, the frequent ids and every
  // source token's list (PAD and ids without a list add nothing).
  std::vector<std::int32_t> batch_ids(std::span<const std::int32_t> source_ids) const;
  // Pieces of the file the vocabularies lack (skipped): source lines and target pieces.
  std::size_t skipped_sources() const { return skipped_sources_; }
  std::size_t skipped_targets() const { return skipped_targets_; }
  std::size_t target_vocab() const { return tgt_vocab_; }

 private:
  std::vector<std::int32_t> base_;                     // specials and frequent
  std::vector<std::vector<std::int32_t>> per_source_;  // by source id
  std::size_t skipped_sources_ = 0, skipped_targets_ = 0, tgt_vocab_ = 0;
};

}  // namespace heed
