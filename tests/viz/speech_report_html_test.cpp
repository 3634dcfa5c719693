// The page of `heed show --audio` (viz/speech_report_html.h): one figure per utterance, the
// string error over those with a reference, and every text escaped.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "heed/viz/speech_report_html.h"
#include "viz/xml_check.h"

namespace heed::viz {
namespace {

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

TEST(SpeechReportHtml, OneFigurePerUtteranceAndTheErrorOverTheReferenced) {
  SpeechReportInfo info;
  info.title = "heed show: 3 utterances";
  info.facts = {"model m <las>"};
  const std::vector<SpeechReportItem> items = {
      {"utterance 1 \xC2\xB7 a.wav", "utterance-0001.png", "utterance-0001.svg", "one two",
       "one two"},
      {"utterance 2 \xC2\xB7 b&c.wav", "utterance-0002.png", "utterance-0002.svg", "three",
       "tree"},
      {"utterance 3", "utterance-0003.png", "utterance-0003.svg", "", ""}};
  const std::string page = speech_report_html(info, items);
  EXPECT_EQ(count(page, "<figure"), 3u);
  EXPECT_EQ(count(page, "<figure class=\"right\">"), 1u);
  EXPECT_EQ(count(page, "<figure class=\"wrong\">"), 1u);
  EXPECT_NE(page.find("<b>1 of 2 transcripts wrong: string error 50.00%</b> (3 utterances shown)"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("<a href=\"utterance-0002.svg\"><img src=\"utterance-0002.png\""),
            std::string::npos);
  EXPECT_NE(page.find("b&amp;c.wav"), std::string::npos);
  EXPECT_NE(page.find("model m &lt;las&gt;"), std::string::npos);
  EXPECT_NE(page.find("transcript <span class=\"transcript\">(nothing)</span>"), std::string::npos);
  const std::string none = speech_report_html(info, {items[2]});
  EXPECT_NE(none.find("1 utterance, no reference transcripts (give a manifest): no error to give"),
            std::string::npos)
      << none;
}

}  // namespace
}  // namespace heed::viz
