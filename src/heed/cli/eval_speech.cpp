#include "heed/cli/eval_speech.h"

#include <omp.h>

#include <cstdio>
#include <exception>
#include <nlohmann/json.hpp>
#include <vector>

#include "heed/base/atomic_file.h"
#include "heed/base/error.h"
#include "heed/base/utf8.h"
#include "heed/cli/attention_window_option.h"
#include "heed/data/speech_manifest.h"
#include "heed/metrics/bootstrap.h"
#include "heed/metrics/wer.h"
#include "heed/store/model_dir.h"
#include "heed/translate/speech_decoding.h"

namespace heed::cli {
namespace {

std::string format_ctc(double w) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", w);
  return buf;
}

}  // namespace

int eval_speech(const SpeechEval& o) {
  const SpeechModels models = load_speech_models(o.models);
  const LoadedModel& m = models.first();
  const std::vector<SpeechUtterance> utts = read_speech_manifest(o.manifest);
  // The features on every thread; the first bad file's error (it names the file).
  std::vector<Tensor> feats(utts.size());
  std::vector<std::exception_ptr> errors(utts.size());
  const SpeechFeatureOptions fo = speech_feature_options(m.config);
#pragma omp parallel
  {
    SpeechFeatures features(fo);
#pragma omp for schedule(dynamic, 16)
    for (std::size_t i = 0; i < utts.size(); ++i) {
      try {
        feats[i] = features(utts[i].audio_path);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  }
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  DecodeOptions dopt;
  dopt.beam = o.beam;
  dopt.max_len = o.max_len;
  dopt.window = parse_attention_window(o.window);
  const auto out = transcribe(*models.decoder, *m.tgt_tokenizer, m.tgt_vocab, feats, dopt,
                              static_cast<std::size_t>(o.batch), o.ctc_weight);

  std::vector<std::string> hyps, refs;
  for (std::size_t i = 0; i < utts.size(); ++i) {
    hyps.push_back(out[i].front().text);
    // The reference as the model spells it: its tokeniser's pieces joined back.
    refs.push_back(m.tgt_tokenizer->decode(m.tgt_tokenizer->encode(utts[i].transcript)));
  }
  const metrics::StatsTable words = metrics::wer_stats(hyps, refs);
  metrics::StatsTable strings("string error", 2, [](std::span<const double> s) {
    return s[1] > 0 ? 100.0 * s[0] / s[1] : 0.0;
  });
  std::int64_t wrong = 0;
  std::string jsonl;
  for (std::size_t i = 0; i < utts.size(); ++i) {
    const bool right = hyps[i] == refs[i];
    wrong += !right;
    const double row[2] = {right ? 0.0 : 1.0, 1.0};
    strings.add_row(row);
    if (o.output.empty()) continue;
    nlohmann::ordered_json j;
    j["line"] = utts[i].line;
    j["audio"] = utts[i].audio_path;
    j["reference"] = refs[i];
    j["output"] = hyps[i];
    j["correct"] = right;
    jsonl += j.dump() + "\n";
  }
  if (!o.output.empty()) write_file_atomically(o.output, jsonl);
  const auto samples = static_cast<std::size_t>(o.samples);
  const metrics::ConfidenceInterval s = metrics::bootstrap_ci(strings, samples, o.seed);
  const metrics::ConfidenceInterval w = metrics::bootstrap_ci(words, samples, o.seed);
  const std::vector<double> sums = words.column_sums();
  const std::string how = (o.beam > 1 ? "beam " + std::to_string(o.beam) : "greedy") +
                          (o.window.empty() ? "" : ", attention window " + o.window) +
                          (o.ctc_weight > 0 ? ", CTC weight " + format_ctc(o.ctc_weight) : "");
  std::printf("string error %.2f%% (%lld of %zu utterances; 95%% bootstrap interval %.2f-%.2f%%)\n",
              s.score, static_cast<long long>(wrong), utts.size(), s.lower, s.upper);
  std::printf("word error %.2f%% (%.0f edits in %.0f reference words; 95%% bootstrap interval "
              "%.2f-%.2f%%); %s, %s\n",
              w.score, sums[0], sums[1], w.lower, w.upper, how.c_str(), o.manifest.c_str());
  std::fflush(stdout);
  return 0;
}

}  // namespace heed::cli
