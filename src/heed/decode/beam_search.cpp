#include "heed/decode/beam_search.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

#include "heed/autograd/tape.h"
#include "heed/decode/decode_common.h"
#include "heed/decode/frozen_model.h"
#include "heed/decode/sentence_blocks.h"
#include "heed/kernels/gemm.h"
#include "heed/kernels/softmax.h"
#include "heed/tensor/arena.h"

namespace heed {
namespace {

template <typename T>
struct Candidate {
  T score;
  std::int64_t flat;  // beam_row * V + token
};

// The k best candidates seen so far, best first; ties keep the earlier (lower) flat index
// because candidates arrive in increasing flat order and only a strictly better one moves
// ahead of an equal one.
template <typename T>
class TopK {
 public:
  void reset(std::size_t k, Candidate<T>* slots) {
    k_ = k;
    n_ = 0;
    c_ = slots;
  }
  std::size_t size() const { return n_; }
  // Worth offering: anything while not full, else strictly better than the worst kept.
  T threshold() const { return n_ < k_ ? -std::numeric_limits<T>::infinity() : c_[n_ - 1].score; }
  void offer(T score, std::int64_t flat) {
    if (n_ == k_ && !(score > c_[n_ - 1].score)) return;
    std::size_t p = n_ < k_ ? n_++ : n_ - 1;
    while (p > 0 && c_[p - 1].score < score) {
      c_[p] = c_[p - 1];
      --p;
    }
    c_[p] = {score, flat};
  }
  bool contains(std::int64_t flat) const {
    for (std::size_t i = 0; i < n_; ++i)
      if (c_[i].flat == flat) return true;
    return false;
  }
  void append(T score, std::int64_t flat) { c_[n_++] = {score, flat}; }

