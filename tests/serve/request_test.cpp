#include "heed/serve/request.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace heed::serve {
namespace {

TEST(TranslateRequest, ReadsEveryKey) {
  const auto r = parse_translate_request(
      R"({"sentences": ["a b", ""], "beam": 4, "nbest": 2, "attention": true,
          "alignment": "0.5", "saliency": true})",
      {});
  EXPECT_EQ(r.sentences, (std::vector<std::string>{"a b", ""}));
  EXPECT_EQ(r.beam, 4);
  EXPECT_EQ(r.nbest, 2);
  EXPECT_TRUE(r.attention);
  EXPECT_TRUE(r.saliency);
  ASSERT_TRUE(r.alignment.has_value());
  EXPECT_EQ(r.alignment->mode, AlignmentMode::threshold);
  const auto d = parse_translate_request(R"({"sentences": ["x"]})", {});
  EXPECT_EQ(d.beam, 5);
  EXPECT_EQ(d.nbest, 1);
  EXPECT_FALSE(d.needs_attention());
  EXPECT_TRUE(d.same_decoding(parse_translate_request(R"({"sentences": ["y", "z"]})", {})));
  EXPECT_FALSE(d.same_decoding(r));
}

TEST(TranslateRequest, RefusalsSayWhyWithTheirStatus) {
  RequestLimits limits;
  limits.max_sentences = 3;
  limits.max_sentence_bytes = 10;
  limits.max_beam = 8;
  struct Case {
    std::string body;
    int status;
    std::string words;
  };
  const std::vector<Case> cases = {
      {"", 400, "not valid JSON"},
      {"{\"sentences\": [\"a\"]", 400, "not valid JSON"},
      {"[\"a\"]", 400, "must be a JSON object"},
      {"{}", 400, "\"sentences\" is required"},
      {R"({"sentences": []})", 400, "\"sentences\" is empty"},
      {R"({"sentences": "a"})", 400, "array of strings"},
      {R"({"sentences": ["a", 3]})", 400, "array of strings"},
      {R"({"sentences": ["a"], "beam": 0})", 400, "\"beam\" must be from 1 to 8, got 0"},
      {R"({"sentences": ["a"], "beam": 9})", 400, "\"beam\" must be from 1 to 8, got 9"},
      {R"({"sentences": ["a"], "beam": "five"})", 400, "\"beam\" must be an integer"},
      {R"({"sentences": ["a"], "beam": 2.5})", 400, "\"beam\" must be an integer"},
      {R"({"sentences": ["a"], "beam": 2, "nbest": 3})", 400, "larger than \"beam\""},
      {R"({"sentences": ["a"], "attention": 1})", 400, "\"attention\" must be true or false"},
      {R"({"sentences": ["a"], "alignment": "fuzzy"})", 400, "expected hard, soft or a threshold"},
      {R"({"sentences": ["a"], "alignment": 0.5})", 400, "\"alignment\" must be a string"},
      {R"({"sentences": ["a"], "beem": 2})", 400, "unknown key \"beem\""},
      {R"({"sentences": ["a"], "saliency": "yes"})", 400, "\"saliency\" must be true or false"},
      {R"({"sentences": ["a"], "beam": 2, "beam": 8})", 400, "duplicate key \"beam\""},
      {R"({"sentences": ["a"], "sentences": ["b", "c"]})", 400, "duplicate key \"sentences\""},
      {R"({"beam": 2, "sentences": ["a"], "nbest": 1, "beam": 2})", 400, "duplicate key \"beam\""},
      {"{\"sentences\": [\"\xff\"]}", 400, "not valid UTF-8"},
      {R"({"sentences": ["a", "b", "c", "d"]})", 413, "too many sentences: 4, at most 3"},
      {R"({"sentences": ["a", "01234567890"]})", 413, "sentence 2 has 11 bytes, at most 10"},
  };
  for (const auto& c : cases) {
    try {
      parse_translate_request(c.body, limits);
      ADD_FAILURE() << c.body;
    } catch (const ApiError& e) {
      EXPECT_EQ(e.status(), c.status) << c.body;
      EXPECT_NE(std::string(e.what()).find(c.words), std::string::npos) << c.body << ": " << e.what();
    }
  }
}

TEST(TranslateRequest, ErrorBodiesAreJson) {
  EXPECT_EQ(error_body("bad \"x\""), R"({"error":"bad \"x\""})");
}

}  // namespace
}  // namespace heed::serve
