#include "heed/serve/transcribe_request.h"

#include <cstdio>
#include <utility>

namespace heed::serve {
namespace {

// The media type of a Content-Type header, lower case, without its parameters.
std::string media_type(const std::string& content_type) {
  std::string t = content_type.substr(0, content_type.find(';'));
  while (!t.empty() && (t.back() == ' ' || t.back() == '\t')) t.pop_back();
  for (char& c : t)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return t;
}

}  // namespace

TranscribeRequest parse_transcribe_request(std::string body, const std::string& content_type,
                                           const std::string& beam, const RequestLimits& limits) {
  const std::string type = media_type(content_type);
  // curl --data-binary sends application/x-www-form-urlencoded unless told otherwise: read it.
  if (type == "application/json" || type.rfind("multipart/", 0) == 0 ||
      type.rfind("text/", 0) == 0)
    throw ApiError(415, "POST /transcribe takes the WAV file itself as the body (Content-Type "
                        "audio/wav, e.g. curl --data-binary @speech.wav -H 'Content-Type: "
                        "audio/wav'), not " + type);
  TranscribeRequest r;
  if (!beam.empty()) {
    std::size_t used = 0;
    long long k = 0;
    if (beam[0] >= '0' && beam[0] <= '9') {  // stoll would skip spaces and take a sign
      try {
        k = std::stoll(beam, &used);
      } catch (const std::exception&) {
        used = 0;
      }
    }
    if (used != beam.size() || k < 1 || k > limits.max_beam)
      throw ApiError(400, "beam=" + beam + ": expected an integer from 1 to " +
                              std::to_string(limits.max_beam));
    r.beam = k;
  }
  try {
    r.audio = wav_of_bytes(std::move(body), "the request body");
  } catch (const Error& e) {
    throw ApiError(400, e.what());
  }
  if (r.audio.samples.empty())
    throw ApiError(400, "the request body: the WAV file holds no samples, expected speech");
  if (r.audio.seconds() > limits.max_audio_seconds) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "the audio is %.2f s long, at most %g s (--max-audio-seconds)",
                  r.audio.seconds(), limits.max_audio_seconds);
    throw ApiError(413, buf);
  }
  return r;
}

}  // namespace heed::serve
