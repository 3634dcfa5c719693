#pragma once
// Joint CTC/attention rescoring (Watanabe, Hori, Kim, Hershey and Hayashi 2017, "Hybrid
// CTC/attention architecture for end-to-end speech recognition"; docs/MODELS.md#joint-ctc-training):
// the hypotheses beam search found for an utterance, re-ranked by
//
//   score = (1 - w) log P_att(y | x) + w log P_ctc(y | x)
//
// with log P_att a hypothesis' raw log-probability under the speller (Hypothesis::raw_score)
// and P_ctc that of its symbols (without the end of sentence) under the model's CTC head
// (kernels/ctc.h). The two read the audio differently: attention can skip or repeat a
// stretch of it, CTC cannot, so a transcript that repeats a neighbour's symbol or drops one
// scores badly under CTC. A transcript CTC cannot emit at all (too many symbols for its
// annotations, or one of them the padding id, which is CTC's blank) scores -inf.
#include "heed/decode/hypothesis.h"
#include "heed/models/seq2seq.h"

namespace heed {

// Sets each hypothesis' score of r (rows: src's utterances) to the joint score above and
// sorts each row's hypotheses by it, best first. weight in [0, 1]; heed::Error when the model
// has no CTC head (model.ctc_weight 0) or r does not match src.
void rescore_with_ctc(const Seq2Seq& model, const TokenBatch& src, double weight,
                      DecodeResult& r);

}  // namespace heed
