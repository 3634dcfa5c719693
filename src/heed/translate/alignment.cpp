#include "heed/translate/alignment.h"

#include <algorithm>
#include <charconv>
#include <cstdio>

#include "heed/base/error.h"
#include "heed/data/vocabulary.h"

namespace heed {
namespace {

// The position of each piece in the alignment: itself, or its word (-1: none).
std::vector<std::int32_t> positions(const std::vector<std::string>& pieces, bool words,
                                    const Tokenizer& tokenizer) {
  if (words) return tokenizer.word_positions(pieces);
  std::vector<std::int32_t> p(pieces.size());
  for (std::size_t i = 0; i < p.size(); ++i) p[i] = static_cast<std::int32_t>(i);
  return p;
}

std::int32_t count(const std::vector<std::int32_t>& positions) {
  std::int32_t n = 0;
  for (auto p : positions) n = std::max(n, p + 1);
  return n;
}

void check_shape(const AttentionMatrix& m) {
  HEED_CHECK(m.weights.size() == m.rows * m.cols && m.cols == m.source.size() + 1 &&
                 m.rows >= m.output.size(),
             "alignment: an attention matrix of ", m.rows, " x ", m.cols, " (", m.weights.size(),
             " weights) for ", m.output.size(), " output and ", m.source.size(),
             " source pieces");
}

}  // namespace

AlignmentOptions parse_alignment_mode(std::string_view text) {
  AlignmentOptions o;
  if (text == "hard") return o;
  if (text == "soft") {
    o.mode = AlignmentMode::soft;
    return o;
  }
  float t = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), t);
  HEED_CHECK(ec == std::errc() && end == text.data() + text.size() && t > 0 && t <= 1,
             "expected hard, soft or a threshold in (0, 1], got '", text, "'");
  o.mode = AlignmentMode::threshold;
  o.threshold = t;
  return o;
}

AttentionMatrix make_attention_matrix(const std::vector<std::string>& source,
                                      const std::vector<std::string>& output,
                                      std::span<const float> weights) {
  AttentionMatrix m;
  m.weights = weights;
  m.rows = output.size();
  m.cols = source.size();
  if (!source.empty()) m.source.assign(source.begin(), source.end() - 1);
  m.output = output;
  if (!m.output.empty() && m.output.back() == Vocabulary::kEosToken) m.output.pop_back();
  return m;
}

std::vector<metrics::AlignmentLink> alignment_links(const AttentionMatrix& m,
                                                    const AlignmentOptions& options,
                                                    const Tokenizer& source_tokenizer,
                                                    const Tokenizer& target_tokenizer) {
  check_shape(m);
  const auto src = positions(m.source, options.words, source_tokenizer);
  const auto tgt = positions(m.output, options.words, target_tokenizer);
  std::vector<metrics::AlignmentLink> links;
  auto link = [&](std::size_t i, std::size_t j) {
    if (src[i] >= 0 && tgt[j] >= 0) links.emplace_back(src[i], tgt[j]);
  };
  for (std::size_t j = 0; j < m.output.size(); ++j) {
    const float* row = m.weights.data() + j * m.cols;
    if (options.mode == AlignmentMode::hard) {
      // The first maximum over every column, the source's EOS (the last) included.
      const auto best = static_cast<std::size_t>(std::max_element(row, row + m.cols) - row);
      if (best < m.source.size()) link(best, j);
    } else {
      for (std::size_t i = 0; i < m.source.size(); ++i)
        if (row[i] >= options.threshold) link(i, j);
    }
  }
  std::sort(links.begin(), links.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second < b.second : a.first < b.first;
  });
  links.erase(std::unique(links.begin(), links.end()), links.end());
  return links;
}

std::string alignment_text(const AttentionMatrix& m, const AlignmentOptions& options,
                           const Tokenizer& source_tokenizer, const Tokenizer& target_tokenizer) {
  if (options.mode != AlignmentMode::soft)
    return metrics::format_pharaoh(
        alignment_links(m, options, source_tokenizer, target_tokenizer));
  check_shape(m);
  const auto src = positions(m.source, options.words, source_tokenizer);
  const auto tgt = positions(m.output, options.words, target_tokenizer);
  const std::int32_t S = count(src), T = count(tgt);
  // Word (or piece) rows: the sum of the pieces' rows, then divided by their number.
  std::vector<double> w(static_cast<std::size_t>(S) * static_cast<std::size_t>(T), 0.0);
  std::vector<int> pieces(static_cast<std::size_t>(T), 0);
  for (std::size_t j = 0; j < m.output.size(); ++j) {
    if (tgt[j] < 0) continue;
    ++pieces[static_cast<std::size_t>(tgt[j])];
    for (std::size_t i = 0; i < m.source.size(); ++i)
      if (src[i] >= 0)
        w[static_cast<std::size_t>(tgt[j]) * static_cast<std::size_t>(S) +
          static_cast<std::size_t>(src[i])] += m.weights[j * m.cols + i];
  }
  std::string s;
  char buf[32];
  for (std::int32_t j = 0; j < T; ++j) {
    if (j > 0) s += ' ';
    for (std::int32_t i = 0; i < S; ++i) {
      const double v = w[static_cast<std::size_t>(j) * static_cast<std::size_t>(S) +
                         static_cast<std::size_t>(i)] /
                       std::max(1, pieces[static_cast<std::size_t>(j)]);
      std::snprintf(buf, sizeof buf, "%s%.4f", i ? "," : "", v);
      s += buf;
    }
  }
  return s;
}

}  // namespace heed
