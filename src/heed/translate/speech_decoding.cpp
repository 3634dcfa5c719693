#include "heed/translate/speech_decoding.h"

#include <algorithm>
#include <numeric>

#include "heed/autograd/tape.h"
#include "heed/decode/beam_search.h"
#include "heed/decode/frozen_model.h"
#include "heed/decode/greedy.h"
#include "heed/models/listener.h"
#include "heed/tensor/arena.h"

namespace heed {
namespace {

Transcript transcript_of(const Hypothesis& h, const Tokenizer& tokenizer, const Vocabulary& vocab) {
  Transcript t{tokenizer.decode(vocab.decode(h.tokens)), h.tokens, h.score, {}, {}};
  t.symbols = vocab.decode(h.tokens, /*strip_specials=*/false, /*stop_at_eos=*/false);
  if (!h.attention.defined()) return t;
  const Tensor a = h.attention.to(DType::f32).contiguous();  // (length, annotations)
  const std::int64_t n = a.dim(1);
  const float* p = a.data<float>();
  for (std::int64_t k = 0; k < a.dim(0); ++k) t.attention.emplace_back(p + k * n, p + (k + 1) * n);
  return t;
}

}  // namespace

SpeechFeatureOptions speech_feature_options(const TrainConfig& config) {
  const DataConfig::Audio& a = config.data.audio;
  return {static_cast<int>(a.rate), static_cast<int>(a.mels), a.normalize,
          static_cast<int>(a.stack)};
}

std::vector<std::vector<Transcript>> transcribe(const Seq2Seq& model, const Tokenizer& tokenizer,
                                                const Vocabulary& vocab,
                                                const std::vector<Tensor>& features,
                                                const DecodeOptions& options, std::size_t batch) {
  HEED_CHECK(batch >= 1, "transcribe: batches of at least one utterance");
  std::vector<std::vector<Transcript>> out(features.size());
  std::vector<std::size_t> order(features.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return features[a].dim(0) < features[b].dim(0);
  });
  NoGradGuard no_grad;
  FrozenModel frozen(model);
  Arena arena;
  const DType dtype = model.parameters().empty() ? DType::f32 : model.parameters()[0].dtype();
  for (std::size_t start = 0; start < order.size(); start += batch) {
    const std::size_t end = std::min(order.size(), start + batch);
    {
      ArenaScope scope(&arena);
      std::vector<Tensor> utterances;
      for (std::size_t i = start; i < end; ++i) utterances.push_back(features[order[i]]);
      const TokenBatch src = speech_batch(utterances, model.config().listener.pyramid, dtype);
      const DecodeResult r = options.beam > 1 ? beam_search(model, src, options)
                                              : greedy_decode(model, src, options);
      for (std::size_t i = start; i < end; ++i)
        for (const Hypothesis& h : r.nbest[i - start])
          out[order[i]].push_back(transcript_of(h, tokenizer, vocab));
    }
    arena.reset();
  }
  return out;
}

}  // namespace heed
