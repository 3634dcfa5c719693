#pragma once
// Speech a tiny las model learns in seconds, for the tests of the speech commands and pages:
// four symbols, each a pure tone of its own frequency (0.1 to 0.15 s, with a short fade in and
// out), 1 to 4 of them with random pauses between and around, over faint white noise, at 8 kHz;
// the transcript is the symbols as words ("do re mi"). tone_config trains a listener of two
// layers (pyramid 2) and a speller on it for 1500 steps (about 15 s on one thread). The pauses
// between tones last min_gap to 0.1 s (0.03 by default: three 10 ms frames, which a
// convolutional front end's pooling in time cannot always resolve between two equal tones).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "cli/cli_test_util.h"
#include "heed/audio/wav_file.h"
#include "heed/base/random.h"

namespace heed::testing {

inline constexpr int kToneRate = 8000;
inline constexpr const char* kToneSymbols[] = {"do", "re", "mi", "fa"};
inline constexpr double kToneHz[] = {350.0, 700.0, 1400.0, 2800.0};

// One utterance of 1 to 4 tones, and its transcript.
inline std::pair<std::vector<float>, std::string> tone_sequence(Rng& rng, double min_gap = 0.03) {
  std::vector<float> s;
  auto pause = [&](double lo, double hi) {
    s.resize(s.size() + static_cast<std::size_t>(kToneRate * (lo + (hi - lo) * rng.uniform())),
             0.0f);
  };
  std::string words;
  const auto n = static_cast<int>(1 + rng.below(4));
  pause(0.03, 0.12);
  for (int k = 0; k < n; ++k) {
    if (k > 0) pause(min_gap, 0.1);
    const auto sym = static_cast<std::size_t>(rng.below(4));
    const auto len = static_cast<std::size_t>(kToneRate * (0.1 + 0.05 * rng.uniform()));
    const double amp = 0.2 + 0.3 * rng.uniform(), fade = 0.01 * kToneRate;
    for (std::size_t i = 0; i < len; ++i) {
      const double env = std::min({1.0, static_cast<double>(i) / fade,
                                   static_cast<double>(len - i) / fade});
      s.push_back(static_cast<float>(amp * env * std::sin(2 * M_PI * kToneHz[sym] * i / kToneRate)));
    }
    words += (words.empty() ? "" : " ") + std::string(kToneSymbols[sym]);
  }
  pause(0.03, 0.12);
  for (float& x : s) x += static_cast<float>(0.005 * (2 * rng.uniform() - 1));
  return {s, words};
}

// n utterances as dir/<split>/<i>.wav and dir/<split>.tsv; the transcripts.
inline std::vector<std::string> write_tone_split(const ScratchDir& dir, const std::string& split,
                                                 int n, Rng& rng, double min_gap = 0.03) {
  std::filesystem::create_directories(dir.path(split));
  std::ofstream tsv(dir.path(split + ".tsv"));
  std::vector<std::string> transcripts;
  for (int i = 0; i < n; ++i) {
    const auto [samples, words] = tone_sequence(rng, min_gap);
    const std::string wav = split + "/" + std::to_string(i) + ".wav";
    write_wav(dir.path(wav), samples, kToneRate);
    tsv << wav << '\t' << words << '\n';
    transcripts.push_back(words);
  }
  return transcripts;
}

// The config that trains on dir's train.tsv and dev.tsv into dir/model; extra: more top-level
// YAML.
inline std::string tone_config(const ScratchDir& dir, const std::string& extra = "") {
  return dir.file("las.yaml", "data:\n  train_manifest: " + dir.path("train.tsv") +
                                  "\n  dev_manifest: " + dir.path("dev.tsv") + R"(
  audio:
    rate: 8000
    mels: 16
  target:
    tokenizer: whitespace
model:
  kind: las
  enc_layers: 2
  enc_hidden: 24
  pyramid: 2
  emb_dim: 8
  dec_hidden: 32
  attn_dim: 16
training:
  lr: 0.005
  schedule: warmup
  warmup_steps: 100
  decay: linear
  max_sentences: 16
  max_tokens: 100000
  max_epochs: 0
  max_steps: 1500
  validate_every: 500
  metric: loss
  clip_norm: 5
  threads: 1
  spec_augment:
    freq_masks: 1
    max_freq_width: 2
)" + extra + "output: " + dir.path("model") + "\n");
}

}  // namespace heed::testing
