// Speech features in real-time factor: seconds of audio processed per second of compute
// (the counter "RTF"; one thread: the extraction has no threads of its own). On the Free
// Spoken Digit Dataset when HEED_FSDD names its folder (docs/PERFORMANCE.md, "Speech
// features"), else on 60 s of synthetic 8 kHz audio. Each benchmark covers every recording:
//   BM_LogMel8k           log-mel of the 8 kHz recordings (25 ms windows, 10 ms hop, 80 mels)
//   BM_LogMel16k          log-mel of the recordings resampled to 16 kHz beforehand
//   BM_ResampleLogMel16k  resampling to 16 kHz (libsoxr), then log-mel at 16 kHz
//   BM_ReadWav            reading the WAV files (libsndfile, from the page cache)
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "heed/audio/fsdd.h"
#include "heed/audio/log_mel.h"
#include "heed/audio/resample.h"
#include "heed/audio/wav_file.h"
#include "heed/base/random.h"

namespace {

struct Corpus {
  std::vector<std::string> paths;  // empty for the synthetic signal
  std::vector<heed::Audio> audio;
  double seconds = 0;
};

const Corpus& corpus() {
  static const Corpus c = [] {
    Corpus c;
    const char* dir = std::getenv("HEED_FSDD");
    if (dir && *dir) {
      for (const auto& r : heed::list_fsdd_recordings(dir)) {
        c.paths.push_back(r.path);
        c.audio.push_back(heed::read_wav(r.path));
      }
    } else {  // 60 one-second "recordings" of a chirp in noise
      heed::Rng rng(1);
      for (int k = 0; k < 60; ++k) {
        heed::Audio a{std::vector<float>(8000), 8000};
        for (std::size_t i = 0; i < a.samples.size(); ++i)
          a.samples[i] = static_cast<float>(0.3 * std::sin(1e-4 * i * i) + 0.01 * rng.normal());
        c.audio.push_back(std::move(a));
      }
    }
    for (const auto& a : c.audio) c.seconds += a.seconds();
    return c;
  }();
  return c;
}

void set_rtf(benchmark::State& state, double seconds) {
  state.counters["RTF"] =
      benchmark::Counter(seconds, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(std::getenv("HEED_FSDD") ? "FSDD" : "synthetic");
}

void BM_LogMel8k(benchmark::State& state) {
  const Corpus& c = corpus();
  heed::LogMel extract(heed::LogMelOptions::for_rate(8000));
  for (auto _ : state)
    for (const auto& a : c.audio) benchmark::DoNotOptimize(extract(a));
  set_rtf(state, c.seconds);
}
BENCHMARK(BM_LogMel8k)->Unit(benchmark::kMillisecond);

void BM_LogMel16k(benchmark::State& state) {
  const Corpus& c = corpus();
  std::vector<heed::Audio> at16k;
  for (const auto& a : c.audio) at16k.push_back(heed::resample(a, 16000));
  heed::LogMel extract(heed::LogMelOptions::for_rate(16000));
  for (auto _ : state)
    for (const auto& a : at16k) benchmark::DoNotOptimize(extract(a));
  set_rtf(state, c.seconds);
}
BENCHMARK(BM_LogMel16k)->Unit(benchmark::kMillisecond);

void BM_ResampleLogMel16k(benchmark::State& state) {
  const Corpus& c = corpus();
  heed::LogMel extract(heed::LogMelOptions::for_rate(16000));
  for (auto _ : state)
    for (const auto& a : c.audio) benchmark::DoNotOptimize(extract(heed::resample(a, 16000)));
  set_rtf(state, c.seconds);
}
BENCHMARK(BM_ResampleLogMel16k)->Unit(benchmark::kMillisecond);

void BM_ReadWav(benchmark::State& state) {
  const Corpus& c = corpus();
  if (c.paths.empty()) {
    state.SkipWithError("HEED_FSDD is not set: no files to read");
    return;
  }
  for (auto _ : state)
    for (const auto& p : c.paths) benchmark::DoNotOptimize(heed::read_wav(p));
  set_rtf(state, c.seconds);
}
BENCHMARK(BM_ReadWav)->Unit(benchmark::kMillisecond);

}  // namespace
