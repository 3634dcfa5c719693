#pragma once
// FakeModel: a table-driven Seq2Seq for hand-checking the decoders. Its logits at each step
// are a function of the sentence index and the hypothesis' prefix (the tokens emitted so far,
// BOS excluded), so beam search over it is a search over a known tree. The state carries the
// sentence index, the prefix (as a number in base V + 1) and the step count, batch-major, so
// reorder_rows moves it like a real model's state.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <mutex>
#include <vector>

#include "heed/base/error.h"
#include "heed/models/seq2seq.h"

namespace heed::testing {

using Prefix = std::vector<std::int32_t>;

class FakeModel : public Seq2Seq {
 public:
  // Log-probabilities (or any logits) over V tokens.
  using LogitsFn = std::function<std::vector<double>(std::int64_t sentence, const Prefix&)>;
  // Attention over the m padded source positions (zeros are written past the sentence end).
  using AlphaFn = std::function<std::vector<double>(std::int64_t sentence, const Prefix&,
                                                    std::int64_t m)>;

  FakeModel(std::int64_t vocab, LogitsFn logits, AlphaFn alpha = {}, DType dtype = DType::f64)
      : Seq2Seq(make_config(vocab)), vocab_(vocab), logits_(std::move(logits)),
        alpha_(std::move(alpha)), dtype_(dtype) {}

  // What the decoders asked of it. Row blocks of one batch step concurrently (sentence_blocks),
  // so the records are kept under a lock.
  mutable int steps_run = 0;
  mutable std::vector<std::int64_t> step_rows;  // the rows of each step run, in order
  Tensor ctc;  // what ctc_logits returns, whatever the source (undefined: no CTC head)

  Tensor ctc_logits(const TokenBatch&) const override { return ctc; }

  Encoded encode(const TokenBatch& src) const override {
    Encoded e;
    Tensor h = Tensor::zeros({src.batch, src.len, 1}, dtype_);
    for (std::int64_t i = 0; i < src.batch * src.len; ++i)
      h.set({i / src.len, i % src.len, 0}, src.ids[static_cast<std::size_t>(i)]);
    e.annotations = Var(h);
    e.lengths = src.lengths;
    return e;
  }

  DecoderState initial_state(const Encoded& enc) const override {
    const std::int64_t B = enc.annotations.dim(0);
    Tensor id = Tensor::zeros({B, 1}, DType::f64);
    for (std::int64_t b = 0; b < B; ++b) id.set({b, 0}, static_cast<double>(b));
    DecoderState s;
    s.parts = {Var(id), Var(Tensor::zeros({B, 1}, DType::f64)), Var(Tensor::zeros({B, 1}, DType::f64))};
    return s;
  }

  StepOutput step(std::span<const std::int32_t> y_prev, DecoderState& state,
                  const Encoded& enc) const override {
    const std::int64_t R = static_cast<std::int64_t>(y_prev.size());
    {
      const std::lock_guard<std::mutex> lock(record_mutex_);
      ++steps_run;
      step_rows.push_back(R);
    }
    const std::int64_t m = enc.annotations.dim(1);
    Tensor code = state.parts[1].value().clone(), t = state.parts[2].value().clone();
    Tensor logits = Tensor::empty({R, vocab_}, dtype_);
    Tensor alpha = Tensor::zeros({R, m}, dtype_);
    for (std::int64_t r = 0; r < R; ++r) {
      const auto sentence = static_cast<std::int64_t>(state.parts[0].value().at({r, 0}));
      double c = code.at({r, 0});
      const auto steps = static_cast<std::int64_t>(t.at({r, 0}));
      if (steps > 0) c += (y_prev[static_cast<std::size_t>(r)] + 1) * std::pow(double(vocab_ + 1), double(steps - 1));
      code.set({r, 0}, c);
      t.set({r, 0}, static_cast<double>(steps + 1));
      const Prefix p = decode_prefix(c, steps);
      const std::vector<double> l = logits_(sentence, p);
      for (std::int64_t v = 0; v < vocab_; ++v) logits.set({r, v}, l[static_cast<std::size_t>(v)]);
      const std::int64_t len = enc.lengths[static_cast<std::size_t>(r)];
      std::vector<double> a(static_cast<std::size_t>(m), 0.0);
      if (alpha_) {
        a = alpha_(sentence, p, m);
      } else {
        a[static_cast<std::size_t>(static_cast<std::int64_t>(p.size()) % len)] = 1.0;
      }
      for (std::int64_t j = 0; j < len; ++j) alpha.set({r, j}, a[static_cast<std::size_t>(j)]);
    }
    state.parts[1] = Var(code);
    state.parts[2] = Var(t);
    return {Var(logits), Var(alpha), Var(), nullptr};
  }

  Var forward(const TokenBatch&, const TokenBatch&, Tensor*) const override {
    throw Error("FakeModel has no forward");
  }

  // The prefix number of a token list (what alpha functions can report to identify rows).
  double code_of(const Prefix& p) const {
    double c = 0;
    for (std::size_t i = 0; i < p.size(); ++i) c += (p[i] + 1) * std::pow(double(vocab_ + 1), double(i));
    return c;
  }

 private:
  static ModelConfig make_config(std::int64_t vocab) {
    ModelConfig c;
    c.kind = ModelKind::bahdanau;  // a label only: FakeModel is no kind
    c.src_vocab = vocab;
    c.tgt_vocab = vocab;
    return c;
  }
  Prefix decode_prefix(double c, std::int64_t n) const {
    Prefix p;
    auto x = static_cast<std::int64_t>(c);
    for (std::int64_t i = 0; i < n; ++i) {
      p.push_back(static_cast<std::int32_t>(x % (vocab_ + 1)) - 1);
      x /= vocab_ + 1;
    }
    return p;
  }

  std::int64_t vocab_;
  LogitsFn logits_;
  AlphaFn alpha_;
  DType dtype_;
  mutable std::mutex record_mutex_;
};

// A distribution over V tokens as logits: log p for the listed tokens, -30 (e^-30 ~ 1e-13,
// negligible mass) for the rest.
inline std::vector<double> dist(std::int64_t vocab, const std::map<std::int32_t, double>& p) {
  std::vector<double> l(static_cast<std::size_t>(vocab), -30.0);
  for (auto [tok, prob] : p) l[static_cast<std::size_t>(tok)] = std::log(prob);
  return l;
}

// One sentence per entry, its tokens (no PAD), padded to the longest.
inline TokenBatch make_batch(const std::vector<std::vector<std::int32_t>>& sentences) {
  TokenBatch b;
  b.batch = static_cast<std::int64_t>(sentences.size());
  for (const auto& s : sentences) b.len = std::max(b.len, static_cast<std::int64_t>(s.size()));
  for (const auto& s : sentences) {
    b.lengths.push_back(static_cast<std::int64_t>(s.size()));
    for (std::int64_t j = 0; j < b.len; ++j)
      b.ids.push_back(j < static_cast<std::int64_t>(s.size()) ? s[static_cast<std::size_t>(j)] : kPad);
  }
  return b;
}

}  // namespace heed::testing
