#pragma once
// The body of `POST /transcribe` (docs/cli/serve.md#post-transcribe), for a speech model
// (model.kind las): the WAV file itself, read and checked before any work.
//
//   POST /transcribe?beam=4          beam optional (default 1, greedy; at most limits.max_beam)
//   Content-Type: audio/wav          (any other type is read alike, curl's default
//                                     application/x-www-form-urlencoded too; JSON, text and
//                                     multipart are refused)
//   <the bytes of a WAV file>        any rate (resampled to the model's), any channels (mixed)
//
// The file is read as heed transcribe reads a file (audio/wav_file.h), its errors naming "the
// request body" and what was expected.
#include <cstdint>
#include <string>

#include "heed/audio/wav_file.h"
#include "heed/serve/request.h"

namespace heed::serve {

struct TranscribeRequest {
  Audio audio;             // mono, at the file's rate
  std::int64_t beam = 1;
};

// Throws ApiError: 415 for a Content-Type of JSON, text or multipart (naming what to send);
// 400 for a body that is not a WAV file heed reads (the reader's message), a WAV file without
// samples, or a beam that is not an integer from 1 to limits.max_beam; 413 for audio longer than
// limits.max_audio_seconds. beam: the query parameter's text ("" when absent).
TranscribeRequest parse_transcribe_request(std::string body, const std::string& content_type,
                                           const std::string& beam, const RequestLimits& limits);

}  // namespace heed::serve