 private:
  std::size_t k_ = 0, n_ = 0;
  Candidate<T>* c_ = nullptr;
};

template <typename T>
DecodeResult beam_loop(const Seq2Seq& model, const TokenBatch& src, const DecodeOptions& opt,
                       const Encoded& enc, DecoderState& state, StepOutput out,
                       std::int64_t max_steps) {
  constexpr T kNegInf = -std::numeric_limits<T>::infinity();
  const std::int64_t B = src.batch, k = opt.beam, R = B * k, m = src.len;
  const auto Rs = static_cast<std::size_t>(R), ks = static_cast<std::size_t>(k);
  const DType dtype = dtype_of<T>();

  // Row b*k + j is hypothesis j of sentence b. Only hypothesis 0 is alive at the start, so
  // the first step expands one row per sentence.
  std::vector<T> scores(Rs, kNegInf);
  for (std::int64_t b = 0; b < B; ++b) scores[static_cast<std::size_t>(b * k)] = T(0);
  std::vector<std::int32_t> y(Rs, kBos);
  std::vector<std::uint8_t> finished(Rs, 0), next_finished(Rs);
  std::vector<std::int64_t> lengths(Rs, 0), next_lengths(Rs), parent(Rs);
  std::vector<Candidate<T>> slots(Rs);
  // History for back-tracking, (steps, R) each, and the attention (steps, R, m).
  std::vector<std::int32_t> toks, backs;
  toks.reserve(static_cast<std::size_t>(max_steps) * Rs);
  backs.reserve(static_cast<std::size_t>(max_steps) * Rs);
  std::vector<T> attn;
  std::vector<T> lse(Rs);
  bool has_attn = false;
  std::vector<float> p_gen;  // copy attention: (steps, R)
  std::int64_t steps = 0;
  // Each sentence stops at its own limit (a * |x| + b), not the batch's longest: from then
  // on its hypotheses are frozen like finished ones, so it ends as if decoded alone.
  std::vector<std::int64_t> limit(static_cast<std::size_t>(B));
  for (std::int64_t b = 0; b < B; ++b)
    limit[static_cast<std::size_t>(b)] =
        std::min(max_steps, opt.max_len > 0 ? max_steps
                                            : sentence_max_steps(src.lengths[static_cast<std::size_t>(b)], opt));
  for (std::int64_t t = 0; t < max_steps; ++t) {
    for (std::int64_t b = 0; b < B; ++b)
      if (t == limit[static_cast<std::size_t>(b)])
        for (std::int64_t j = 0; j < k; ++j) finished[static_cast<std::size_t>(b * k + j)] = 1;
    if (t > 0) out = model.step(y, state, enc);
    Tensor lg = detail::step_logits(out, R);
    HEED_CHECK(lg.dtype() == dtype, "decode: the step's logits changed dtype");
    const std::int64_t V = lg.dim(1);
    // log p = logit - lse, formed as the scan reads each logit: no (R, V) block written.
    kernels::log_sum_exp_rows(lg.data<T>(), R, V, lse.data());
    const T* logits = lg.data<T>();
    Tensor a = detail::step_alpha(out, R, m, dtype);
    if (t == 0) {
      has_attn = a.defined();
      if (has_attn) attn.reserve(static_cast<std::size_t>(max_steps * R * m));
    }
    HEED_CHECK(a.defined() == has_attn, "decode: the model's attention appeared or vanished");
    if (has_attn) attn.insert(attn.end(), a.data<T>(), a.data<T>() + R * m);
    const Tensor pg = detail::step_p_gen(out, R);
    if (pg.defined()) p_gen.insert(p_gen.end(), pg.data<float>(), pg.data<float>() + R);

    // Sentences are independent: split them over threads when the scan is large.
    toks.resize(toks.size() + Rs);
    backs.resize(backs.size() + Rs);
    std::int32_t* step_toks = toks.data() + t * R;
    std::int32_t* step_backs = backs.data() + t * R;
    const int threads = R * V >= (std::int64_t{1} << 18) ? kernels::num_threads() : 1;
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
    for (std::int64_t b = 0; b < B; ++b) {
      TopK<T> top;
      top.reset(ks, slots.data() + b * k);
      for (std::int64_t j = 0; j < k; ++j) {
        const auto r = static_cast<std::size_t>(b * k + j);
        const T s = scores[r];
        if (s == kNegInf) continue;  // all its candidates are -inf: only used to fill up
        if (finished[r]) {           // frozen: PAD at cost 0 is its one continuation
          top.offer(s, j * V + kPad);  // (PAD's column, with or without a shortlist)
          continue;
        }
        const T* row = logits + static_cast<std::int64_t>(r) * V;
        const T lse_r = lse[r];
        const std::int64_t base = j * V;
        // Most candidates lose against the current k-th best: one compare each.
        T thr = top.threshold();
        for (std::int64_t v = 0; v < V; ++v) {
          const T c = s + (row[v] - lse_r);
          if (c > thr) {  // -inf never enters here; see the fill below
            top.offer(c, base + v);
            thr = top.threshold();
          }
        }
      }
      // Fewer than k finite candidates (k > live continuations): fill with -inf ones in
      // flat order, like a top-k over the full (k*V) row.
      for (std::int64_t flat = 0; top.size() < ks; ++flat)
        if (!top.contains(flat)) top.append(kNegInf, flat);
      for (std::int64_t i = 0; i < k; ++i) {
        const Candidate<T>& c = slots[static_cast<std::size_t>(b * k + i)];
        const auto r = static_cast<std::size_t>(b * k + i);
        const std::int64_t back = c.flat / V;
        const auto tok = detail::column_id(out, c.flat % V);
        parent[r] = b * k + back;
        const auto p = static_cast<std::size_t>(parent[r]);
        scores[r] = c.score;
        next_lengths[r] = lengths[p] + (finished[p] ? 0 : 1);
        next_finished[r] = finished[p] || tok == kEos;
        y[r] = tok;
        step_toks[r] = tok;
        step_backs[r] = static_cast<std::int32_t>(back);
      }
    }
    lengths.swap(next_lengths);
    finished.swap(next_finished);
    ++steps;
    bool all_done = std::all_of(finished.begin(), finished.end(), [](auto f) { return f != 0; });
    if ((opt.stop_at_eos && all_done) || t + 1 == max_steps) break;
    // The state follows the back-pointers; nothing to copy when every row kept its parent.
    bool identity = true;
    for (std::size_t r = 0; r < Rs && identity; ++r) identity = parent[r] == static_cast<std::int64_t>(r);
    if (!identity) state = reorder_rows(state, parent);
  }

  DecodeResult result;
  result.steps = steps;
  result.nbest.resize(static_cast<std::size_t>(B));
  ArenaScope heap(nullptr);  // results outlive any caller's arena
  std::vector<T> normed(ks);
  std::vector<std::int64_t> order(ks);
  std::vector<std::int32_t> path(static_cast<std::size_t>(steps));
  std::vector<std::int64_t> path_parent(static_cast<std::size_t>(steps));
  for (std::int64_t b = 0; b < B; ++b) {
    for (std::size_t j = 0; j < ks; ++j) {
      const std::size_t r = static_cast<std::size_t>(b * k) + j;
      normed[j] = scores[r] / static_cast<T>(length_penalty(lengths[r], opt));
    }
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::int64_t i, std::int64_t j) { return normed[static_cast<std::size_t>(i)] > normed[static_cast<std::size_t>(j)]; });
    for (std::int64_t n = 0; n < opt.n_best; ++n) {
      const std::int64_t j0 = order[static_cast<std::size_t>(n)];
      const auto r0 = static_cast<std::size_t>(b * k + j0);
      // Walk the back-pointers; the attention that produced token t was computed by the
      // parent row of step t.
      std::int64_t cur = j0;
      for (std::int64_t t = steps - 1; t >= 0; --t) {
        const auto idx = static_cast<std::size_t>(t * R + b * k + cur);
        path[static_cast<std::size_t>(t)] = toks[idx];
        cur = backs[idx];
        path_parent[static_cast<std::size_t>(t)] = b * k + cur;
      }
      Hypothesis h;
      h.length = std::max<std::int64_t>(lengths[r0], 1);
      h.tokens.assign(path.begin(), path.begin() + h.length);
      h.raw_score = static_cast<double>(scores[r0]);
      h.score = static_cast<double>(normed[static_cast<std::size_t>(j0)]);
      if (!p_gen.empty())  // like the attention: computed by the parent row of step t
        for (std::int64_t t = 0; t < h.length; ++t)
          h.p_gen.push_back(p_gen[static_cast<std::size_t>(t * R + path_parent[static_cast<std::size_t>(t)])]);
      if (has_attn) {
        const std::int64_t len = src.lengths[static_cast<std::size_t>(b)];
        h.attention = Tensor::empty({h.length, len}, dtype);
        T* dst = h.attention.data<T>();
        for (std::int64_t t = 0; t < h.length; ++t)
          std::memcpy(dst + t * len, attn.data() + (t * R + path_parent[static_cast<std::size_t>(t)]) * m,
                      static_cast<std::size_t>(len) * sizeof(T));
      }
      result.nbest[static_cast<std::size_t>(b)].push_back(std::move(h));
    }
  }
  return result;
}

