#include "heed/cli/data_digits.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "heed/audio/resample.h"
#include "heed/audio/wav_file.h"
#include "heed/base/atomic_file.h"
#include "heed/base/error.h"
#include "heed/cli/validators.h"

namespace heed::cli {
namespace {

namespace fs = std::filesystem;

// The seed of each split's utterances: Rng(seed + offset); the dev recordings are drawn with
// Rng(seed) itself (split_fsdd_recordings).
constexpr std::uint64_t kTrainSeedOffset = 1, kDevSeedOffset = 2, kTestSeedOffset = 3;

// Each recording read, mixed down and resampled to the utterances' rate.
std::vector<DigitClip> read_clips(const std::vector<DigitRecording>& recordings, int rate) {
  std::vector<DigitClip> clips;
  clips.reserve(recordings.size());
  for (const DigitRecording& r : recordings)
    clips.push_back(DigitClip{r.digit, resample(read_wav(r.path), rate).samples});
  return clips;
}

// Writes count utterances into <out>/<split>/NNNNNN.wav (the folder exists),
// <out>/<split>.tsv (the wav's path relative to out, a TAB, the transcript) and
// <out>/<split>.noise.tsv (the same path, a TAB, the noise kind, a TAB, the SNR in dB, a TAB,
// the quietest digit's SNR in dB, so that errors can be broken down by noise:
// examples/digits/snr_bands.sh); returns their
// seconds of audio. Progress on stderr.
double write_split(const std::string& out, const char* split, std::int64_t count,
                   const std::vector<DigitClip>& clips, const ConnectedDigitsOptions& options,
                   std::uint64_t seed) {
  Rng rng(seed);
  std::ostringstream tsv, noise;
  double seconds = 0;
  const std::int64_t every = std::max<std::int64_t>(1, count / 10);
  for (std::int64_t i = 0; i < count; ++i) {
    const ConnectedDigits u = make_connected_digits(clips, options, rng);
    char name[32];
    std::snprintf(name, sizeof name, "%06lld.wav", static_cast<long long>(i));
    const std::string relative = std::string(split) + "/" + name;
    write_wav((fs::path(out) / relative).string(), u.samples, options.sample_rate);
    tsv << relative << '\t' << digit_words(u.digits) << '\n';
    char snr[64];
    std::snprintf(snr, sizeof snr, "%.2f\t%.2f", u.snr_db, u.min_digit_snr_db);
    noise << relative << '\t' << enum_name(u.noise) << '\t' << snr << '\n';
    seconds += static_cast<double>(u.samples.size()) / options.sample_rate;
    if ((i + 1) % every == 0 || i + 1 == count)
      std::cerr << "heed data digits: " << split << " " << i + 1 << "/" << count
                << " utterances\n";
  }
  write_file_atomically((fs::path(out) / (std::string(split) + ".noise.tsv")).string(),
                        noise.str());
  write_file_atomically((fs::path(out) / (std::string(split) + ".tsv")).string(), tsv.str());
  return seconds;
}

// <out>/<split>, created (with out) if missing.
void make_split_directory(const std::string& out, const char* split) {
  const fs::path folder = fs::path(out) / split;
  std::error_code ec;
  fs::create_directories(folder, ec);
  HEED_CHECK(!ec && fs::is_directory(folder, ec), folder.string(),
             ": cannot create the directory of the ", split, " utterances (",
             ec ? ec.message() : std::string("a file of that name exists"), ")");
}

// A split asked for utterances needs recordings to draw them from.
void require_clips(const char* split, std::int64_t count, const std::vector<DigitClip>& clips,
                   const char* option) {
  HEED_CHECK(count == 0 || !clips.empty(), "no recordings for the ", split,
             " split, expected some for its ", count, " utterances (", option,
             " 0 makes none)");
}

void print_split(const char* name, std::int64_t count, double seconds, std::size_t recordings,
                 const std::string& out) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "  %-5s %7lld utterances %8.1f s  from %5zu recordings  ", name,
                static_cast<long long>(count), seconds, recordings);
  std::cout << buf << (fs::path(out) / (std::string(name) + ".tsv")).string() << "\n";
}

}  // namespace

