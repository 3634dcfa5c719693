#include "heed/audio/log_mel.h"

#include <kiss_fftr.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "heed/base/error.h"

namespace heed {
namespace {

// Index i of a signal of n samples extended by reflection at both ends (torch's "reflect"
// padding: x[-1] = x[1], x[n] = x[n - 2]), bouncing again for an extension longer than the
// signal.
std::int64_t reflect(std::int64_t i, std::int64_t n) {
  if (n == 1) return 0;
  const std::int64_t period = 2 * (n - 1);
  i %= period;
  if (i < 0) i += period;
  return i < n ? i : period - i;
}

}  // namespace

LogMelOptions LogMelOptions::for_rate(int sample_rate) {
  LogMelOptions o;
  o.sample_rate = sample_rate;
  o.win_length = o.n_fft = static_cast<int>(std::lround(0.025 * sample_rate));
  o.n_fft += o.n_fft % 2;
  o.hop_length = std::max(1, static_cast<int>(std::lround(0.010 * sample_rate)));
  return o;
}

void validate(const LogMelOptions& o) {
  HEED_CHECK(o.sample_rate >= 1, "log-mel: sample_rate ", o.sample_rate, ", expected >= 1");
  HEED_CHECK(o.n_fft >= 2 && o.n_fft % 2 == 0, "log-mel: n_fft ", o.n_fft,
             ", expected an even number >= 2");
  HEED_CHECK(o.win_length >= 1 && o.win_length <= o.n_fft, "log-mel: win_length ", o.win_length,
             ", expected 1 to n_fft (", o.n_fft, ")");
  HEED_CHECK(o.hop_length >= 1, "log-mel: hop_length ", o.hop_length, ", expected >= 1");
  HEED_CHECK(o.n_mels >= 1, "log-mel: n_mels ", o.n_mels, ", expected >= 1");
  const double f_max = o.f_max > 0 ? o.f_max : static_cast<double>(o.sample_rate / 2);
  HEED_CHECK(o.f_min >= 0 && o.f_min < f_max && f_max <= o.sample_rate / 2.0, "log-mel: f_min ",
             o.f_min, " and f_max ", f_max, " Hz, expected 0 <= f_min < f_max <= ",
             o.sample_rate / 2.0, " (half the sample rate)");
  HEED_CHECK(o.log_floor > 0, "log-mel: log_floor ", o.log_floor, ", expected > 0");
}

std::int64_t log_mel_frames(std::int64_t samples, const LogMelOptions& options) {
  return samples == 0 ? 0 : 1 + samples / options.hop_length;
}

struct LogMel::Plan {
  LogMelOptions options;
  kiss_fftr_cfg fft = nullptr;
  std::vector<float> window;  // n_fft samples: the Hann window centred, zeros around it
  std::vector<double> weights;  // (n_freqs, n_mels)
  std::vector<int> first, last;  // per mel filter, its nonzero bins [first, last)
  std::vector<float> frame;
  std::vector<kiss_fft_cpx> spectrum;
  std::vector<double> power;

  ~Plan() {
    if (fft) kiss_fftr_free(fft);
  }
};

LogMel::LogMel(const LogMelOptions& options) : plan_(std::make_unique<Plan>()) {
  validate(options);
  Plan& p = *plan_;
  p.options = options;
  const int n_fft = options.n_fft, n_freqs = n_fft / 2 + 1, n_mels = options.n_mels;
  p.fft = kiss_fftr_alloc(n_fft, 0, nullptr, nullptr);
  HEED_CHECK(p.fft != nullptr, "log-mel: cannot plan an FFT of ", n_fft, " samples");
  // torch.hann_window(win_length) (periodic), placed as torch.stft places a shorter window.
  p.window.assign(static_cast<std::size_t>(n_fft), 0.0f);
  const int left = (n_fft - options.win_length) / 2;
  for (int i = 0; i < options.win_length; ++i)
    p.window[left + i] = static_cast<float>(
        0.5 - 0.5 * std::cos(2.0 * std::numbers::pi * i / options.win_length));
  // f_max 0: half the rate, rounded down as torchaudio rounds it.
  const double f_max =
      options.f_max > 0 ? options.f_max : static_cast<double>(options.sample_rate / 2);
  p.weights = mel_filterbank(n_freqs, options.f_min, f_max, n_mels, options.sample_rate,
                             options.mel_scale, options.mel_norm);
  p.first.assign(n_mels, 0);
  p.last.assign(n_mels, 0);
  for (int m = 0; m < n_mels; ++m) {
    int lo = n_freqs, hi = 0;
    for (int k = 0; k < n_freqs; ++k)
      if (p.weights[static_cast<std::size_t>(k) * n_mels + m] != 0.0) {
        lo = std::min(lo, k);
        hi = k + 1;
      }
    p.first[m] = lo;
    p.last[m] = std::max(lo, hi);
  }
  p.frame.resize(static_cast<std::size_t>(n_fft));
  p.spectrum.resize(static_cast<std::size_t>(n_freqs));
  p.power.resize(static_cast<std::size_t>(n_freqs));
}

LogMel::~LogMel() = default;
LogMel::LogMel(LogMel&&) noexcept = default;
LogMel& LogMel::operator=(LogMel&&) noexcept = default;

const LogMelOptions& LogMel::options() const { return plan_->options; }

Tensor LogMel::operator()(std::span<const float> samples) {
  Plan& p = *plan_;
  const LogMelOptions& o = p.options;
  const auto n = static_cast<std::int64_t>(samples.size());
  const std::int64_t frames = log_mel_frames(n, o);
  const int n_fft = o.n_fft, n_freqs = n_fft / 2 + 1, n_mels = o.n_mels;
  Tensor out = Tensor::empty({frames, n_mels}, DType::f32);
  float* y = out.data<float>();
  for (std::int64_t t = 0; t < frames; ++t) {
    const std::int64_t start = t * o.hop_length - n_fft / 2;
    for (int i = 0; i < n_fft; ++i) {
      const std::int64_t at = start + i;
      const float x = at >= 0 && at < n ? samples[static_cast<std::size_t>(at)]
                                        : samples[static_cast<std::size_t>(reflect(at, n))];
      p.frame[i] = x * p.window[i];
    }
    kiss_fftr(p.fft, p.frame.data(), p.spectrum.data());
    for (int k = 0; k < n_freqs; ++k) {
      const double re = p.spectrum[k].r, im = p.spectrum[k].i;
      p.power[k] = re * re + im * im;
    }
    for (int m = 0; m < n_mels; ++m) {
      double e = 0;
      for (int k = p.first[m]; k < p.last[m]; ++k)
        e += p.power[k] * p.weights[static_cast<std::size_t>(k) * n_mels + m];
      y[t * n_mels + m] = static_cast<float>(std::log(std::max(e, o.log_floor)));
    }
  }
  return out;
}

Tensor LogMel::operator()(const Audio& audio) {
  HEED_CHECK(audio.sample_rate == plan_->options.sample_rate, "log-mel: audio at ",
             audio.sample_rate, " Hz, expected ", plan_->options.sample_rate,
             " Hz (resample it first)");
  return (*this)(std::span<const float>(audio.samples));
}

Tensor log_mel(std::span<const float> samples, const LogMelOptions& options) {
  LogMel extract(options);
  return extract(samples);
}

}  // namespace heed
