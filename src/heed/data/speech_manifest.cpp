#include "heed/data/speech_manifest.h"

#include <filesystem>

#include "heed/base/error.h"
#include "heed/data/text_file.h"

namespace heed {

std::vector<SpeechUtterance> read_speech_manifest(const std::string& path) {
  std::error_code ec;  // read_lines names a missing file; an empty one is named here
  HEED_CHECK(std::filesystem::file_size(path, ec) != 0 || ec, path, ": no utterance (expected "
             "lines of a WAV path, a TAB and its transcript)");
  const std::vector<std::string> lines = read_lines(path);
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  std::vector<SpeechUtterance> out;
  out.reserve(lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    const auto tab = line.find('\t');
    HEED_CHECK(tab != std::string::npos, path, ":", i + 1,
               ": expected a WAV file's path, a TAB and its transcript, got '", line, "'");
    HEED_CHECK(tab > 0, path, ":", i + 1, ": empty WAV path before the TAB");
    const std::string transcript = line.substr(tab + 1);
    HEED_CHECK(transcript.find_first_not_of(" \t") != std::string::npos, path, ":", i + 1,
               ": empty transcript after the TAB");
    const std::filesystem::path audio = line.substr(0, tab);
    out.push_back({(audio.is_absolute() ? audio : folder / audio).string(), transcript, i + 1});
  }
  HEED_CHECK(!out.empty(), path, ": no utterance (expected lines of a WAV path, a TAB and its "
             "transcript)");
  return out;
}

}  // namespace heed
