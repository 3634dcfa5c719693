// The attention-JSON format: round trips, rounding, and every validation error naming the
// file, the line and the problem.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "data/temp_dir.h"
#include "heed/base/error.h"
#include "heed/viz/attention_record.h"

namespace heed::viz {
namespace {

using heed::testing::TempDir;

AttentionRecord sample(std::int64_t index = 0) {
  AttentionRecord r;
  r.index = index;
  r.source = {"le", "chat", "</s>"};
  r.output = {"the", "cat", "</s>"};
  r.alpha = {0.9f, 0.05f, 0.05f, 0.1f, 0.8f, 0.1f, 0.0f, 0.25f, 0.75f};
  return r;
}

// The message of the heed::Error that fn throws ("" when it throws none).
template <typename Fn>
std::string error_of(Fn fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_ERROR_HAS(expr, text)                                       \
  do {                                                                     \
    const std::string msg_ = error_of([&] { (void)(expr); });              \
    EXPECT_NE(msg_.find(text), std::string::npos) << "message: " << msg_;  \
  } while (0)

TEST(AttentionRecord, JsonLineHasTheDocumentedShape) {
  AttentionRecord r = sample(4);
  r.score = -1.5;
  r.model = "bahdanau";
  EXPECT_EQ(to_json_line(r),
            "{\"attention\":[[0.9,0.05,0.05],[0.1,0.8,0.1],[0.0,0.25,0.75]],\"index\":4,"
            "\"model\":\"bahdanau\",\"output\":[\"the\",\"cat\",\"</s>\"],\"score\":-1.5,"
            "\"source\":[\"le\",\"chat\",\"</s>\"]}");
}

TEST(AttentionRecord, RoundTripsThroughAFile) {
  TempDir dir;
  AttentionRecord a = sample(0), b = sample(7);
  b.score = -3.25;
  b.model = "luong \"general\"";
  b.source = {"\xE6\x97\xA5\xE6\x9C\xAC", "a\"b", "\\", "</s>"};
  b.output = {"x"};
  b.alpha = {0.125f, 0.25f, 0.5f, 0.125f};
  const std::string path = dir.file("att.jsonl");
  write_attention_file(path, {a, b});
  const auto back = read_attention_file(path);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].index, 0);
  EXPECT_EQ(back[0].source, a.source);
  EXPECT_EQ(back[0].output, a.output);
  EXPECT_EQ(back[0].alpha, a.alpha);
  EXPECT_FALSE(back[0].score);
  EXPECT_FALSE(back[0].model);
  EXPECT_EQ(back[1].index, 7);
  EXPECT_EQ(back[1].source, b.source);
  EXPECT_EQ(back[1].alpha, b.alpha);
  EXPECT_EQ(back[1].at(0, 2), 0.5f);
  EXPECT_EQ(*back[1].score, -3.25);
  EXPECT_EQ(*back[1].model, b.model);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
}

TEST(AttentionRecord, WeightsAreRoundedToSixDecimals) {
  AttentionRecord r = sample();
  r.alpha[0] = 0.123456789f;
  r.alpha[1] = 1e-9f;
  const auto back = parse_attention_record(to_json_line(r), "x");
  EXPECT_FLOAT_EQ(back.alpha[0], 0.123457f);
  EXPECT_EQ(back.alpha[1], 0.0f);
}

TEST(AttentionRecord, ReaderSkipsBlankLinesAndIgnoresUnknownKeys) {
  TempDir dir;
  const std::string path = dir.write(
      "a.jsonl",
      "\n{\"index\":2,\"source\":[\"a\"],\"output\":[\"b\",\"</s>\"],\"attention\":[[1],[1]],"
      "\"reference\":\"b\",\"score\":null}\r\n  \n");
  const auto r = read_attention_file(path);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].index, 2);
  EXPECT_EQ(r[0].output.size(), 2u);
  EXPECT_FALSE(r[0].score);
}

