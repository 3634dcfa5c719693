#include "heed/decode/greedy.h"

#include <algorithm>
#include <cstring>

#include "heed/autograd/tape.h"
#include "heed/decode/decode_common.h"
#include "heed/decode/frozen_model.h"
#include "heed/decode/sentence_blocks.h"
#include "heed/kernels/softmax.h"
#include "heed/tensor/arena.h"

namespace heed {
namespace {

template <typename T>
DecodeResult greedy_loop(const Seq2Seq& model, const TokenBatch& src, const DecodeOptions& opt,
                         const Encoded& enc, DecoderState& state, StepOutput out,
                         std::int64_t max_steps) {
  const std::int64_t B = src.batch, m = src.len;
  const auto Bs = static_cast<std::size_t>(B);
  const DType dtype = dtype_of<T>();
  std::vector<std::int32_t> y(Bs, kBos);
  std::vector<std::uint8_t> finished(Bs, 0);
  std::vector<std::int64_t> lengths(Bs, 0);
  std::vector<T> raw(Bs, T(0));
  // Everything per step goes into buffers sized once: tokens (steps, B), attention
  // (steps, B, m), the log-probabilities of one step.
  std::vector<std::int32_t> tokens;
  tokens.reserve(static_cast<std::size_t>(max_steps) * Bs);
  std::vector<T> attn;
  std::vector<std::int32_t> pick(Bs);
  std::vector<T> pick_logp(Bs);
  bool has_attn = false;
  std::vector<float> p_gen;  // copy attention: (steps, B)
  std::int64_t steps = 0;
  // Each sentence stops at its own limit (a * |x| + b), not the batch's longest.
  std::vector<std::int64_t> limit(Bs);
  for (std::size_t b = 0; b < Bs; ++b)
    limit[b] = std::min(max_steps, opt.max_len > 0 ? max_steps : sentence_max_steps(src.lengths[b], opt));

  for (std::int64_t t = 0; t < max_steps; ++t) {
    if (t > 0) out = model.step(y, state, enc);
    Tensor lg = detail::step_logits(out, B);
    HEED_CHECK(lg.dtype() == dtype, "decode: the step's logits changed dtype");
    const std::int64_t V = lg.dim(1);
    // Each row's argmax over the logits (not the log-probabilities: rounding could merge
    // them) and its log-probability.
    kernels::argmax_log_prob_rows(lg.data<T>(), B, V, pick.data(), pick_logp.data());
    if (out.shortlist)  // columns to target ids
      for (auto& p : pick) p = detail::column_id(out, p);
    Tensor a = detail::step_alpha(out, B, m, dtype);
    if (t == 0) {
      has_attn = a.defined();
      if (has_attn) attn.reserve(static_cast<std::size_t>(max_steps * B * m));
    }
    HEED_CHECK(a.defined() == has_attn, "decode: the model's attention appeared or vanished");
    if (has_attn) attn.insert(attn.end(), a.data<T>(), a.data<T>() + B * m);
    const Tensor pg = detail::step_p_gen(out, B);
    if (pg.defined()) p_gen.insert(p_gen.end(), pg.data<float>(), pg.data<float>() + B);

    bool all_done = true;
    for (std::size_t b = 0; b < Bs; ++b) {
      std::int32_t tok = kPad;
      if (!finished[b] && t >= limit[b]) finished[b] = 1;  // out of steps, without EOS
      if (!finished[b]) {
        tok = pick[b];
        raw[b] += pick_logp[b];
        ++lengths[b];
        if (tok == kEos) finished[b] = 1;
      }
      y[b] = tok;
      tokens.push_back(tok);
      all_done = all_done && finished[b];
    }
    ++steps;
    if (opt.stop_at_eos && all_done) break;
  }

  DecodeResult result;
  result.steps = steps;
  result.nbest.resize(Bs);
  ArenaScope heap(nullptr);  // results outlive any caller's arena
  for (std::size_t b = 0; b < Bs; ++b) {
    Hypothesis h;
    h.length = lengths[b];
    h.tokens.resize(static_cast<std::size_t>(h.length));
    for (std::int64_t t = 0; t < h.length; ++t)
      h.tokens[static_cast<std::size_t>(t)] = tokens[static_cast<std::size_t>(t) * Bs + b];
    if (!p_gen.empty())
      for (std::int64_t t = 0; t < h.length; ++t)
        h.p_gen.push_back(p_gen[static_cast<std::size_t>(t) * Bs + b]);
    h.raw_score = static_cast<double>(raw[b]);
    h.score = static_cast<double>(raw[b] / static_cast<T>(length_penalty(h.length, opt)));
    if (has_attn) {
      const std::int64_t len = src.lengths[b];
      h.attention = Tensor::empty({h.length, len}, dtype);
      T* dst = h.attention.data<T>();
      for (std::int64_t t = 0; t < h.length; ++t)
        std::memcpy(dst + t * len, attn.data() + (t * B + static_cast<std::int64_t>(b)) * m,
                    static_cast<std::size_t>(len) * sizeof(T));
    }
    result.nbest[b].push_back(std::move(h));
  }
  return result;
}

DecodeResult greedy_block(const Seq2Seq& model, const TokenBatch& src,
                          const DecodeOptions& options) {
  const std::int64_t max_steps = decode_max_steps(model, src, options);
  NoGradGuard no_grad;
  Encoded enc = model.encode(src);
  enc.window = options.window;
  DecoderState state = model.initial_state(enc);
  std::vector<std::int32_t> bos(static_cast<std::size_t>(src.batch), kBos);
  StepOutput first = model.step(bos, state, enc);
  HEED_CHECK(first.logits.defined(), "decode: the model's step returned no logits");
  DecodeResult result;
  dispatch(first.logits.dtype(), [&]<typename T>() {
    result = greedy_loop<T>(model, src, options, enc, state, std::move(first), max_steps);
  });
  return result;
}

}  // namespace

DecodeResult greedy_decode(const Seq2Seq& model, const TokenBatch& src,
                           const DecodeOptions& options) {
  detail::check_source(src);
  FrozenModel frozen(model);
  return detail::decode_in_row_blocks(
      src, options, [&](const TokenBatch& part, const DecodeOptions& opt) {
        // A block may run on another thread: the ops there see the packed weights only
        // under that thread's own hold (Var::packed); it shares the packs made above.
        const FrozenModel held(model);
        return greedy_block(model, part, opt);
      });
}

}  // namespace heed
