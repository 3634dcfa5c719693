#include "heed/translate/speech_decoding.h"

#include <algorithm>
#include <numeric>

#include "heed/autograd/tape.h"
#include "heed/decode/beam_search.h"
#include "heed/decode/ctc_rescoring.h"
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

SpeechModels load_speech_models(const std::vector<ModelSpec>& specs) {
  HEED_CHECK(!specs.empty(), "no speech model given");
  SpeechModels out;
  for (const ModelSpec& s : specs) out.members.push_back(load_speech_model_dir(s.dir, s.weights));
  const LoadedModel& a = out.first();
  const SpeechFeatureOptions fa = speech_feature_options(a.config);
  for (std::size_t i = 1; i < out.members.size(); ++i) {
    const LoadedModel& b = out.members[i];
    const std::string& name_a = specs.front().dir;
    const std::string& name_b = specs[i].dir;
    const SpeechFeatureOptions fb = speech_feature_options(b.config);
    HEED_CHECK(fa.sample_rate == fb.sample_rate && fa.mels == fb.mels &&
                   fa.normalize == fb.normalize && fa.stack == fb.stack,
               "cannot ensemble ", name_a, " and ", name_b, ": their features differ (data.audio: ",
               fa.sample_rate, " Hz, ", fa.mels, " mel bins, stack ", fa.stack,
               fa.normalize ? ", normalised" : "", " vs ", fb.sample_rate, " Hz, ", fb.mels,
               " mel bins, stack ", fb.stack, fb.normalize ? ", normalised" : "", ")");
    HEED_CHECK(a.config.model.listener.reduction() == b.config.model.listener.reduction(),
               "cannot ensemble ", name_a, " and ", name_b,
               ": their listeners reduce time differently (", a.config.model.listener.reduction(),
               " vs ", b.config.model.listener.reduction(),
               " frames per annotation: model.pyramid x 2^model.frontend_layers)");
    check_same_target(a, name_a, b, name_b);
  }
  out.decoder = decoder_of(out.members);
  return out;
}

std::vector<std::vector<Transcript>> transcribe(const Seq2Seq& model, const Tokenizer& tokenizer,
                                                const Vocabulary& vocab,
                                                const std::vector<Tensor>& features,
                                                const DecodeOptions& options, std::size_t batch,
                                                double ctc_weight) {
  HEED_CHECK(batch >= 1, "transcribe: batches of at least one utterance");
  HEED_CHECK(ctc_weight == 0 || options.beam > 1, "CTC rescoring re-ranks beam search's "
             "hypotheses: use a beam of 2 or more");
  DecodeOptions search = options;
  if (ctc_weight > 0) search.n_best = options.beam;  // every hypothesis, to re-rank
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
      const TokenBatch src = speech_batch(utterances, model.config().listener.reduction(), dtype);
      DecodeResult r = options.beam > 1 ? beam_search(model, src, search)
                                        : greedy_decode(model, src, search);
      if (ctc_weight > 0) rescore_with_ctc(model, src, ctc_weight, r);
      for (std::size_t i = start; i < end; ++i) {
        auto& nbest = r.nbest[i - start];
        for (std::size_t k = 0; k < nbest.size() && k < static_cast<std::size_t>(options.n_best); ++k)
          out[order[i]].push_back(transcript_of(nbest[k], tokenizer, vocab));
      }
    }
    arena.reset();
  }
  return out;
}

}  // namespace heed
