// heed plot: in process (option parsing, selection, errors) and end to end through the
// built `heed` binary (exit codes, messages, files on disk).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "data/temp_dir.h"
#include "heed/base/error.h"
#include "heed/cli/plot_command.h"
#include "heed/viz/attention_record.h"
#include "viz/xml_check.h"

namespace heed {
namespace {

namespace fs = std::filesystem;
using heed::testing::TempDir;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

viz::AttentionRecord record(std::int64_t index, std::vector<std::string> source,
                            std::vector<std::string> output) {
  viz::AttentionRecord r;
  r.index = index;
  r.source = std::move(source);
  r.output = std::move(output);
  // Each output token attends to one source token, the rest spread evenly.
  const std::size_t m = r.source.size();
  for (std::size_t t = 0; t < r.output.size(); ++t) {
    for (std::size_t j = 0; j < m; ++j) {
      r.alpha.push_back(m == 1 ? 1.0f : (j == t % m ? 0.5f : 0.5f / static_cast<float>(m - 1)));
    }
  }
  return r;
}

std::string write_sample(const TempDir& dir) {
  auto a = record(0, {"le", "chat", "</s>"}, {"the", "cat", "</s>"});
  a.model = "bahdanau";
  a.score = -1.25;
  auto b = record(3, {"<b>", "AT&T", "\"x\"", "</s>"}, {"a", "&", "</s>"});
  auto c = record(5, {"x", "</s>"}, {"y", "</s>"});
  const std::string path = dir.file("att.jsonl");
  viz::write_attention_file(path, {a, b, c});
  return path;
}

// Runs `heed plot <args>` in process; returns standard output.
std::string run_plot(const std::vector<std::string>& args) {
  auto cmd = cli::make_plot_command();
  CLI::App app{"plot"};
  cmd->setup(app);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 wants them reversed
  app.parse(reversed);
  std::ostringstream captured;
  std::streambuf* old = std::cout.rdbuf(captured.rdbuf());
  try {
    EXPECT_EQ(cmd->run(), 0);
  } catch (...) {
    std::cout.rdbuf(old);
    throw;
  }
  std::cout.rdbuf(old);
  return captured.str();
}

std::string plot_error(const std::vector<std::string>& args) {
  try {
    run_plot(args);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(PlotCommand, WritesOneSvgPerSentenceAndAnIndex) {
  TempDir dir;
  const std::string att = write_sample(dir);
  const std::string out = dir.file("plots/nested");  // created, parents included
  const std::string said = run_plot({"--attention", att, "--out", out});
  EXPECT_NE(said.find("wrote 3 heat maps"), std::string::npos) << said;
  EXPECT_NE(said.find(out + "/index.html"), std::string::npos) << said;
  for (int i : {0, 3, 5}) {
    const std::string svg = slurp(out + "/attention_" + std::to_string(i) + ".svg");
    const auto check = heed::testing::check_xml(svg);
    EXPECT_TRUE(check.ok()) << i << ": " << check.error;
  }
  const std::string svg3 = slurp(out + "/attention_3.svg");
  EXPECT_NE(svg3.find("AT&amp;T"), std::string::npos);
  EXPECT_EQ(svg3.find("class=\"value\""), std::string::npos);
  const std::string html = slurp(out + "/index.html");
  for (const char* want : {"<img src=\"attention_0.svg\"", "<img src=\"attention_3.svg\"",
                           "<img src=\"attention_5.svg\"", "&lt;b&gt; AT&amp;T &quot;x&quot;",
                           "bahdanau", "-1.25"}) {
    EXPECT_NE(html.find(want), std::string::npos) << want;
  }
  // No temporary files left behind.
  for (const auto& e : fs::directory_iterator(out)) {
    EXPECT_NE(e.path().extension(), ".tmp") << e.path();
  }
}

TEST(PlotCommand, SelectsSentencesAndPrintsValues) {
  TempDir dir;
  const std::string att = write_sample(dir);
  const std::string out = dir.file("sel");
  const std::string said =
      run_plot({"--attention", att, "--out", out, "--sentences", "5, 0,5", "--values"});
  EXPECT_NE(said.find("wrote 2 heat maps"), std::string::npos) << said;
  EXPECT_TRUE(fs::exists(out + "/attention_0.svg"));
  EXPECT_TRUE(fs::exists(out + "/attention_5.svg"));
  EXPECT_FALSE(fs::exists(out + "/attention_3.svg"));
  EXPECT_NE(slurp(out + "/attention_0.svg").find("class=\"value\""), std::string::npos);
  // The index lists them in the order asked for.
  const std::string html = slurp(out + "/index.html");
  EXPECT_LT(html.find("attention_5.svg"), html.find("attention_0.svg"));
}

TEST(PlotCommand, ClearErrors) {
  TempDir dir;
  const std::string att = write_sample(dir);
  const std::string out = dir.file("o");
  EXPECT_NE(plot_error({"--attention", dir.file("nope.json"), "--out", out}).find("nope.json: no such file"),
            std::string::npos);
  EXPECT_NE(plot_error({"--attention", att, "--out", out, "--sentences", "0,4"})
                .find("no sentence with index 4 (the file holds 3 sentences, indices 0..5)"),
            std::string::npos);
  EXPECT_NE(plot_error({"--attention", att, "--out", out, "--sentences", "0,a"})
                .find("--sentences: 'a' is not a sentence index"),
            std::string::npos);
  const std::string bad = dir.write(
      "bad.jsonl", viz::to_json_line(record(0, {"a"}, {"b"})) +
                       "\n{\"index\":1,\"source\":[\"a\",\"b\"],\"output\":[\"x\"],"
                       "\"attention\":[[1.0]]}\n");
  EXPECT_NE(plot_error({"--attention", bad, "--out", out})
                .find(bad + ":2: sentence 1: \"attention\"[0] has 1 weight for 2 source tokens"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(out));  // nothing written when the input is bad
  const std::string file_in_the_way = dir.write("file", "x");
  EXPECT_NE(plot_error({"--attention", att, "--out", file_in_the_way})
                .find("cannot create the output directory"),
            std::string::npos);
}

// ---- end to end through the binary: tests live in <build>/tests, heed in <build> ----

fs::path heed_binary() {
  return fs::read_symlink("/proc/self/exe").parent_path().parent_path() / "heed";
}

struct Exit {
  int code = -1;
  std::string out, err;
};

Exit run_heed(const TempDir& dir, const std::string& args) {
  const std::string out = dir.file("stdout.txt"), err = dir.file("stderr.txt");
  const std::string cmd = "'" + heed_binary().string() + "' " + args + " > '" + out + "' 2> '" +
                          err + "'";
  const int status = std::system(cmd.c_str());
  Exit r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

TEST(PlotCommandEndToEnd, BinaryWritesPlotsAndReportsErrors) {
  ASSERT_TRUE(fs::exists(heed_binary()))
      << heed_binary() << " not found: build the heed_cli target before running this test";
  TempDir dir;
  const std::string att = write_sample(dir);
  const std::string out = dir.file("plots");
  Exit ok = run_heed(dir, "plot --attention '" + att + "' --out '" + out + "' --sentences 3");
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_NE(ok.out.find("wrote 1 heat map"), std::string::npos) << ok.out;
  EXPECT_TRUE(heed::testing::check_xml(slurp(out + "/attention_3.svg")).ok());
  EXPECT_TRUE(fs::exists(out + "/index.html"));

  const std::string bad = dir.write("bad.jsonl", "{\"index\": 0, \"source\": [\"a\"]\n");
  Exit fail = run_heed(dir, "plot --attention '" + bad + "' --out '" + out + "'");
  EXPECT_EQ(fail.code, 1);
  EXPECT_NE(fail.err.find("heed plot: error: " + bad + ":1:29: invalid JSON"), std::string::npos)
      << fail.err;

  Exit usage = run_heed(dir, "plot --out '" + out + "'");
  EXPECT_EQ(usage.code, 2);
  EXPECT_NE(usage.err.find("--attention"), std::string::npos) << usage.err;

  Exit help = run_heed(dir, "--help");
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("plot"), std::string::npos);
}

}  // namespace
}  // namespace heed
