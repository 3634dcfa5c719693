// greedy_decode and beam_search against the PyTorch reference's (tests/golden/models_*,
// written by tools/make_model_goldens.py): every model golden file is built as the heed model
// its metadata names (float64), its trained weights are loaded by name, and heed's decodes of
// the golden batch are compared with the reference's out.greedy.*, out.beam.* (beam 3,
// n_best 2, alpha 0, 'length') and out.beam_gnmt.* (alpha 0.6, 'gnmt'), all with max_len 10.
//
// The rule: tokens must be equal wherever the choice is not a near-tie. A near-tie is a gap
// of at most 1e-3 between the two values whose order decides the step; there the order is
// arbitrary (1e-15 of rounding may flip it) and the rest of the output may differ. The
// generator stores no margins, so they are computed here from heed's own step logits:
//   greedy: the top-two logits of each row at each step, with the reference's tokens fed
//           (teacher forcing along the reference's path, PAD after EOS as the reference);
//           a row is compared before its first near-tie step.
//   beam:   a plain re-run of the reference's algorithm on heed's step logits records, per
//           sentence and step, the gap between the k-th and (k+1)-th best candidate (the
//           boundary that decides which hypotheses survive; the order inside the beam only
//           breaks exact ties), and the gaps between the final normalised scores of the
//           first n_best + 1 (which decide the n-best order). A sentence's hypotheses are
//           compared before its first near-tie step; after a near-tie in the final ranking
//           a reference hypothesis is matched with the heed hypothesis of the same tokens.
// Where the whole hypothesis agrees: raw scores and lengths, and scores within
// 1e-9 * (1 + |ref|) (but see kLpFloat32Tol). Attention rows are compared (within 1e-9) for
// every step whose preceding tokens agree, since row t depends on tokens 0..t-1 only. Formats:
// the reference's tokens are (B, T) / (B, n_best, T), PAD after EOS (its length: the first
// EOS + 1, else T; a PAD before that is a real token); heed's run up to and including EOS and
// its attention is (length, real source length) (the reference's padding columns are 0).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "heed/autograd/tape.h"
#include "heed/decode/beam_search.h"
#include "heed/decode/greedy.h"
#include "heed/models/model_registry.h"
#include "heed/store/checkpoint.h"
#include "support/golden.h"

