#include "heed/models/decoder_attention.h"

#include <algorithm>

#include "heed/autograd/elementwise_op.h"

namespace heed {

void set_attention_mode(AttentionConfig& a, const ModelConfig& config) {
  a.hard = config.attention_mode == AttentionMode::hard;
  a.hard_eval_expectation = config.hard_eval == HardEval::expectation;
  a.location_filters = config.location_filters;
  a.location_width = config.location_width;
  a.coverage = config.coverage;
}

Attention::Output attend(const Attention& attention, const Var& q, const Encoded& enc,
                         const RunMode& mode, const AttentionStepExtras& extras) {
  Attention::Output att = attention.forward(q, enc.annotations, enc.keys, enc.lengths,
                                            mode.training ? mode.rng : nullptr, mode.precision,
                                            mode.hard_expectation, extras);
  if (mode.trace && att.log_prob.defined()) {
    mode.trace->log_prob.push_back(att.log_prob);
    mode.trace->entropy.push_back(att.entropy);
  }
  return att;
}

std::size_t attention_state_parts(const Attention& attention) {
  return attention.config().coverage ? 2 : 1;
}

void append_attention_state(std::vector<Var>& parts, const Attention& attention,
                            const Encoded& enc) {
  const Var& H = enc.annotations;
  const Shape shape{H.dim(0), H.dim(1)};
  parts.push_back(Var(Tensor::zeros(shape, H.dtype())));  // alpha_0
  if (attention.config().coverage) parts.push_back(Var(Tensor::zeros(shape, H.dtype())));  // c_1
}

void attention_window(const Tensor& alpha_prev, const AttentionWindow& window,
                      std::vector<std::int64_t>& from, std::vector<std::int64_t>& to) {
  const Tensor a = alpha_prev.contiguous();
  const std::int64_t B = a.dim(0), m = a.dim(1);
  from.assign(static_cast<std::size_t>(B), 0);
  to.assign(static_cast<std::size_t>(B), m);
  dispatch(a.dtype(), [&]<typename T>() {
    for (std::int64_t b = 0; b < B; ++b) {
      const T* row = a.data<T>() + b * m;
      T total = T(0);
      for (std::int64_t j = 0; j < m; ++j) total += row[j];
      if (!(total > T(0))) continue;  // the first step: no previous weights
      // The median: the first position where the cumulative weight reaches half the total.
      T cum = T(0);
      std::int64_t p = m - 1;
      for (std::int64_t j = 0; j < m; ++j) {
        cum += row[j];
        if (cum >= total / T(2)) {
          p = j;
          break;
        }
      }
      from[static_cast<std::size_t>(b)] = std::max<std::int64_t>(0, p - window.before);
      to[static_cast<std::size_t>(b)] = std::min(m, p + window.after + 1);
    }
  });
}

Attention::Output attend(const Attention& attention, const Var& q, DecoderState& state,
                         std::size_t at, const Encoded& enc, const RunMode& mode) {
  const bool coverage = attention.config().coverage;
  HEED_CHECK(state.parts.size() >= at + attention_state_parts(attention),
             "attention: the decoder state has ", state.parts.size(), " parts, the attention's "
             "start at ", at);
  const Var& alpha_prev = state.parts[at];
  AttentionStepExtras extras;
  extras.key_term =
      attention.feature_term(alpha_prev, coverage ? state.parts[at + 1] : Var(), mode.precision);
  std::vector<std::int64_t> from, to;
  if (enc.window.on()) {  // set by decoding only (greedy, beam search)
    attention_window(alpha_prev.value(), enc.window, from, to);
    extras.from = from;
    extras.to = to;
  }
  Attention::Output att = attend(attention, q, enc, mode, extras);
  if (coverage) state.parts[at + 1] = add(state.parts[at + 1], att.alpha);
  state.parts[at] = att.alpha;
  return att;
}

}  // namespace heed
