// AESLC's reader on small invented emails laid out as the corpus lays out its files (never
// text of the corpus itself: it is CC BY-NC-SA and stays outside the project).
#include "heed/data/aeslc.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "data/temp_dir.h"
#include "heed/base/error.h"
#include "heed/data/text_file.h"

namespace heed {
namespace {

using Lines = std::vector<std::string>;

// The message of the error parse_aeslc_email throws (empty when it throws none).
std::string error_of(const Lines& lines, bool annotated) {
  try {
    parse_aeslc_email(lines, "x.subject", annotated);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

const Lines kDevEmail = {"Hi team,  the picnic moves to\tFriday.",
                         "@home addresses stay as they are.",
                         "Thanks",
                         "",
                         "@subject",
                         "Picnic  moved",
                         "",
                         "@ann0",
                         "picnic on friday",
                         "",
                         "@ann1",
                         "Picnic date change",
                         "",
                         "@ann2",
                         "new picnic day"};

TEST(Aeslc, CollapsesWhitespace) {
  EXPECT_EQ(collapse_whitespace("  a \t b\r\n c  "), "a b c");
  EXPECT_EQ(collapse_whitespace(" \t "), "");
  // Only ASCII whitespace: a no-break space is a character of the text.
  EXPECT_EQ(collapse_whitespace("a\xc2\xa0 b"), "a\xc2\xa0 b");
}

TEST(Aeslc, ParsesADevEmail) {
  const AeslcEmail e = parse_aeslc_email(kDevEmail, "dir/bob_inbox_7.subject", true);
  EXPECT_EQ(e.name, "bob_inbox_7.subject");
  // A body line starting with "@" is body text; line breaks and runs of blanks are one space.
  EXPECT_EQ(e.body, "Hi team, the picnic moves to Friday. @home addresses stay as they are. Thanks");
  EXPECT_EQ(e.subject, "Picnic moved");
  EXPECT_EQ(e.annotations, (Lines{"picnic on friday", "Picnic date change", "new picnic day"}));
}

TEST(Aeslc, ParsesATrainingEmail) {
  const AeslcEmail e = parse_aeslc_email({"Lunch at noon?", "", "@subject", "lunch"}, "t.subject", false);
  EXPECT_EQ(e.body, "Lunch at noon?");
  EXPECT_EQ(e.subject, "lunch");
  EXPECT_TRUE(e.annotations.empty());
}

TEST(Aeslc, RefusesBadFilesNamingTheLine) {
  EXPECT_NE(error_of({"just a body", "no marker"}, false).find("x.subject:2: the file ends without an @subject line"),
            std::string::npos);
  EXPECT_NE(error_of({"body", "@subject", "", "  "}, false).find("x.subject:2: @subject has no subject under it"),
            std::string::npos);
  EXPECT_NE(error_of({"", "@subject", "topic"}, false).find("x.subject:2: no email body before @subject"),
            std::string::npos);
  EXPECT_NE(error_of({"body", "@subject", "one", "two"}, false)
                .find("x.subject:4: a second line under @subject (the first is line 3)"),
            std::string::npos);
  EXPECT_NE(error_of({"body", "@subject", "s", "@subject", "t"}, false)
                .find("x.subject:4: a second @subject line (the first is line 2)"),
            std::string::npos);
  EXPECT_NE(error_of({"body", "@ann0", "a", "@subject", "s"}, true).find("x.subject:2: @ann0 before any @subject"),
            std::string::npos);
  // Annotations: in a training email, missing, out of order, empty, one too many.
  EXPECT_NE(error_of(kDevEmail, false).find("x.subject:8: @ann0 in a training email"), std::string::npos);
  Lines two(kDevEmail.begin(), kDevEmail.begin() + 12);
  EXPECT_NE(error_of(two, true).find("x.subject:12: the file ends after @ann1 but a dev or test email needs @ann2 too"),
            std::string::npos);
  Lines none(kDevEmail.begin(), kDevEmail.begin() + 6);
  EXPECT_NE(error_of(none, true).find("x.subject:6: the file ends after the subject but a dev or test email needs @ann0"),
            std::string::npos);
  Lines swapped = kDevEmail;
  swapped[10] = "@ann2";
  EXPECT_NE(error_of(swapped, true).find("x.subject:11: @ann2 where @ann1 was expected"), std::string::npos);
  Lines empty_ann = kDevEmail;
  empty_ann[11] = " ";
  EXPECT_NE(error_of(empty_ann, true).find("x.subject:11: @ann1 has no subject under it"), std::string::npos);
  Lines four = kDevEmail;
  four.insert(four.end(), {"", "@ann3", "one more"});
  EXPECT_NE(error_of(four, true).find("x.subject:17: @ann3 after @ann2: expected the file to end there"),
            std::string::npos);
}

void write_file(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// A fake corpus folder: enron_subject_line/{train,dev,test} with invented emails.
void write_email(const std::filesystem::path& dir, const std::string& name, const std::string& body,
                 const std::string& subject, int annotations) {
  std::filesystem::create_directories(dir);
  std::string text = body + "\n\n@subject\n" + subject;
  for (int k = 0; k < annotations; ++k)
    text += "\n\n@ann" + std::to_string(k) + "\n" + subject + " " + std::to_string(k);
  write_file(dir / name, text);
}

TEST(Aeslc, ReadsAndWritesAFolderSortedByFileName) {
  testing::TempDir tmp;
  const std::filesystem::path root = std::filesystem::path(tmp.file("unpacked")) / "enron_subject_line";
  write_email(root / "train", "b_1.subject", "second  body", "second", 0);
  write_email(root / "train", "a_9.subject", "first body", "first", 0);
  write_email(root / "dev", "d_1.subject", "dev body", "dev", 3);
  write_email(root / "test", "t_2.subject", "test two", "two", 3);
  write_email(root / "test", "t_10.subject", "test ten", "ten", 3);
  write_file(root / "train" / "README.txt", "not an email");

  // The folder holding enron_subject_line/, or that folder itself.
  for (const std::string& dir : {tmp.file("unpacked"), root.string()}) {
    const AeslcCorpus c = read_aeslc(dir);
    EXPECT_EQ(c.root, root.string());
    ASSERT_EQ(c.train.size(), 2u);  // README.txt is not a .subject file
    EXPECT_EQ(c.train[0].name, "a_9.subject");
    EXPECT_EQ(c.train[1].body, "second body");
    ASSERT_EQ(c.test.size(), 2u);
    EXPECT_EQ(c.test[0].name, "t_10.subject");  // byte order: "1" < "2"
  }
  const std::string out = tmp.file("out");
  write_aeslc(read_aeslc(root.string()), out);
  EXPECT_EQ(read_lines(out + "/train.src"), (Lines{"first body", "second body"}));
  EXPECT_EQ(read_lines(out + "/train.tgt"), (Lines{"first", "second"}));
  EXPECT_EQ(read_lines(out + "/test.src"), (Lines{"test ten", "test two"}));
  EXPECT_EQ(read_lines(out + "/test.tgt"), (Lines{"ten", "two"}));
  EXPECT_EQ(read_lines(out + "/test.ref1"), (Lines{"ten 0", "two 0"}));
  EXPECT_EQ(read_lines(out + "/test.ref3"), (Lines{"ten 2", "two 2"}));
  EXPECT_EQ(read_lines(out + "/dev.ref2"), (Lines{"dev 1"}));
  EXPECT_FALSE(std::filesystem::exists(out + "/train.ref1"));
  EXPECT_FALSE(std::filesystem::exists(out + "/test.ref4"));
}

TEST(Aeslc, FirstWordsKeepsAPrefixOfWholeWords) {
  EXPECT_EQ(first_words("one two three four", 2), "one two");
  EXPECT_EQ(first_words("one two three", 3), "one two three");
  EXPECT_EQ(first_words("one two three", 7), "one two three");
  EXPECT_EQ(first_words("one two three", 0), "one two three");  // 0: all
  EXPECT_EQ(first_words("", 4), "");
  EXPECT_EQ(first_words("a", 1), "a");
  EXPECT_EQ(first_words("caf\xc3\xa9 au lait", 1), "caf\xc3\xa9");
  AeslcCorpus c;
  c.train = {{"a.subject", "one two three", "s", {}}, {"b.subject", "one", "t", {}}};
  c.test = {{"c.subject", "x y z w", "u", {"r1", "r2", "r3"}}};
  EXPECT_EQ(truncate_bodies(c, 2), 2u);
  EXPECT_EQ(c.train[0].body, "one two");
  EXPECT_EQ(c.train[1].body, "one");
  EXPECT_EQ(c.test[0].body, "x y");
  EXPECT_EQ(c.test[0].subject, "u");
  EXPECT_EQ(truncate_bodies(c, 0), 0u);
}

TEST(Aeslc, RefusesAFolderWithoutTheThreeSplits) {
  testing::TempDir tmp;
  const std::filesystem::path root = tmp.file("c");
  write_email(root / "train", "a.subject", "body", "s", 0);
  try {
    read_aeslc(root.string());
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(root.string() + ": no dev/ and test/ folders"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(read_aeslc(tmp.file("nowhere")), Error);
  std::filesystem::create_directories(root / "dev");
  std::filesystem::create_directories(root / "test");
  try {
    read_aeslc(root.string());  // dev/ holds no email
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("dev: no .subject files"), std::string::npos) << e.what();
  }
  // A bad email is named with its path, and the split it is in decides what it must hold.
  write_email(root / "dev", "d.subject", "body", "s", 2);
  write_email(root / "test", "t.subject", "body", "s", 3);
  try {
    read_aeslc(root.string());
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find((root / "dev" / "d.subject").string() + ":10: the file ends after @ann1"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace heed
