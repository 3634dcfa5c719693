// The report page of `heed show` (viz/report_html.h): every sentence, the n-best lists with
// their scores and the maps' numbers are in it, it is one self-contained file (no URL, no
// external script or style), and no token can close its <script>.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "heed/base/error.h"
#include "heed/viz/report_html.h"

namespace heed::viz {
namespace {

std::vector<ReportSentence> sentences() {
  ReportSentence a;
  a.line = 1;
  a.input = "le chat";
  a.source = {"le", "chat", "</s>"};
  a.nbest = {{"the cat", -0.123456, {"the", "cat", "</s>"},
              {0.9f, 0.05f, 0.05f, 0.1f, 0.8f, 0.1f, 0.0f, 0.25f, 0.75f}},
             {"a cat", -1.5, {"a", "cat", "</s>"},
              {0.7f, 0.2f, 0.1f, 0.1f, 0.8f, 0.1f, 0.0f, 0.25f, 0.75f}}};
  a.saliency = {0.5f, 0.25f, 0.0f, 0.1f, 2.0f, 0.0f, 0.0f, 0.0f, 1.0f};
  a.picture = "sentence-0001";
  ReportSentence b;
  b.line = 2;
  b.note = "empty line";
  ReportSentence c;
  c.line = 3;
  c.input = "Stra\xC3\x9F" "e </script><script>alert(1)</script>";
  c.source = {"Stra\xC3\x9F" "e", "</script>", "</s>"};
  c.nbest = {{"\xD1\x83\xD0\xBB\xD0\xB8\xD1\x86\xD0\xB0", -0.5, {"\xD1\x83\xD0\xBB\xD0\xB8\xD1\x86\xD0\xB0", "</s>"},
              {0.5f, 0.5f, 0.0f, 0.0f, 0.0f, 1.0f}}};
  return {a, b, c};
}

TEST(ReportHtml, HoldsEverySentenceTheNbestAndTheWeights) {
  const ReportInfo info{"in.txt", "runs/model", 5, true, true};
  const std::string html = report_html(info, sentences());
  EXPECT_EQ(html.rfind("<!doctype html>", 0), 0u);
  EXPECT_NE(html.find("heed show: in.txt"), std::string::npos);
  EXPECT_NE(html.find("\"input\":\"le chat\""), std::string::npos);
  EXPECT_NE(html.find("\"line\":2"), std::string::npos);
  EXPECT_NE(html.find("\"note\":\"empty line\""), std::string::npos);
  EXPECT_NE(html.find("\"text\":\"the cat\""), std::string::npos);
  EXPECT_NE(html.find("\"text\":\"a cat\""), std::string::npos);
  EXPECT_NE(html.find("\"score\":-0.1235"), std::string::npos);  // 4 decimals
  EXPECT_NE(html.find("\"score\":-1.5"), std::string::npos);
  EXPECT_NE(html.find("[[0.9,0.05,0.05],[0.1,0.8,0.1],[0.0,0.25,0.75]]"), std::string::npos);
  EXPECT_NE(html.find("\"saliency\":[[0.5,0.25,0.0],[0.1,2.0,0.0],[0.0,0.0,1.0]]"), std::string::npos);
  EXPECT_NE(html.find("\xD1\x83\xD0\xBB\xD0\xB8\xD1\x86\xD0\xB0"), std::string::npos);  // UTF-8 kept
  EXPECT_NE(html.find("\"picture\":\"sentence-0001\""), std::string::npos);
}

TEST(ReportHtml, IsSelfContained) {
  const std::string html = report_html({"in.txt", "m", 5, true, true}, sentences());
  EXPECT_EQ(html.find("http"), std::string::npos);
  EXPECT_EQ(html.find("//"), html.find("// "));  // comments only, no protocol-relative URL
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_EQ(html.find("fetch("), std::string::npos);
}

TEST(ReportHtml, NoTokenClosesTheScript) {
  const std::string html = report_html({"in.txt", "m", 5, true, true}, sentences());
  std::size_t scripts = 0;
  for (std::size_t at = html.find("</script>"); at != std::string::npos; at = html.find("</script>", at + 1))
    ++scripts;
  EXPECT_EQ(scripts, 2u);  // the data and the page's own script
  EXPECT_NE(html.find("\\u003c/script>\\u003cscript>alert(1)"), std::string::npos);
}

TEST(ReportHtml, ModelWithoutAttentionOrWithoutSaliency) {
  std::vector<ReportSentence> s = sentences();
  for (auto& x : s)
    for (auto& h : x.nbest) h.attention.clear();
  const std::string html = report_html({"in.txt", "m", 5, false, true}, s);
  EXPECT_NE(html.find("the model has no attention: saliency only"), std::string::npos);
  EXPECT_NE(html.find("\"attention\":[]"), std::string::npos);
  s = sentences();
  for (auto& x : s) x.saliency.clear();
  EXPECT_NE(report_html({"in.txt", "m", 5, true, false}, s).find("saliency not computed"),
            std::string::npos);
}

TEST(ReportHtml, RefusesMapsOfTheWrongSize) {
  std::vector<ReportSentence> s = sentences();
  s[0].nbest[1].attention.pop_back();
  EXPECT_THROW(report_html({"in.txt", "m", 5, true, true}, s), Error);
  s = sentences();
  s[0].saliency.push_back(1.0f);
  EXPECT_THROW(report_html({"in.txt", "m", 5, true, true}, s), Error);
}

}  // namespace
}  // namespace heed::viz