void DataDigits::setup(CLI::App& data) {
  app_ = data.add_subcommand("digits", "Connected-digit utterances (1 to 7 digits with pauses, "
                                       "gains and noise) from the Free Spoken Digit Dataset");
  CLI::App& a = *app_;
  a.add_option("--fsdd", fsdd_, "FSDD's folder (holding recordings/) or its recordings' folder")
      ->required();
  a.add_option("--out,-o", out_, "output directory (created if missing)")->required();
  a.add_option("--seed", split_.seed, "seed of every random choice")->capture_default_str();
  a.add_option("--count", count_, "training utterances")
      ->check(int_range(0, 1'000'000))
      ->capture_default_str();
  a.add_option("--dev-count", dev_count_, "dev utterances")
      ->check(int_range(0, 1'000'000))
      ->capture_default_str();
  a.add_option("--test-count", test_count_, "test utterances")
      ->check(int_range(0, 1'000'000))
      ->capture_default_str();
  a.add_option("--test-speaker", split_.test_speaker,
               "hold this speaker out: all their recordings test, the others' train and dev "
               "(default: the official split, indices 0-4 test)");
  a.add_option("--dev-fraction", split_.dev_fraction,
               "share of the training recordings set aside for dev utterances")
      ->check(real_range(0, 0.99))
      ->capture_default_str();
  a.add_option("--rate", options_.sample_rate, "sample rate of the utterances (Hz)")
      ->check(int_range(1000, 192000))
      ->capture_default_str();
  a.add_option("--min-digits", options_.min_digits, "fewest digits per utterance")
      ->check(int_range(1, 50))
      ->capture_default_str();
  a.add_option("--max-digits", options_.max_digits, "most digits per utterance")
      ->check(int_range(1, 50))
      ->capture_default_str();
  a.add_option("--levels", levels_,
               "equal: each recording scaled to one level (RMS -20 dBFS) before its digit's "
               "gain; recorded: the recordings' own levels, 20 dB apart between FSDD's speakers "
               "(the data of runs before 2026-11-30)")
      ->check(CLI::IsMember({"equal", "recorded"}))
      ->capture_default_str();
  a.add_option("--speed", speed_,
               "MIN,MAX: each training utterance's digits played at a speed drawn between "
               "them (tempo and pitch; dev and test keep 1)")
      ->delimiter(',')
      ->expected(2)
      ->check(real_range(0.5, 2.0));
  a.footer(
      "Writes OUT/train/000000.wav ... (16-bit PCM mono) and OUT/train.tsv (a line per\n"
      "utterance: its wav path relative to OUT, a TAB, the digits as words: four zero seven),\n"
      "OUT/train.noise.tsv (the path, its noise: white or pink, its SNR and its quietest\n"
      "digit's SNR in dB), the same for dev and test. Training and dev utterances use\n"
      "training recordings only, test utterances test recordings only (docs/cli/data.md).");
}

int DataDigits::run() {
  {  // before anything is read: --out names a directory, and a file there is the user's
    std::error_code ec;
    HEED_CHECK(!fs::exists(out_, ec) || fs::is_directory(out_, ec), out_,
               ": exists and is not a directory; --out names the directory to write the "
               "utterances into");
  }
  options_.equal_levels = levels_ == "equal";
  ConnectedDigitsOptions train_options = options_;
  if (!speed_.empty()) {
    train_options.min_speed = speed_[0];
    train_options.max_speed = speed_[1];
  }
  validate(train_options);
  const std::vector<DigitRecording> recordings = list_fsdd_recordings(fsdd_);
  const DigitSplit split = split_fsdd_recordings(recordings, split_);
  // Every recording is read before anything is written: a bad file writes nothing.
  const std::vector<DigitClip> train = read_clips(split.train, options_.sample_rate);
  const std::vector<DigitClip> dev = read_clips(split.dev, options_.sample_rate);
  const std::vector<DigitClip> test = read_clips(split.test, options_.sample_rate);
  const auto speakers = fsdd_speakers(recordings);
  std::cout << "read FSDD (" << fsdd_ << "): " << recordings.size() << " recordings of "
            << speakers.size() << " speakers (";
  for (std::size_t i = 0; i < speakers.size(); ++i) std::cout << (i ? ", " : "") << speakers[i];
  std::cout << "), resampled to " << options_.sample_rate << " Hz\n";
  if (split_.test_speaker.empty())
    std::cout << "official split: recording indices 0-" << kFsddTestIndices - 1
              << " test, the others train";
  else
    std::cout << "held-out speaker " << split_.test_speaker << ": test, the others train";
  std::cout << "; dev " << split_.dev_fraction << " of the training recordings, seed "
            << split_.seed << "; " << options_.min_digits << "-" << options_.max_digits
            << " digits per utterance";
  if (train_options.min_speed != 1.0 || train_options.max_speed != 1.0)
    std::cout << "; training digits at speed " << train_options.min_speed << " to "
              << train_options.max_speed;
  std::cout << (options_.equal_levels ? "; every recording at one level before its gain"
                                      : "; the recordings' own levels");
  std::cout << ":\n";
  require_clips("train", count_, train, "--count");
  require_clips("dev", dev_count_, dev, "--dev-count");
  require_clips("test", test_count_, test, "--test-count");
  for (const char* split : {"train", "dev", "test"}) make_split_directory(out_, split);
  const std::uint64_t seed = split_.seed;
  const double train_s =
      write_split(out_, "train", count_, train, train_options, seed + kTrainSeedOffset);
  const double dev_s = write_split(out_, "dev", dev_count_, dev, options_, seed + kDevSeedOffset);
  const double test_s =
      write_split(out_, "test", test_count_, test, options_, seed + kTestSeedOffset);
  print_split("train", count_, train_s, train.size(), out_);
  print_split("dev", dev_count_, dev_s, dev.size(), out_);
  print_split("test", test_count_, test_s, test.size(), out_);
  return 0;
}

}  // namespace heed::cli
