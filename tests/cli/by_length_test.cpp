// End to end: `heed score --bootstrap`, `heed score --by-length ... [--json]` and
// `heed plot --by-length`, through the built binary.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/cli_test_util.h"

namespace heed::testing {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Five segments with source lengths 3, 2, 12, 15, 25 words. WER by hand: 1 edit in 4 + 2
// reference words (1-10), 2 deletions in 5 + 2 (11-20), 1 insertion in 3 (21+); 4 / 16 overall.
struct Files {
  std::string src, ref, hyp, hyp2;
};

Files write_corpus(const ScratchDir& d) {
  Files f;
  f.src = d.file("src", "a b c\none two\n" + std::string("w w w w w w w w w w w w\n") +
                            "v v v v v v v v v v v v v v v\n" +
                            "u u u u u u u u u u u u u u u u u u u u u u u u u\n");
  f.ref = d.file("ref", "x y z w\np q\na b c d e\nm n\nr s t\n");
  f.hyp = d.file("hyp", "x y q w\np q\na b c\nm n\nr s t u\n");
  f.hyp2 = d.file("hyp2", "x y z w\np q\na b c d\nm o\nr s t\n");
  return f;
}

TEST(ScoreByLength, BootstrapAlonePrintsTheCorpusInterval) {
  ScratchDir d("score_boot");
  Files f = write_corpus(d);
  auto r = run_heed("score -m wer -r " + f.ref + " --hyp " + f.hyp + " --bootstrap 200");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.rfind("WER = 25.00\n95% CI: [", 0), 0u) << r.output;
  EXPECT_TRUE(contains(r.output, "(bootstrap, 200 resamples, seed 12345)\n")) << r.output;
  r = run_heed("score -m wer -b -r " + f.ref + " --hyp " + f.hyp + " --bootstrap 200");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::istringstream in(r.output);
  double score = 0, lower = 0, upper = 0;
  in >> score >> lower >> upper;
  EXPECT_DOUBLE_EQ(score, 25.0);
  EXPECT_LE(lower, 25.0);
  EXPECT_GE(upper, 25.0);
  EXPECT_LT(lower, upper);
  // Same seed, same interval; --seed changes the draws.
  EXPECT_EQ(run_heed("score -m wer -b -r " + f.ref + " --hyp " + f.hyp + " --bootstrap 200").output,
            r.output);
  EXPECT_NE(
      run_heed("score -m wer -b -r " + f.ref + " --hyp " + f.hyp + " --bootstrap 200 --seed 9")
          .output,
      r.output);
}

TEST(ScoreByLength, TableAfterTheUsualLine) {
  ScratchDir d("score_len");
  Files f = write_corpus(d);
  auto r = run_heed("score -m wer -r " + f.ref + " --hyp " + f.hyp + " --by-length " + f.src +
                    " --buckets 10,20 --bootstrap 100");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.rfind("WER = 25.00\n", 0), 0u) << r.output;
  EXPECT_TRUE(contains(r.output, "WER by source length (words), 95% bootstrap CI:\n")) << r.output;
  EXPECT_TRUE(contains(r.output, "\n1-10" + std::string(9, ' ') + "2    16.67  [")) << r.output;
  EXPECT_TRUE(contains(r.output, "\n11-20" + std::string(8, ' ') + "2    28.57  [")) << r.output;
  EXPECT_TRUE(contains(r.output, "\n21+" + std::string(10, ' ') + "1    33.33  [33.33, 33.33]\n"))
      << r.output;

  r = run_heed("score -m wer -b -r " + f.ref + " --hyp " + f.hyp + " --by-length " + f.src +
               " --buckets 1-2,3-10,21-");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "\n1-2 1 0.00 0.00 0.00\n3-10 1 25.00 ")) << r.output;
  EXPECT_TRUE(contains(r.output, "\n21+ 1 33.33 33.33 33.33\n")) << r.output;
}

