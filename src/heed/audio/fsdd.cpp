#include "heed/audio/fsdd.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <tuple>

#include "heed/base/error.h"
#include "heed/base/random.h"

namespace heed {
namespace {

namespace fs = std::filesystem;

bool speaker_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.';
}

// DIGIT_SPEAKER_INDEX (the name without .wav), or false.
bool parse_name(const std::string& stem, DigitRecording& r) {
  const auto first = stem.find('_'), last = stem.rfind('_');
  if (first != 1 || last == first || last + 1 >= stem.size()) return false;
  if (!std::isdigit(static_cast<unsigned char>(stem[0]))) return false;
  const std::string speaker = stem.substr(2, last - 2);
  const std::string index = stem.substr(last + 1);
  if (speaker.empty() || !std::all_of(speaker.begin(), speaker.end(), speaker_char)) return false;
  if (index.size() > 6 || !std::all_of(index.begin(), index.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
      }))
    return false;
  r.digit = stem[0] - '0';
  r.speaker = speaker;
  r.index = std::stoi(index);
  return true;
}

bool before(const DigitRecording& a, const DigitRecording& b) {
  return std::tie(a.speaker, a.digit, a.index) < std::tie(b.speaker, b.digit, b.index);
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

std::vector<DigitRecording> list_fsdd_recordings(const std::string& dir) {
  std::error_code ec;
  HEED_CHECK(fs::is_directory(dir, ec), dir,
             ": no such directory, expected FSDD's folder (holding recordings/) or the folder "
             "of its DIGIT_SPEAKER_INDEX.wav files");
  fs::path folder = fs::path(dir) / "recordings";
  if (!fs::is_directory(folder, ec)) folder = dir;
  std::vector<DigitRecording> out;
  for (const auto& entry : fs::directory_iterator(folder)) {
    if (entry.path().extension() != ".wav") continue;
    DigitRecording r;
    HEED_CHECK(parse_name(entry.path().stem().string(), r), entry.path().string(),
               ": a recording's name, expected DIGIT_SPEAKER_INDEX.wav (FSDD's names, e.g. "
               "3_theo_17.wav)");
    r.path = entry.path().string();
    out.push_back(std::move(r));
  }
  HEED_CHECK(!out.empty(), folder.string(),
             ": no recordings, expected FSDD's DIGIT_SPEAKER_INDEX.wav files there or in "
             "recordings/ under it");
  std::sort(out.begin(), out.end(), before);
  return out;
}

std::vector<std::string> fsdd_speakers(const std::vector<DigitRecording>& recordings) {
  std::vector<std::string> out;
  for (const auto& r : recordings) out.push_back(r.speaker);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

DigitSplit split_fsdd_recordings(const std::vector<DigitRecording>& recordings,
                                 const DigitSplitOptions& options) {
  if (!(options.dev_fraction >= 0 && options.dev_fraction < 1))
    throw UsageError("--dev-fraction " + std::to_string(options.dev_fraction) +
                     ": expected a fraction from 0 to below 1");
  const bool by_speaker = !options.test_speaker.empty();
  if (by_speaker) {
    const auto speakers = fsdd_speakers(recordings);
    if (!std::binary_search(speakers.begin(), speakers.end(), options.test_speaker))
      throw UsageError("--test-speaker " + options.test_speaker +
                       ": no recordings of that speaker; the speakers are " + joined(speakers));
  }
  DigitSplit split;
  std::vector<DigitRecording> pool;
  for (const auto& r : recordings) {
    const bool test = by_speaker ? r.speaker == options.test_speaker : r.index < kFsddTestIndices;
    (test ? split.test : pool).push_back(r);
  }
  std::sort(pool.begin(), pool.end(), before);
  Rng rng(options.seed);
  for (std::size_t i = pool.size(); i > 1; --i) std::swap(pool[i - 1], pool[rng.below(i)]);
  const auto dev = static_cast<std::size_t>(
      std::llround(options.dev_fraction * static_cast<double>(pool.size())));
  split.dev.assign(pool.begin(), pool.begin() + static_cast<std::ptrdiff_t>(dev));
  split.train.assign(pool.begin() + static_cast<std::ptrdiff_t>(dev), pool.end());
  std::sort(split.dev.begin(), split.dev.end(), before);
  std::sort(split.train.begin(), split.train.end(), before);
  std::sort(split.test.begin(), split.test.end(), before);
  HEED_CHECK(!split.train.empty() && (!split.dev.empty() || options.dev_fraction == 0),
             "the split leaves ", split.train.size(), " recordings for train, ", split.dev.size(),
             " for dev and ", split.test.size(), " for test (",
             by_speaker ? "test speaker " + options.test_speaker
                        : std::string("official split: indices 0-4 test"),
             ", dev fraction ", options.dev_fraction,
             "): expected some for train and, with a dev fraction above 0, for dev");
  return split;
}

}  // namespace heed
