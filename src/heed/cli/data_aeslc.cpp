#include "heed/cli/data_aeslc.h"

#include <cstdio>
#include <filesystem>
#include <iostream>

#include "heed/base/error.h"
#include "heed/data/aeslc.h"

namespace heed::cli {
namespace {

std::size_t words(const std::string& line) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < line.size(); ++i)
    if (line[i] != ' ' && (i == 0 || line[i - 1] == ' ')) ++n;
  return n;
}

// "  dev     1960 emails  body 70.9 words, subject 4.1 on average  OUT/dev.src, ..."
void print_split(const char* name, const std::vector<AeslcEmail>& emails, const std::string& dir) {
  double body = 0, subject = 0;
  for (const AeslcEmail& e : emails) {
    body += static_cast<double>(words(e.body));
    subject += static_cast<double>(words(e.subject));
  }
  const double n = emails.empty() ? 1.0 : static_cast<double>(emails.size());
  char buf[160];
  std::snprintf(buf, sizeof buf, "  %-5s %6zu emails  body %5.1f words, subject %4.1f on average  ",
                name, emails.size(), body / n, subject / n);
  const auto base = (std::filesystem::path(dir) / name).string();
  std::cerr << buf << base << ".src, " << base << ".tgt";
  if (!emails.empty() && !emails.front().annotations.empty())
    std::cerr << ", " << base << ".ref1.." << emails.front().annotations.size();
  std::cerr << "\n";
}

}  // namespace

void DataAeslc::setup(CLI::App& data) {
  app_ = data.add_subcommand("aeslc", "Source, target and reference files from the Annotated "
                                      "Enron Subject Line Corpus (email body -> subject line)");
  CLI::App& a = *app_;
  a.add_option("--aeslc", aeslc_,
               "the unpacked corpus: the folder holding enron_subject_line/ (or that folder)")
      ->required();
  a.add_option("--out,-o", out_, "output directory (created if missing)")->required();
  a.add_option("--max-body-words", max_body_words_,
               "keep the first N words of each body (summarisation models read a bounded "
               "prefix); 0 = the whole body")
      ->default_val(0)
      ->check(CLI::NonNegativeNumber);
  a.footer(
      "Writes {train,dev,test}.src (each email's body on one line, whitespace collapsed) and\n"
      ".tgt (its subject line), and dev.ref1..3, test.ref1..3 (the three annotators' subjects),\n"
      "one line per email in file-name order. AESLC is CC BY-NC-SA 4.0: research use only\n"
      "(docs/DATA.md).");
}

int DataAeslc::run() {
  {  // before anything is read: --out names a directory, and a file there is the user's
    std::error_code ec;
    HEED_CHECK(!std::filesystem::exists(out_, ec) || std::filesystem::is_directory(out_, ec),
               out_, ": exists and is not a directory; --out names the directory to write the "
               "AESLC files into");
  }
  // Every file is read and checked before any is written: a bad one writes nothing.
  AeslcCorpus corpus = read_aeslc(aeslc_);
  const std::size_t cut = truncate_bodies(corpus, max_body_words_);
  write_aeslc(corpus, out_);
  std::cerr << "read AESLC (" << corpus.root << "): " << corpus.train.size() << " training, "
            << corpus.dev.size() << " dev and " << corpus.test.size() << " test emails\n";
  print_split("train", corpus.train, out_);
  print_split("dev", corpus.dev, out_);
  print_split("test", corpus.test, out_);
  if (max_body_words_ > 0)
    std::cerr << cut << " bodies cut to their first " << max_body_words_ << " words\n";
  return 0;
}

}  // namespace heed::cli