TEST(ScoreByLength, JsonHoldsCorpusAndBuckets) {
  ScratchDir d("score_json");
  Files f = write_corpus(d);
  const std::string out = d.path("wer.json");
  auto r = run_heed("score -m wer -r " + f.ref + " --hyp " + f.hyp + " --by-length " + f.src +
                    " --buckets 10,20,22 --label 'sys <A>' --json " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "wrote " + out + " (4 length buckets)")) << r.output;
  const auto j = nlohmann::json::parse(slurp(out));
  EXPECT_EQ(j["metric"], "wer");
  EXPECT_EQ(j["label"], "sys <A>");
  EXPECT_EQ(j["lowercase"], false);
  EXPECT_EQ(j["length_unit"], "words");
  EXPECT_EQ(j["bootstrap"], 1000);
  EXPECT_EQ(j["corpus"]["n"], 5);
  EXPECT_DOUBLE_EQ(j["corpus"]["score"].get<double>(), 25.0);
  EXPECT_LE(j["corpus"]["lower"].get<double>(), 25.0);
  EXPECT_GE(j["corpus"]["upper"].get<double>(), 25.0);
  const auto& b = j["buckets"];
  ASSERT_EQ(b.size(), 4u);
  EXPECT_EQ(b[0]["lo"], 1);
  EXPECT_EQ(b[0]["hi"], 10);
  EXPECT_EQ(b[0]["n"], 2);
  EXPECT_DOUBLE_EQ(b[0]["score"].get<double>(), 16.6667);
  EXPECT_DOUBLE_EQ(b[1]["score"].get<double>(), 28.5714);
  EXPECT_EQ(b[2]["lo"], 21);  // 21-22: empty, kept
  EXPECT_EQ(b[2]["n"], 0);
  EXPECT_TRUE(b[2]["score"].is_null());
  EXPECT_TRUE(b[2]["lower"].is_null());
  EXPECT_EQ(b[3]["lo"], 23);
  EXPECT_TRUE(b[3]["hi"].is_null());
  EXPECT_DOUBLE_EQ(b[3]["score"].get<double>(), 33.3333);
  EXPECT_DOUBLE_EQ(b[3]["lower"].get<double>(), 33.3333);
  EXPECT_EQ(j["outside"], 0);

  // Automatic buckets (width 10 up to the longest source, 25 words): 1-10, 11-20, 21+.
  r = run_heed("score -m wer -r " + f.ref + " --hyp " + f.hyp + " --by-length " + f.src +
               " --bootstrap 50 --json " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto k = nlohmann::json::parse(slurp(out));
  ASSERT_EQ(k["buckets"].size(), 3u);
  EXPECT_EQ(k["buckets"][2]["lo"], 21);
  EXPECT_EQ(k["label"], "hyp");  // the hypothesis file's name
}

TEST(ScoreByLength, G2pByCharactersWithPer) {
  ScratchDir d("score_g2p");
  auto src = d.file("src", "c a t\ndog\nelephant\n");
  auto ref = d.file("ref", "K AE T\nD AO G\nEH L AH F AH N T\n");
  auto hyp = d.file("hyp", "K AE T\nD AA G\nEH L AH F AH N T\n");
  const std::string out = d.path("g2p.json");
  auto r = run_heed("score -m g2p -r " + ref + " --hyp " + hyp + " --by-length " + src +
                    " --length-unit chars --buckets 3,7 --json " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(slurp(out));
  EXPECT_EQ(j["length_unit"], "chars");
  EXPECT_EQ(j["score_name"], "WER");
  const auto& b = j["buckets"];
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0]["n"], 2);                               // "c a t" and "dog": 3 letters each
  EXPECT_DOUBLE_EQ(b[0]["score"].get<double>(), 50.0);   // one of two words wrong
  EXPECT_DOUBLE_EQ(b[0]["per"].get<double>(), 16.6667);  // 1 edit in 6 phones
  EXPECT_EQ(b[1]["n"], 0);
  EXPECT_EQ(b[2]["n"], 1);
  EXPECT_DOUBLE_EQ(b[2]["score"].get<double>(), 0.0);
  r = run_heed("score -m g2p -r " + ref + " --hyp " + hyp + " --by-length " + src +
               " --length-unit chars --buckets 3,7");
  EXPECT_TRUE(contains(r.output, "WER and PER by source length (chars)")) << r.output;
}