TEST(AttentionRecord, ErrorsNameFileLineAndProblem) {
  TempDir dir;
  const std::string good = to_json_line(sample(0));
  auto file = [&](const std::string& second_line) {
    return dir.write("bad.jsonl", good + "\n" + second_line + "\n");
  };
  const std::string at = dir.file("bad.jsonl") + ":2: ";
  EXPECT_ERROR_HAS(read_attention_file(file("{\"index\": 1,")),
                   dir.file("bad.jsonl") + ":2:13: invalid JSON: syntax error");
  EXPECT_ERROR_HAS(read_attention_file(file("[1, 2]")), at + "expected one JSON object");
  EXPECT_ERROR_HAS(read_attention_file(file("{\"source\":[\"a\"]}")), at + "missing \"index\"");
  EXPECT_ERROR_HAS(read_attention_file(file("{\"index\":-1}")), at + "\"index\" must be >= 0");
  EXPECT_ERROR_HAS(read_attention_file(file("{\"index\":1.5}")), "must be an integer");
  EXPECT_ERROR_HAS(
      read_attention_file(file("{\"index\":1,\"source\":\"a b\",\"output\":[],\"attention\":[]}")),
      at + "\"source\" must be an array of token strings, got string");
  EXPECT_ERROR_HAS(
      read_attention_file(file("{\"index\":1,\"source\":[\"a\",3],\"output\":[],\"attention\":[]}")),
      "\"source\"[1] must be a string, got number");
  EXPECT_ERROR_HAS(read_attention_file(file("{\"index\":1,\"source\":[\"a\"],\"output\":[\"b\"]}")),
                   at + "missing \"attention\"");
  // Matrix sizes that do not match the token counts.
  EXPECT_ERROR_HAS(read_attention_file(file("{\"index\":1,\"source\":[\"a\",\"b\"],\"output\":"
                                            "[\"x\",\"y\"],\"attention\":[[0.5,0.5]]}")),
                   at + "sentence 1: \"attention\" has 1 row for 2 output tokens");
  EXPECT_ERROR_HAS(read_attention_file(file("{\"index\":1,\"source\":[\"a\",\"b\"],\"output\":"
                                            "[\"x\"],\"attention\":[[0.5,0.25,0.25]]}")),
                   at + "sentence 1: \"attention\"[0] has 3 weights for 2 source tokens");
  EXPECT_ERROR_HAS(read_attention_file(file("{\"index\":1,\"source\":[\"a\"],\"output\":[\"x\"],"
                                            "\"attention\":[[1.5]]}")),
                   "\"attention\"[0][0] = 1.5 is not a weight in [0, 1]");
  EXPECT_ERROR_HAS(read_attention_file(file("{\"index\":1,\"source\":[\"a\"],\"output\":[\"x\"],"
                                            "\"attention\":[[\"0.5\"]]}")),
                   "is not a weight in [0, 1]");
  EXPECT_ERROR_HAS(read_attention_file(file("{\"index\":1,\"source\":[],\"output\":[\"x\"],"
                                            "\"attention\":[[]]}")),
                   "sentence 1 has no source tokens");
  EXPECT_ERROR_HAS(read_attention_file(file("{\"index\":1,\"source\":[\"a\"],\"output\":[\"x\"],"
                                            "\"attention\":[[1]],\"score\":\"high\"}")),
                   "\"score\" must be a number");
  EXPECT_ERROR_HAS(read_attention_file(file(good)), at + "index 0 already used on line 1");
}

TEST(AttentionRecord, FileLevelErrors) {
  TempDir dir;
  EXPECT_ERROR_HAS(read_attention_file(dir.file("missing.jsonl")), "missing.jsonl");
  EXPECT_ERROR_HAS(read_attention_file(dir.write("empty.jsonl", "")), "empty.jsonl");
  EXPECT_ERROR_HAS(read_attention_file(dir.write("blank.jsonl", "\n\n")), "no sentences");
  EXPECT_ERROR_HAS(read_attention_file(dir.write("array.json", "[\n" + to_json_line(sample()) +
                                                                  "\n]\n")),
                   "array.json:1: expected JSON Lines");
  EXPECT_ERROR_HAS(read_attention_file(dir.write("utf8.jsonl", "{\"index\":\"\xFF\"}\n")),
                   "utf8.jsonl:1:");
}

TEST(AttentionRecord, WriterRefusesBadRecordsAndLeavesNoFile) {
  TempDir dir;
  const std::string path = dir.file("out.jsonl");
  AttentionRecord bad = sample(3);
  bad.alpha.pop_back();
  EXPECT_ERROR_HAS(write_attention_file(path, {sample(0), bad}),
                   "record 1: sentence 3: attention has 8 weights, expected |output| x |source| "
                   "= 3 x 3 = 9");
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_ERROR_HAS(write_attention_file(path, {sample(5), sample(5)}),
                   "index 5 already used by record 0");
  AttentionRecord nan = sample();
  nan.alpha[2] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_ERROR_HAS(write_attention_file(path, {nan}), "attention[0][2]");
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace heed::viz