namespace heed::testing {
namespace {

constexpr double kTieMargin = 1e-3;  // the near-tie rule
constexpr double kTol = 1e-9;        // float64 against float64
// The reference computes the length penalty in float32 (lengths.float().pow(alpha)), so its
// normalised scores carry ~1e-7 relative error when alpha != 0 (observed <= 1.5e-7):
// those are compared with this; heed's scores are also compared within kTol with ref raw_score /
// lp(ref length).
constexpr double kLpFloat32Tol = 1e-6;
constexpr std::int64_t kMaxLen = 10;  // DECODE_MAX of the generator, checked in the metadata
constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::max();
constexpr double kNegInf = -std::numeric_limits<double>::infinity();

struct ModelCase {
  std::string name;
  SafeTensorsFile golden;
  std::unique_ptr<Seq2Seq> model;
  TokenBatch src;
};

ModelCase load_case(const std::string& name) {
  ModelCase c;
  c.name = name;
  c.golden = load_golden(name);
  Rng rng(1);
  c.model = make_model(golden_model_config(c.golden), rng, DType::f64);
  load_into(*c.model, golden_group(c.golden, "param."), name);
  c.model->eval();
  c.src = golden_token_batch(c.golden.get("in.src"), golden_ints(c.golden.get("in.src_len")));
  return c;
}

// The generator's calls, as written in the metadata, must be the ones the test runs.
void expect_call(const ModelCase& c, const std::string& key, const std::string& part) {
  auto it = c.golden.metadata.find(key);
  ASSERT_NE(it, c.golden.metadata.end()) << c.name << ": no metadata " << key;
  EXPECT_NE(it->second.find(part), std::string::npos)
      << c.name << ": metadata " << key << " = " << it->second << " lacks " << part;
}

// A reference token row: tokens up to and including the first EOS (all T without one).
std::vector<std::int32_t> ref_row(const std::vector<std::int64_t>& all, std::size_t begin,
                                  std::size_t T) {
  std::vector<std::int32_t> row;
  for (std::size_t t = 0; t < T; ++t) {
    row.push_back(static_cast<std::int32_t>(all[begin + t]));
    if (row.back() == kEos) break;
  }
  return row;
}

std::size_t common_prefix(const std::vector<std::int32_t>& a, const std::vector<std::int32_t>& b) {
  std::size_t p = 0;
  while (p < a.size() && p < b.size() && a[p] == b[p]) ++p;
  return p;
}

std::string str(const std::vector<std::int32_t>& v) {
  std::string s;
  for (auto x : v) {
    s += s.empty() ? "[" : " ";
    s += std::to_string(x);
  }
  return s.empty() ? "[]" : s + "]";
}

// Compares attention rows t < rows of heed's (length, src_len) with the reference's
// (T, m) slice at (b[, i]); returns the largest difference.
double expect_attention_rows(const Tensor& heed_att, const Tensor& ref_att, std::int64_t rows,
                             std::int64_t src_len, const std::string& what) {
  EXPECT_TRUE(heed_att.defined()) << what;
  if (!heed_att.defined()) return 0.0;
  EXPECT_EQ(heed_att.dim(1), src_len) << what;
  if (heed_att.dim(1) != src_len) return 0.0;
  double worst = 0.0;
  for (std::int64_t t = 0; t < rows; ++t) {
    for (std::int64_t j = 0; j < ref_att.dim(1); ++j) {
      const double r = ref_att.at({t, j});
      if (j >= src_len) {  // padding: the reference gives it no weight
        EXPECT_EQ(r, 0.0) << what << " padding column " << j << " at step " << t;
        continue;
      }
      EXPECT_NEAR(heed_att.at({t, j}), r, kTol) << what << " step " << t << " position " << j;
      worst = std::max(worst, std::abs(heed_att.at({t, j}) - r));
    }
  }
  return worst;
}

// ---- margins

// margins[b][t]: top-1 minus top-2 logit of row b at step t, feeding the reference's tokens.
std::vector<std::vector<double>> greedy_margins(const Seq2Seq& model, const TokenBatch& src,
                                                const std::vector<std::int64_t>& ref_tokens,
                                                std::int64_t T) {
  NoGradGuard no_grad;
  const std::int64_t B = src.batch;
  Encoded enc = model.encode(src);
  DecoderState state = model.initial_state(enc);
  std::vector<std::int32_t> y(static_cast<std::size_t>(B), kBos);
  std::vector<std::vector<double>> margins(static_cast<std::size_t>(B));
  for (std::int64_t t = 0; t < T; ++t) {
    const Tensor logits = model.step(y, state, enc).logits.value().contiguous();
    const std::int64_t V = logits.dim(1);
    for (std::int64_t b = 0; b < B; ++b) {
      double top1 = kNegInf, top2 = kNegInf;
      for (std::int64_t v = 0; v < V; ++v) {
        const double x = logits.at({b, v});
        if (x > top1) {
          top2 = top1;
          top1 = x;
        } else if (x > top2) {
          top2 = x;
        }
      }
      margins[static_cast<std::size_t>(b)].push_back(top1 - top2);
      y[static_cast<std::size_t>(b)] =
          static_cast<std::int32_t>(ref_tokens[static_cast<std::size_t>(b * T + t)]);
    }
  }
  return margins;
}

struct BeamMargins {
  std::vector<std::int64_t> first_tie;  // per sentence: first near-tie step, or kNone
  std::vector<double> tie_margin;       // its gap
  std::vector<bool> rank_tie;           // per sentence: near-tie in the final n-best order
  std::int64_t steps = 0;
};

// The reference's beam_search, written plainly over heed's step logits, recording the gaps.
BeamMargins beam_margins(const Seq2Seq& model, const TokenBatch& src, const DecodeOptions& opt) {
  NoGradGuard no_grad;
  const std::int64_t B = src.batch, k = opt.beam, R = B * k;
  std::vector<std::int64_t> rows(static_cast<std::size_t>(R));
  for (std::int64_t r = 0; r < R; ++r) rows[static_cast<std::size_t>(r)] = r / k;
  const Encoded enc0 = model.encode(src);
  const Encoded enc = reorder_rows(enc0, rows);
  DecoderState state = reorder_rows(model.initial_state(enc0), rows);

  std::vector<double> score(static_cast<std::size_t>(R), kNegInf);
  for (std::int64_t b = 0; b < B; ++b) score[static_cast<std::size_t>(b * k)] = 0.0;
  std::vector<std::int32_t> y(static_cast<std::size_t>(R), kBos);
  std::vector<bool> finished(static_cast<std::size_t>(R), false);
  std::vector<std::int64_t> length(static_cast<std::size_t>(R), 0);
  BeamMargins out;
  out.first_tie.assign(static_cast<std::size_t>(B), kNone);
  out.tie_margin.assign(static_cast<std::size_t>(B), 0.0);
  out.rank_tie.assign(static_cast<std::size_t>(B), false);

  for (std::int64_t t = 0; t < opt.max_len; ++t) {
    const Tensor logits = model.step(y, state, enc).logits.value().contiguous();
    const std::int64_t V = logits.dim(1);
    std::vector<double> next_score(score.size());
    std::vector<std::int32_t> next_y(y.size());
    std::vector<bool> next_finished(finished.size());
    std::vector<std::int64_t> next_length(length.size()), parent(static_cast<std::size_t>(R));
    for (std::int64_t b = 0; b < B; ++b) {
      std::vector<std::pair<double, std::int64_t>> cand;  // (score, j * V + v)
      for (std::int64_t j = 0; j < k; ++j) {
        const auto r = static_cast<std::size_t>(b * k + j);
        double lse = kNegInf;
        for (std::int64_t v = 0; v < V; ++v) lse = std::max(lse, logits.at({b * k + j, v}));
        double sum = 0.0;
        for (std::int64_t v = 0; v < V; ++v) sum += std::exp(logits.at({b * k + j, v}) - lse);
        lse += std::log(sum);
        for (std::int64_t v = 0; v < V; ++v) {
          const double c = finished[r] ? (v == kPad ? score[r] : kNegInf)
                                       : score[r] + logits.at({b * k + j, v}) - lse;
          cand.emplace_back(c, j * V + v);
        }
      }
      std::stable_sort(cand.begin(), cand.end(),
                       [](const auto& x, const auto& z) { return x.first > z.first; });
      const double kth = cand[static_cast<std::size_t>(k - 1)].first;
      const double gap = kth - cand[static_cast<std::size_t>(k)].first;
      if (kth != kNegInf && gap <= kTieMargin &&
          out.first_tie[static_cast<std::size_t>(b)] == kNone) {
        out.first_tie[static_cast<std::size_t>(b)] = t;
        out.tie_margin[static_cast<std::size_t>(b)] = gap;
      }
      for (std::int64_t i = 0; i < k; ++i) {
        const auto r = static_cast<std::size_t>(b * k + i);
        const auto p =
            static_cast<std::size_t>(b * k + cand[static_cast<std::size_t>(i)].second / V);
        const auto tok = static_cast<std::int32_t>(cand[static_cast<std::size_t>(i)].second % V);
        parent[r] = static_cast<std::int64_t>(p);
        next_score[r] = cand[static_cast<std::size_t>(i)].first;
        next_y[r] = tok;
        next_length[r] = length[p] + (finished[p] ? 0 : 1);
        next_finished[r] = finished[p] || tok == kEos;
      }
    }
    score.swap(next_score);
    y.swap(next_y);
    finished.swap(next_finished);
    length.swap(next_length);
    state = reorder_rows(state, parent);
    out.steps = t + 1;
    if (std::all_of(finished.begin(), finished.end(), [](bool f) { return f; })) break;
  }
  for (std::int64_t b = 0; b < B; ++b) {
    std::vector<double> normed;
    for (std::int64_t j = 0; j < k; ++j) {
      const auto r = static_cast<std::size_t>(b * k + j);
      normed.push_back(score[r] / length_penalty(length[r], opt));
    }
    std::sort(normed.begin(), normed.end(), std::greater<>());
    for (std::int64_t i = 0; i < opt.n_best && i + 1 < k; ++i)
      if (normed[static_cast<std::size_t>(i + 1)] != kNegInf &&
          normed[static_cast<std::size_t>(i)] - normed[static_cast<std::size_t>(i + 1)] <=
              kTieMargin)
        out.rank_tie[static_cast<std::size_t>(b)] = true;
  }
  return out;
}

// ---- the comparisons

class DecodeGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(DecodeGolden, GreedyMatchesReference) {
  const ModelCase c = load_case(GetParam());
  expect_call(c, "greedy", "max_len=" + std::to_string(kMaxLen) + ")");
  const Tensor& ref_tok = c.golden.get("out.greedy.tokens");
  const std::int64_t B = c.src.batch, T = ref_tok.dim(1);
  ASSERT_EQ(ref_tok.dim(0), B);
  const std::vector<std::int64_t> ref_all = golden_ints(ref_tok);
  const bool has_attn = c.golden.contains("out.greedy.attention");
  ASSERT_EQ(has_attn, c.model->has_attention()) << c.name;

