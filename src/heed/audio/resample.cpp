#include "heed/audio/resample.h"

#include <soxr.h>

#include <cstdint>

#include "heed/base/error.h"

namespace heed {

std::vector<float> resample(std::span<const float> samples, int from_rate, int to_rate) {
  HEED_CHECK(from_rate >= 1 && to_rate >= 1, "resample: rates ", from_rate, " and ", to_rate,
             " Hz, expected positive rates");
  if (from_rate == to_rate) return {samples.begin(), samples.end()};
  const auto n = static_cast<std::uint64_t>(samples.size());
  const std::uint64_t length =
      (n * static_cast<std::uint64_t>(to_rate) + static_cast<std::uint64_t>(from_rate) / 2) /
      static_cast<std::uint64_t>(from_rate);
  std::vector<float> out(length, 0.0f);
  if (n == 0 || length == 0) return out;
  const soxr_io_spec_t io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I);
  const soxr_quality_spec_t quality = soxr_quality_spec(SOXR_HQ, 0);
  const soxr_runtime_spec_t runtime = soxr_runtime_spec(1);
  std::size_t done = 0;
  const soxr_error_t error =
      soxr_oneshot(from_rate, to_rate, 1, samples.data(), samples.size(), nullptr, out.data(),
                   out.size(), &done, &io, &quality, &runtime);
  HEED_CHECK(error == nullptr, "resample from ", from_rate, " to ", to_rate, " Hz: ", error);
  // soxr gives round(n * ratio) samples; any it held back stay zero, so the length is exact.
  return out;
}

Audio resample(const Audio& audio, int to_rate) {
  return Audio{resample(audio.samples, audio.sample_rate, to_rate), to_rate};
}

}  // namespace heed
