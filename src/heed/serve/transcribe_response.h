#pragma once
// What the server answers `POST /transcribe` with (docs/cli/serve.md#post-transcribe): the
// request's audio transcribed by a speech model (model.kind las) as heed transcribe does, and
// what the live page draws of it:
//   {"text": "four seven", "score": -0.12, "symbols": ["four", "seven", "</s>"],
//    "attention": [[weights over the annotations], ...],      one row per symbol
//    "annotations": 36, "frames_per_annotation": 12,           pyramid x data.audio.stack
//    "spectrogram": {"frames": 423, "mels": 40, "seconds_per_frame": 0.01,
//                    "frames_per_column": 1, "columns": 423, "high": 3.2, "range": 16,
//                    "levels": [[mels values 0..255, bin 0 first], ...]},   one per column
//    "seconds": 4.23, "sample_rate": 8000, "beam": 1, "model": "DIR", "milliseconds": 31.5}
// The spectrogram is the log-mel one the features are computed from (before normalisation
// and stacking), each value as a level from 0 (high - range or below) to 255 (high, the
// loudest), as `heed show` draws it in magma; frames are averaged frames_per_column at a time
// when there are more than kMaxSpectrogramColumns.
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "heed/serve/transcribe_request.h"
#include "heed/store/model_dir.h"
#include "heed/tensor/tensor.h"

namespace heed::serve {

inline constexpr std::int64_t kMaxSpectrogramColumns = 1000;

struct SpectrogramColumns {
  std::int64_t frames = 0, mels = 0, frames_per_column = 1;
  double high = 0.0, range = 16.0;
  std::vector<std::vector<int>> levels;  // per column, mels levels in [0, 255]
};

// log_mel (frames, mels) float32 as columns of at most max_columns: frames_per_column =
// ceil(frames / max_columns), each column the mean of its frames (the last of what is left);
// high is the largest value of log_mel, level = round(255 (v - high + range) / range) in
// [0, 255].
SpectrogramColumns spectrogram_columns(const Tensor& log_mel, std::int64_t max_columns,
                                       double range = 16.0);

// Transcribes the request with the speech model (decoding holds the model: one request
// decodes at a time) and writes the answer; start: when the request arrived.
std::string transcribe_response(const LoadedModel& speech, const TranscribeRequest& request,
                                const std::string& model, std::mutex& decoding,
                                std::chrono::steady_clock::time_point start);

}  // namespace heed::serve
