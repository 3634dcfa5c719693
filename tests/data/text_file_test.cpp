#include "heed/data/text_file.h"

#include <gtest/gtest.h>

#include "data/temp_dir.h"
#include "heed/base/error.h"

namespace heed {
namespace {
using testing::TempDir;
using Lines = std::vector<std::string>;

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

TEST(ReadLines, TrailingNewlineIsOptional) {
  TempDir dir;
  EXPECT_EQ(read_lines(dir.write("a", "one\ntwo\n")), (Lines{"one", "two"}));
  EXPECT_EQ(read_lines(dir.write("b", "one\ntwo")), (Lines{"one", "two"}));
}

TEST(ReadLines, ToleratesCrlfAndByteOrderMark) {
  TempDir dir;
  EXPECT_EQ(read_lines(dir.write("a", "one\r\ntwo\r\n")), (Lines{"one", "two"}));
  EXPECT_EQ(read_lines(dir.write("b", "\xEF\xBB\xBFone\r\ntwo")), (Lines{"one", "two"}));
}

TEST(ReadLines, KeepsEmptyLinesAndUtf8) {
  TempDir dir;
  EXPECT_EQ(read_lines(dir.write("a", "\n\nGrüße 😀\n")), (Lines{"", "", "Grüße 😀"}));
  EXPECT_EQ(read_lines(dir.write("b", "\n")), (Lines{""}));
}

TEST(ReadLines, MissingFileNamesThePath) {
  TempDir dir;
  std::string path = dir.file("missing.txt");
  std::string msg = error_of([&] { read_lines(path); });
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_NE(msg.find("cannot open"), std::string::npos) << msg;
}

TEST(ReadLines, DirectoryIsRejected) {
  TempDir dir;
  std::string msg = error_of([&] { read_lines(dir.file("")); });
  EXPECT_NE(msg.find("is a directory"), std::string::npos) << msg;
}

TEST(ReadLines, EmptyFileIsAnError) {
  TempDir dir;
  std::string path = dir.write("empty.txt", "");
  std::string msg = error_of([&] { read_lines(path); });
  EXPECT_EQ(msg, path + ": file is empty, expected one sentence per line");
  std::string bom_only = dir.write("bom.txt", "\xEF\xBB\xBF");
  EXPECT_NE(error_of([&] { read_lines(bom_only); }).find("file is empty"), std::string::npos);
}

TEST(ReadLines, InvalidUtf8NamesFileLineAndColumn) {
  TempDir dir;
  std::string path = dir.write("bad.txt", "fine\nab\xC3\x28z\n");
  std::string msg = error_of([&] { read_lines(path); });
  EXPECT_EQ(msg.rfind(path + ":2:3: invalid UTF-8 (byte 0xc3)", 0), 0u) << msg;
  // Latin-1 text (ä = 0xE4) is the common real-world case.
  std::string latin1 = dir.write("latin1.txt", "x\r\ny\r\nK\xE4se\r\n");
  EXPECT_EQ(error_of([&] { read_lines(latin1); }).rfind(latin1 + ":3:2: invalid UTF-8", 0), 0u);
  std::string truncated = dir.write("trunc.txt", "ok\n\xF0\x9F\x98");
  EXPECT_EQ(error_of([&] { read_lines(truncated); }).rfind(truncated + ":2:1: invalid UTF-8", 0), 0u);
  std::string overlong = dir.write("over.txt", "\xC0\xAF");
  EXPECT_EQ(error_of([&] { read_lines(overlong); }).rfind(overlong + ":1:1: invalid UTF-8", 0), 0u);
  // A byte order mark still counts in the column of line 1.
  std::string bom = dir.write("bom.txt", "\xEF\xBB\xBF" "a\xFF");
  EXPECT_EQ(error_of([&] { read_lines(bom); }).rfind(bom + ":1:5: invalid UTF-8", 0), 0u);
}

TEST(ReadParallel, ReadsAlignedFiles) {
  TempDir dir;
  ParallelText text = read_parallel(dir.write("s", "a b\nc\n"), dir.write("t", "x\r\ny z"));
  EXPECT_EQ(text.size(), 2u);
  EXPECT_EQ(text.source, (Lines{"a b", "c"}));
  EXPECT_EQ(text.target, (Lines{"x", "y z"}));
}

TEST(ReadParallel, UnequalLengthsGiveBothCounts) {
  TempDir dir;
  std::string s = dir.write("train.en", "a\nb\nc\n"), t = dir.write("train.de", "x\ny\n");
  std::string msg = error_of([&] { read_parallel(s, t); });
  EXPECT_NE(msg.find(s + " has 3 lines"), std::string::npos) << msg;
  EXPECT_NE(msg.find(t + " has 2 lines"), std::string::npos) << msg;
}

TEST(ReadParallel, ErrorsNameTheFaultyFile) {
  TempDir dir;
  std::string s = dir.write("s", "a\n"), t = dir.write("t", "");
  EXPECT_NE(error_of([&] { read_parallel(s, t); }).find(t + ": file is empty"), std::string::npos);
  std::string bad = dir.write("bad", "\xFE\n");
  EXPECT_NE(error_of([&] { read_parallel(bad, s); }).find(bad + ":1:1"), std::string::npos);
  EXPECT_NE(error_of([&] { read_parallel(s, dir.file("nope")); }).find(dir.file("nope")),
            std::string::npos);
}

TEST(WriteLines, RoundTripsThroughReadLines) {
  TempDir dir;
  Lines lines{"one", "", "drei ü"};
  write_lines(dir.file("out.txt"), lines);
  EXPECT_EQ(read_lines(dir.file("out.txt")), lines);
  EXPECT_FALSE(std::filesystem::exists(dir.file("out.txt.tmp")));
}

}  // namespace
}  // namespace heed
