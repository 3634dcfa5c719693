#include "heed/data/aeslc.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "heed/base/error.h"
#include "heed/data/text_file.h"

namespace heed {

namespace {

namespace fs = std::filesystem;

constexpr const char* kLayout =
    "an AESLC .subject file holds the email body, a line @subject and the subject under it, "
    "then for dev and test @ann0, @ann1 and @ann2, each with a subject under it";

bool is_blank_char(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank_char(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank_char(s.back())) s.remove_suffix(1);
  return s;
}

// A line that starts a part: "@subject" or "@ann" and digits (blanks around allowed). Lines of
// a body that merely start with "@" (an address, say) are body text.
bool is_marker(std::string_view line) {
  const std::string_view t = trim(line);
  if (t == "@subject") return true;
  if (t.size() <= 4 || t.substr(0, 4) != "@ann") return false;
  return std::all_of(t.begin() + 4, t.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string location(const std::string& path, std::size_t line) {
  return path + ":" + std::to_string(line) + ": ";
}

// The one non-blank line of the part whose marker is at index `marker` (0-based), ending
// before index `end`.
std::string part_text(const std::vector<std::string>& lines, std::size_t marker, std::size_t end,
                      const std::string& path) {
  const std::string name(trim(lines[marker]));
  std::string text;
  std::size_t first = 0;  // the index of the part's line; 0 (a marker's place) for none yet
  for (std::size_t i = marker + 1; i < end; ++i) {
    if (trim(lines[i]).empty()) continue;
    HEED_CHECK(first == 0, location(path, i + 1), "a second line under ", name,
               " (the first is line ", first + 1, "); expected the subject on one line: ", kLayout);
    first = i;
    text = collapse_whitespace(lines[i]);
  }
  HEED_CHECK(first != 0, location(path, marker + 1), name,
             " has no subject under it; expected a non-empty line below it");
  return text;
}

}  // namespace

std::string collapse_whitespace(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool gap = false;
  for (char c : text) {
    if (is_blank_char(c)) {
      gap = !out.empty();
      continue;
    }
    if (gap) out.push_back(' ');
    gap = false;
    out.push_back(c);
  }
  return out;
}

std::string first_words(std::string_view line, std::size_t max_words) {
  if (max_words == 0) return std::string(line);
  std::size_t seen = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] != ' ' && (i == 0 || line[i - 1] == ' ') && ++seen > max_words) {
      std::size_t end = i;
      while (end > 0 && line[end - 1] == ' ') --end;
      return std::string(line.substr(0, end));
    }
  }
  return std::string(line);
}

std::size_t truncate_bodies(AeslcCorpus& corpus, std::size_t max_words) {
  std::size_t cut = 0;
  for (auto* split : {&corpus.train, &corpus.dev, &corpus.test})
    for (AeslcEmail& e : *split) {
      std::string body = first_words(e.body, max_words);
      if (body.size() != e.body.size()) ++cut;
      e.body = std::move(body);
    }
  return cut;
}

AeslcEmail parse_aeslc_email(const std::vector<std::string>& lines, const std::string& path,
                             bool annotated) {
  std::vector<std::size_t> markers;  // indices of the marker lines
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (is_marker(lines[i])) markers.push_back(i);
  HEED_CHECK(!markers.empty(), location(path, lines.size()),
             "the file ends without an @subject line; ", kLayout);
  const std::size_t subject_at = markers.front();
  HEED_CHECK(trim(lines[subject_at]) == "@subject", location(path, subject_at + 1),
             trim(lines[subject_at]), " before any @subject line; ", kLayout);

  AeslcEmail email;
  email.name = fs::path(path).filename().string();
  std::string body;
  for (std::size_t i = 0; i < subject_at; ++i) body += lines[i] + ' ';
  email.body = collapse_whitespace(body);
  HEED_CHECK(!email.body.empty(), location(path, subject_at + 1),
             "no email body before @subject; ", kLayout);

  // The parts in the order the layout has them: @subject, then @ann0.. for dev and test.
  for (std::size_t k = 0; k < markers.size(); ++k) {
    const std::size_t at = markers[k];
    const std::size_t end = k + 1 < markers.size() ? markers[k + 1] : lines.size();
    const std::string name(trim(lines[at]));
    if (k == 0) {
      email.subject = part_text(lines, at, end, path);
      continue;
    }
    HEED_CHECK(name != "@subject", location(path, at + 1), "a second @subject line (the first is line ",
               subject_at + 1, "); ", kLayout);
    HEED_CHECK(annotated, location(path, at + 1), name,
               " in a training email: only dev and test emails carry annotations; ", kLayout);
    const std::string expected = "@ann" + std::to_string(k - 1);
    HEED_CHECK(k <= static_cast<std::size_t>(kAeslcAnnotations), location(path, at + 1), name,
               " after @ann", kAeslcAnnotations - 1, ": expected the file to end there (",
               kAeslcAnnotations, " annotations, @ann0 to @ann", kAeslcAnnotations - 1, ")");
    HEED_CHECK(name == expected, location(path, at + 1), name, " where ", expected,
               " was expected; ", kLayout);
    email.annotations.push_back(part_text(lines, at, end, path));
  }
  if (annotated) {
    const std::size_t have = email.annotations.size();
    HEED_CHECK(have == static_cast<std::size_t>(kAeslcAnnotations), location(path, lines.size()),
               "the file ends after ", have == 0 ? std::string("the subject") : "@ann" + std::to_string(have - 1),
               " but a dev or test email needs @ann", have, " too (", kAeslcAnnotations,
               " annotations, @ann0 to @ann", kAeslcAnnotations - 1, ")");
  }
  return email;
}

