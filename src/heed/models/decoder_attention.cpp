#include "heed/models/decoder_attention.h"

namespace heed {

void set_attention_mode(AttentionConfig& a, const ModelConfig& config) {
  a.hard = config.attention_mode == AttentionMode::hard;
  a.hard_eval_expectation = config.hard_eval == HardEval::expectation;
}

Attention::Output attend(const Attention& attention, const Var& q, const Encoded& enc,
                         const RunMode& mode) {
  Attention::Output att = attention.forward(q, enc.annotations, enc.keys, enc.lengths,
                                            mode.training ? mode.rng : nullptr, mode.precision,
                                            mode.hard_expectation);
  if (mode.trace && att.log_prob.defined()) {
    mode.trace->log_prob.push_back(att.log_prob);
    mode.trace->entropy.push_back(att.entropy);
  }
  return att;
}

}  // namespace heed
