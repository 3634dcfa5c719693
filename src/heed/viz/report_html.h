#pragma once
// The report page of `heed show`: one self-contained HTML file (its CSS and its script
// inline, no external URL, nothing fetched) holding every sentence of an input file: the
// n-best list with scores, and the attention and saliency maps drawn in the page from the
// numbers it embeds as JSON. Hovering a cell shows the two tokens and the weight; clicking
// an output token shows its row over the source; clicking a hypothesis shows its attention.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace heed::viz {

struct ReportHypothesis {
  std::string text;                 // detokenised
  double score = 0.0;               // the decoder's (length-normalised) log-probability
  std::vector<std::string> output;  // pieces as emitted, EOS included if emitted
  std::vector<float> attention;     // |output| x |source|; empty without attention
};

struct ReportSentence {
  std::int64_t line = 0;            // 1-based line of the input file
  std::string input;                // the line as read
  std::vector<std::string> source;  // pieces the encoder saw (EOS included)
  std::vector<ReportHypothesis> nbest;  // best first; empty: nothing was decoded
  std::vector<float> saliency;      // of nbest[0], |output| x |source|; empty: not computed
  std::string picture;              // file name of the sentence's SVG beside the page ("" none)
  // More pictures of the sentence beside the page (a Transformer's heads): what each draws and
  // its file name without .svg / .png.
  std::vector<std::pair<std::string, std::string>> more_pictures;
  std::string note;                 // why there is nothing to show (e.g. "empty line")
};

struct ReportInfo {
  std::string input;   // the input file's name, for the page title
  std::string model;   // the model directory (or a label)
  std::size_t beam = 1;
  bool attention = true;  // the model has attention
  bool saliency = true;   // saliency maps were computed
};

// Throws heed::Error when a hypothesis' attention or a saliency map has the wrong size.
std::string report_html(const ReportInfo& info, const std::vector<ReportSentence>& sentences);

}  // namespace heed::viz