  DecodeOptions opt;
  opt.max_len = kMaxLen;
  const DecodeResult got = greedy_decode(*c.model, c.src, opt);
  const auto margins = greedy_margins(*c.model, c.src, ref_all, T);

  int exact = 0, ties = 0;
  std::size_t compared = 0;
  double worst_att = 0.0;
  for (std::int64_t b = 0; b < B; ++b) {
    const std::string what = c.name + " greedy sentence " + std::to_string(b);
    const Hypothesis& h = got.best(static_cast<std::size_t>(b));
    const auto ref = ref_row(ref_all, static_cast<std::size_t>(b * T), static_cast<std::size_t>(T));
    std::size_t must = ref.size();  // tokens that must agree: those before the first near-tie
    for (std::size_t t = 0; t < ref.size(); ++t)
      if (margins[static_cast<std::size_t>(b)][t] <= kTieMargin) {
        must = t;
        ++ties;
        std::printf("[decode golden] %s: near-tie at step %zu (margin %.3g)\n", what.c_str(), t,
                    margins[static_cast<std::size_t>(b)][t]);
        break;
      }
    const std::size_t p = common_prefix(h.tokens, ref);
    EXPECT_GE(p, must) << what << ": heed " << str(h.tokens) << ", reference " << str(ref);
    if (must == ref.size()) {
      EXPECT_EQ(h.tokens, ref) << what;
    }
    EXPECT_EQ(h.length, static_cast<std::int64_t>(h.tokens.size())) << what;
    compared += std::min(p, must);
    if (h.tokens == ref) ++exact;
    if (has_attn) {
      const std::int64_t rows = std::min<std::int64_t>(
          {static_cast<std::int64_t>(p) + 1, h.length, static_cast<std::int64_t>(ref.size())});
      worst_att = std::max(worst_att,
                           expect_attention_rows(
                               h.attention, c.golden.get("out.greedy.attention").select(0, b), rows,
                               c.src.lengths[static_cast<std::size_t>(b)], what + " attention"));
    } else {
      EXPECT_FALSE(h.attention.defined()) << what;
    }
  }
  if (ties == 0) {
    EXPECT_EQ(got.steps, T) << c.name << ": greedy steps";
  }
  EXPECT_GT(compared, 0u) << c.name << ": nothing compared";
  std::printf(
      "[decode golden] %-26s greedy: %d/%lld sentences identical, %d near-ties, %zu tokens "
      "compared, max |attention - ref| %.3g\n",
      c.name.c_str(), exact, static_cast<long long>(B), ties, compared, worst_att);
}

void check_beam(const std::string& name, const std::string& tag, double alpha, LengthNorm norm) {
  const ModelCase c = load_case(name);
  expect_call(c, tag, "beam=3, n_best=2, max_len=" + std::to_string(kMaxLen));
  expect_call(c, tag, "alpha=" + std::string(alpha == 0 ? "0.0" : "0.6"));
  const std::string pre = "out." + tag + ".";
  const Tensor& ref_tok = c.golden.get(pre + "tokens");
  const std::int64_t B = c.src.batch, N = 2, T = ref_tok.dim(2);
  ASSERT_EQ(ref_tok.shape(), Shape({B, N, T}));
  const std::vector<std::int64_t> ref_all = golden_ints(ref_tok);
  const std::vector<std::int64_t> ref_len = golden_ints(c.golden.get(pre + "lengths"));
  const Tensor& ref_scores = c.golden.get(pre + "scores");
  const Tensor& ref_raw = c.golden.get(pre + "raw_scores");
  const bool has_attn = c.golden.contains(pre + "attention");
  ASSERT_EQ(has_attn, c.model->has_attention()) << c.name;

  DecodeOptions opt;
  opt.beam = 3;
  opt.n_best = N;
  opt.max_len = kMaxLen;
  opt.alpha = alpha;
  opt.norm = norm;
  const DecodeResult got = beam_search(*c.model, c.src, opt);
  const BeamMargins margins = beam_margins(*c.model, c.src, opt);
  ASSERT_EQ(got.nbest.size(), static_cast<std::size_t>(B));

  int exact = 0, tie_sentences = 0;
  std::size_t compared = 0;
  double worst_att = 0.0, worst_raw = 0.0, worst_score = 0.0;
  for (std::int64_t b = 0; b < B; ++b) {
    const auto& hyps = got.nbest[static_cast<std::size_t>(b)];
    ASSERT_EQ(hyps.size(), static_cast<std::size_t>(N)) << c.name;
    const std::int64_t tie = margins.first_tie[static_cast<std::size_t>(b)];
    const bool rank_tie = margins.rank_tie[static_cast<std::size_t>(b)];
    if (tie != kNone || rank_tie) {
      ++tie_sentences;
      std::printf("[decode golden] %s %s sentence %lld: near-tie at step %lld (margin %.3g)%s\n",
                  c.name.c_str(), tag.c_str(), static_cast<long long>(b),
                  static_cast<long long>(tie == kNone ? -1 : tie),
                  margins.tie_margin[static_cast<std::size_t>(b)],
                  rank_tie ? ", and in the final ranking" : "");
    }
    for (std::int64_t i = 0; i < N; ++i) {
      const std::string what = c.name + " " + tag + " sentence " + std::to_string(b) +
                               " hypothesis " + std::to_string(i);
      const std::size_t flat = static_cast<std::size_t>(b * N + i);
      const auto ref =
          ref_row(ref_all, flat * static_cast<std::size_t>(T), static_cast<std::size_t>(T));
      EXPECT_EQ(static_cast<std::int64_t>(ref.size()), ref_len[flat])
          << what << ": reference length";
      // Its heed counterpart: the same rank, or after a near-tie in the ranking the one with
      // the same tokens (if any).
      const Hypothesis* h = &hyps[static_cast<std::size_t>(i)];
      std::size_t must =
          tie == kNone ? ref.size() : std::min(ref.size(), static_cast<std::size_t>(tie));
      if (rank_tie) {
        auto same = std::find_if(hyps.begin(), hyps.end(),
                                 [&](const Hypothesis& x) { return x.tokens == ref; });
        if (same != hyps.end())
          h = &*same;
        else
          must = 0;
      }
      const std::size_t p = common_prefix(h->tokens, ref);
      EXPECT_GE(p, must) << what << ": heed " << str(h->tokens) << ", reference " << str(ref);
      if (must == ref.size()) {
        EXPECT_EQ(h->tokens, ref) << what;
      }
      EXPECT_EQ(h->length, static_cast<std::int64_t>(h->tokens.size())) << what;
      compared += std::min(p, must);
      if (h->tokens == ref) {
        ++exact;
        const double raw = ref_raw.at({b, i}), score = ref_scores.at({b, i});
        EXPECT_EQ(h->length, ref_len[flat]) << what;
        EXPECT_NEAR(h->raw_score, raw, kTol * (1 + std::abs(raw))) << what << ": raw score";
        const double lp = length_penalty(ref_len[flat], opt);
        EXPECT_NEAR(h->score, raw / lp, kTol * (1 + std::abs(score))) << what << ": score";
        EXPECT_NEAR(h->score, score, (alpha == 0 ? kTol : kLpFloat32Tol) * (1 + std::abs(score)))
            << what << ": score against the reference's";
        worst_raw = std::max(worst_raw, std::abs(h->raw_score - raw));
        worst_score = std::max(worst_score, std::abs(h->score - score));
      }
      if (has_attn) {
        const std::int64_t rows = std::min<std::int64_t>(
            {static_cast<std::int64_t>(p) + 1, h->length, static_cast<std::int64_t>(ref.size())});
        worst_att = std::max(
            worst_att, expect_attention_rows(
                           h->attention, c.golden.get(pre + "attention").select(0, b).select(0, i),
                           rows, c.src.lengths[static_cast<std::size_t>(b)], what + " attention"));
      } else {
        EXPECT_FALSE(h->attention.defined()) << what;
      }
    }
  }
  if (tie_sentences == 0) {
    EXPECT_EQ(got.steps, T) << c.name << " " << tag << ": steps";
    EXPECT_EQ(margins.steps, T) << c.name << " " << tag << ": steps of the margin re-run";
  }
  EXPECT_GT(compared, 0u) << c.name << ": nothing compared";
  std::printf(
      "[decode golden] %-26s %-9s: %d/%lld hypotheses identical, %d sentences with "
      "near-ties, %zu tokens compared, max |raw - ref| %.3g, |score - ref| %.3g, "
      "|attention - ref| %.3g\n",
      c.name.c_str(), tag.c_str(), exact, static_cast<long long>(B * N), tie_sentences, compared,
      worst_raw, worst_score, worst_att);
}

TEST_P(DecodeGolden, BeamSearchMatchesReference) {
  check_beam(GetParam(), "beam", 0.0, LengthNorm::length);
}

TEST_P(DecodeGolden, BeamSearchGnmtMatchesReference) {
  check_beam(GetParam(), "beam_gnmt", 0.6, LengthNorm::gnmt);
}

INSTANTIATE_TEST_SUITE_P(Models, DecodeGolden, ::testing::ValuesIn(golden_names("models_")),
                         [](const auto& info) { return info.param; });

TEST(DecodeGoldenFiles, EveryModelGoldenIsCovered) {
  // The nine cases of tools/make_model_goldens.py at least; more files join automatically.
  EXPECT_GE(golden_names("models_").size(), 9u);
}

}  // namespace
}  // namespace heed::testing
