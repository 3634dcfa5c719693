#pragma once
// The Annotated Enron Subject Line Corpus (AESLC; Zhang & Tetreault, ACL 2019): email bodies
// and their subject lines, for subject line generation. Its unpacked folder holds
// enron_subject_line/{train,dev,test}/*.subject, one email a file: the body's lines, then a
// line "@subject" and the subject on the line under it; a dev or test email then has three
// subjects written by annotators, each under its own line "@ann0", "@ann1", "@ann2" (blank
// lines between the parts). `heed data aeslc` (docs/cli/data.md) turns it into source,
// target and reference files. The corpus is CC BY-NC-SA 4.0: it is read where the user
// unpacked it and never shipped with heed (docs/DATA.md, "AESLC").
#include <string>
#include <string_view>
#include <vector>

namespace heed {

inline constexpr int kAeslcAnnotations = 3;  // @ann0..@ann2 in every dev and test email

struct AeslcEmail {
  std::string name;                      // the file's name, e.g. allen-p_inbox_29.subject
  std::string body;                      // on one line, whitespace collapsed
  std::string subject;                   // the email's own subject line, likewise
  std::vector<std::string> annotations;  // dev and test: the three human subjects, likewise
};

struct AeslcCorpus {
  std::string root;  // the folder holding train/, dev/ and test/
  std::vector<AeslcEmail> train, dev, test;  // each sorted by file name
};

// Runs of ASCII whitespace (space, TAB, CR, LF, VT, FF) become one space, none at either end.
std::string collapse_whitespace(std::string_view text);

// The first max_words space-separated words of a collapsed line (the whole line when it has
// no more, or max_words is 0).
std::string first_words(std::string_view line, std::size_t max_words);

// Every body of the corpus cut to its first max_words words (0: left whole); returns how
// many bodies were cut.
std::size_t truncate_bodies(AeslcCorpus& corpus, std::size_t max_words);

// One email from the lines of its file (path names it in errors, which give the file and
// line: no @subject, an empty body or subject, a subject over two lines, a missing, empty or
// misplaced annotation, annotations in a training email). annotated: a dev or test email.
AeslcEmail parse_aeslc_email(const std::vector<std::string>& lines, const std::string& path,
                             bool annotated);
AeslcEmail read_aeslc_email(const std::string& path, bool annotated);

// Every *.subject file of one split's folder, sorted by file name (other files are left
// alone); a folder without any is an error.
std::vector<AeslcEmail> read_aeslc_split(const std::string& dir, bool annotated);

// The unpacked corpus: dir is the folder that holds enron_subject_line/, or that folder
// itself. All three splits must be there.
AeslcCorpus read_aeslc(const std::string& dir);

// Writes into dir (created if missing), each file atomically, a line per email in the
// corpus' order: {train,dev,test}.src (bodies) and .tgt (subjects), and dev.ref1..3,
// test.ref1..3 (@ann0..@ann2).
void write_aeslc(const AeslcCorpus& corpus, const std::string& dir);

}  // namespace heed