DecodeResult beam_block(const Seq2Seq& model, const TokenBatch& src,
                        const DecodeOptions& options) {
  const std::int64_t max_steps = decode_max_steps(model, src, options);
  NoGradGuard no_grad;
  const std::int64_t B = src.batch, k = options.beam;
  std::vector<std::int64_t> rows(static_cast<std::size_t>(B * k));
  for (std::int64_t r = 0; r < B * k; ++r) rows[static_cast<std::size_t>(r)] = r / k;
  Encoded enc = model.encode(src);
  enc.window = options.window;
  DecoderState state = model.initial_state(enc);
  // A sentence's k hypotheses begin alike: the first step runs once a sentence, then its
  // state and output become k copies (the first step's products at 1/k of the rows).
  std::vector<std::int32_t> bos(static_cast<std::size_t>(B), kBos);
  StepOutput first = model.step(bos, state, enc);
  HEED_CHECK(first.logits.defined(), "decode: the model's step returned no logits");
  if (k > 1) {
    state = reorder_rows(state, rows);
    enc = reorder_rows(enc, rows);
    first = reorder_rows(first, rows);
  }
  DecodeResult result;
  dispatch(first.logits.dtype(), [&]<typename T>() {
    result = beam_loop<T>(model, src, options, enc, state, std::move(first), max_steps);
  });
  return result;
}

}  // namespace

DecodeResult beam_search(const Seq2Seq& model, const TokenBatch& src,
                         const DecodeOptions& options) {
  detail::check_source(src);
  HEED_CHECK(options.beam >= 1, "beam_search: beam must be >= 1, got ", options.beam);
  HEED_CHECK(options.n_best >= 1 && options.n_best <= options.beam,
             "beam_search: n_best must be in [1, beam = ", options.beam, "], got ", options.n_best);
  FrozenModel frozen(model);
  return detail::decode_in_row_blocks(
      src, options, [&](const TokenBatch& part, const DecodeOptions& opt) {
        // A block may run on another thread: the ops there see the packed weights only
        // under that thread's own hold (Var::packed); it shares the packs made above.
        const FrozenModel held(model);
        return beam_block(model, part, opt);
      });
}

}  // namespace heed
