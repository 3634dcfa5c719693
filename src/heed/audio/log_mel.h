#pragma once
// Log-mel filterbank features (docs/DATA.md, "Audio"): the frames of a signal as attention
// models read them, one row of n_mels log energies per hop. The definition is
// torchaudio's MelSpectrogram with its defaults (Hann window, power spectrum, centred
// frames with reflected edges, the mel filterbank of mel_filterbank.h) followed by
// log(max(mel, log_floor)); tests/audio/log_mel_test.cpp holds heed to torchaudio within
// 1e-4 (tests/golden/log_mel.safetensors). The FFT is Debian's kissfft, in float.
#include <memory>
#include <span>

#include "heed/audio/mel_filterbank.h"
#include "heed/audio/wav_file.h"
#include "heed/tensor/tensor.h"

namespace heed {

struct LogMelOptions {
  int sample_rate = 16000;
  int n_fft = 400;       // even; the spectrum has n_fft / 2 + 1 bins
  int win_length = 400;  // <= n_fft, the Hann window centred in the n_fft samples
  int hop_length = 160;
  int n_mels = 80;
  double f_min = 0.0;
  double f_max = 0.0;  // 0: sample_rate / 2
  MelScale mel_scale = MelScale::htk;
  MelNorm mel_norm = MelNorm::none;
  double log_floor = 1e-10;  // the smallest mel energy taken as is

  // 25 ms windows (n_fft = win_length) every 10 ms at this rate: at 16 kHz the defaults
  // above, at 8 kHz 200 and 80 samples.
  static LogMelOptions for_rate(int sample_rate);
};

// Throws heed::Error naming the option and its range for options log_mel cannot run with.
void validate(const LogMelOptions& options);

// 1 + n / hop_length frames for n samples (centred frames), 0 for no samples.
std::int64_t log_mel_frames(std::int64_t samples, const LogMelOptions& options);

// The features of one signal: (frames, n_mels) float32, frame t centred on sample
// t * hop_length. Keeps the window, the filterbank and the FFT's plan between calls: one
// LogMel per thread (a call writes its buffers).
class LogMel {
 public:
  explicit LogMel(const LogMelOptions& options);
  ~LogMel();
  LogMel(LogMel&&) noexcept;
  LogMel& operator=(LogMel&&) noexcept;

  // samples at options().sample_rate.
  Tensor operator()(std::span<const float> samples);
  // Throws heed::Error naming both rates unless the audio is at options().sample_rate.
  Tensor operator()(const Audio& audio);
  const LogMelOptions& options() const;

 private:
  struct Plan;
  std::unique_ptr<Plan> plan_;
};

// LogMel(options)(samples), for a single signal.
Tensor log_mel(std::span<const float> samples, const LogMelOptions& options);

}  // namespace heed
