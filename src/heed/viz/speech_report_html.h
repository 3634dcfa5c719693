#pragma once
// The page of `heed show --audio`: one self-contained HTML file (its style inline, no script,
// nothing fetched) beside the pictures it shows, one utterance a row at full width (a
// spectrogram is wide): the file, the transcript, the reference and whether they agree when a
// manifest gave one, the picture (a link to its SVG); above them the string error over the
// utterances with a reference.
#include <string>
#include <vector>

namespace heed::viz {

struct SpeechReportItem {
  std::string name;        // caption, e.g. "utterance 3 · digits/0042.wav"
  std::string png, svg;    // file names beside the page
  std::string reference;   // the manifest's transcript ("" unknown)
  std::string transcript;  // what the model wrote
};

struct SpeechReportInfo {
  std::string title;               // the page's heading
  std::vector<std::string> facts;  // lines under the heading (model, features, decoding)
};

// Every text is escaped.
std::string speech_report_html(const SpeechReportInfo& info,
                               const std::vector<SpeechReportItem>& items);

}  // namespace heed::viz
