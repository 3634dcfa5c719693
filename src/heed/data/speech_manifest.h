#pragma once
// A speech manifest (docs/DATA.md#speech-manifests), what model.kind las trains and is
// evaluated on: a UTF-8 text file, per line a WAV file's path, a TAB and the transcript, as
// `heed data digits` writes train.tsv, dev.tsv and test.tsv. A relative path is relative to the
// manifest's own folder, so a data directory can move as a whole.
#include <string>
#include <vector>

namespace heed {

struct SpeechUtterance {
  std::string audio_path;   // resolved: the manifest's folder / the path as written
  std::string transcript;   // the text after the TAB
  std::size_t line = 0;     // 1-based, for messages
};

// Every line of a manifest. heed::Error naming the file and the line for a line without a TAB,
// with an empty path or an empty transcript, and for a manifest without any line.
std::vector<SpeechUtterance> read_speech_manifest(const std::string& path);

}  // namespace heed