TEST(ScoreByLength, Errors) {
  ScratchDir d("score_len_err");
  Files f = write_corpus(d);
  auto short_src = d.file("short", "a\nb\n");
  auto r = run_heed("score -m wer -r " + f.ref + " --hyp " + f.hyp + " --by-length " + short_src);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.output, "--by-length: " + short_src + " has 2 lines but the hypotheses (" +
                                     f.hyp + ") have 5"))
      << r.output;
  r = run_heed("score -m wer -r " + f.ref + " --hyp " + f.hyp + " --by-length " + f.src +
               " --buckets 20,10");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.output, "--buckets: edges must increase")) << r.output;
  r = run_heed("score -m wer -r " + f.ref + " --hyp " + f.hyp + " --json " + d.path("x.json"));
  EXPECT_EQ(r.exit_code, 2);  // --json needs --by-length
  EXPECT_FALSE(std::filesystem::exists(d.path("x.json")));
  r = run_heed("score -m wer -r " + f.ref + " --hyp " + f.hyp + " --by-length " + f.src +
               " --length-unit lines");
  EXPECT_EQ(r.exit_code, 2);
  r = run_heed("score -m wer -r " + f.ref + " --hyp " + f.hyp + " --bootstrap 0");
  EXPECT_EQ(r.exit_code, 2);
}

TEST(PlotByLength, OneLinePerSystem) {
  ScratchDir d("plot_len");
  Files f = write_corpus(d);
  const std::string a = d.path("a.json"), b = d.path("b.json"), svg = d.path("fig.svg");
  ASSERT_EQ(run_heed("score -m wer -r " + f.ref + " --hyp " + f.hyp + " --by-length " + f.src +
                     " --bootstrap 50 --label 'A & <B>' --json " + a)
                .exit_code,
            0);
  ASSERT_EQ(run_heed("score -m wer -r " + f.ref + " --hyp " + f.hyp2 + " --by-length " + f.src +
                     " --bootstrap 50 --label sys2 --json " + b)
                .exit_code,
            0);
  auto r = run_heed("plot --by-length " + a + " --by-length " + b + " --out " + svg +
                    " --title 'WER by length'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "wrote " + svg + " (WER % by source length, 2 systems, 3 buckets)\n");
  const std::string s = slurp(svg);
  EXPECT_TRUE(contains(s, "<svg xmlns")) << s.substr(0, 200);
  EXPECT_EQ(s.substr(s.size() - 7), "</svg>\n");
  std::size_t lines = 0;
  for (std::size_t at = s.find("class=\"line\""); at != std::string::npos;
       at = s.find("class=\"line\"", at + 1))
    ++lines;
  EXPECT_EQ(lines, 2u);
  EXPECT_TRUE(contains(s, ">A &amp; &lt;B&gt;</text>")) << s;
  EXPECT_TRUE(contains(s, ">WER by length</text>"));
  EXPECT_TRUE(contains(s, ">WER %</text>"));
  EXPECT_TRUE(contains(s, ">21+</text>"));

  // --y-title replaces the metric's axis title.
  r = run_heed("plot --by-length " + a + " --out " + svg + " --y-title 'errors in %'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "wrote " + svg + " (errors in % by source length, 1 system, 3 buckets)\n");
  EXPECT_TRUE(contains(slurp(svg), ">errors in %</text>"));
}

TEST(PlotByLength, Errors) {
  ScratchDir d("plot_len_err");
  Files f = write_corpus(d);
  const std::string w = d.path("w.json"), bl = d.path("b.json"), ch = d.path("c.json");
  const std::string base =
      "score -r " + f.ref + " --hyp " + f.hyp + " --by-length " + f.src + " --bootstrap 20 ";
  ASSERT_EQ(run_heed(base + "-m wer --json " + w).exit_code, 0);
  ASSERT_EQ(run_heed(base + "-m bleu --json " + bl).exit_code, 0);
  ASSERT_EQ(run_heed(base + "-m wer --length-unit chars --json " + ch).exit_code, 0);
  const std::string svg = d.path("fig.svg");
  auto r = run_heed("plot --by-length " + w + " --by-length " + bl + " --out " + svg);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.output, "hold different metrics (wer, bleu)")) << r.output;
  EXPECT_FALSE(std::filesystem::exists(svg));
  r = run_heed("plot --by-length " + w + " --by-length " + ch + " --out " + svg);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.output, "different units (words, chars)")) << r.output;
  r = run_heed("plot --by-length " + w + " --attention " + w + " --out " + svg);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.output, "--attention and --by-length")) << r.output;
  r = run_heed("plot --out " + svg);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.output, "give --attention FILE")) << r.output;
  r = run_heed("plot --by-length " + f.ref + " --out " + svg);  // not JSON
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.output, f.ref + ": expected the JSON of `heed score")) << r.output;
  r = run_heed("plot --by-length " + w + " --out " + d.path());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.output, "is a directory")) << r.output;
}

}  // namespace
}  // namespace heed::testing