AeslcEmail read_aeslc_email(const std::string& path, bool annotated) {
  std::error_code ec;
  HEED_CHECK(fs::file_size(path, ec) > 0 || ec, path, ": file is empty; ", kLayout);
  return parse_aeslc_email(read_lines(path), path, annotated);
}

std::vector<AeslcEmail> read_aeslc_split(const std::string& dir, bool annotated) {
  std::vector<std::string> paths;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    if (p.extension() == ".subject" && it->is_regular_file()) paths.push_back(p.string());
  }
  HEED_CHECK(!ec, dir, ": cannot list the folder (", ec.message(), ")");
  HEED_CHECK(!paths.empty(), dir, ": no .subject files; ", kLayout);
  std::sort(paths.begin(), paths.end());  // by name: the same order on every machine
  std::vector<AeslcEmail> emails;
  emails.reserve(paths.size());
  for (const std::string& p : paths) emails.push_back(read_aeslc_email(p, annotated));
  return emails;
}

AeslcCorpus read_aeslc(const std::string& dir) {
  std::error_code ec;
  HEED_CHECK(fs::is_directory(dir, ec), dir, ": no such folder; expected the unpacked AESLC "
             "(tar -xzf aeslc.tar.gz), which holds enron_subject_line/{train,dev,test}");
  fs::path root(dir);
  if (fs::is_directory(root / "enron_subject_line", ec)) root /= "enron_subject_line";
  std::vector<std::string> missing;
  for (const char* split : {"train", "dev", "test"})
    if (!fs::is_directory(root / split, ec)) missing.push_back(std::string(split) + "/");
  std::string names;
  for (std::size_t i = 0; i < missing.size(); ++i)
    names += (i == 0 ? "" : i + 1 == missing.size() ? " and " : ", ") + missing[i];
  HEED_CHECK(missing.empty(), root.string(), ": no ", names, missing.size() == 1 ? " folder" : " folders",
             "; expected the unpacked AESLC: enron_subject_line/ with train/, dev/ and test/ in "
             "it, or that folder itself");
  AeslcCorpus corpus;
  corpus.root = root.string();
  corpus.train = read_aeslc_split((root / "train").string(), false);
  corpus.dev = read_aeslc_split((root / "dev").string(), true);
  corpus.test = read_aeslc_split((root / "test").string(), true);
  return corpus;
}

void write_aeslc(const AeslcCorpus& corpus, const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  HEED_CHECK(!ec && fs::is_directory(dir), dir, ": cannot create the output directory",
             ec ? " (" + ec.message() + ")" : std::string());
  const fs::path out(dir);
  for (const auto& [name, emails] : {std::pair{"train", &corpus.train},
                                     std::pair{"dev", &corpus.dev}, std::pair{"test", &corpus.test}}) {
    std::vector<std::string> src, tgt;
    std::vector<std::vector<std::string>> refs;
    for (const AeslcEmail& e : *emails) {
      src.push_back(e.body);
      tgt.push_back(e.subject);
      refs.resize(std::max(refs.size(), e.annotations.size()));
      for (std::size_t k = 0; k < e.annotations.size(); ++k) refs[k].push_back(e.annotations[k]);
    }
    write_lines((out / (std::string(name) + ".src")).string(), src);
    write_lines((out / (std::string(name) + ".tgt")).string(), tgt);
    for (std::size_t k = 0; k < refs.size(); ++k)
      write_lines((out / (std::string(name) + ".ref" + std::to_string(k + 1))).string(), refs[k]);
  }
}

}  // namespace heed
