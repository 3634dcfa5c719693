#pragma once
// The Free Spoken Digit Dataset (FSDD; docs/DATA.md, "Spoken digits"): recordings named
// DIGIT_SPEAKER_INDEX.wav (3_theo_17.wav: speaker theo's 18th "three"), and the splits of
// `heed data digits`: the dataset's official one (indices 0-4 test, the others train) or a
// held-out speaker (every recording of one speaker test, the others train), with a dev set
// drawn from the training recordings by seed.
#include <cstdint>
#include <string>
#include <vector>

namespace heed {

struct DigitRecording {
  int digit = 0;  // 0-9
  std::string speaker;
  int index = 0;
  std::string path;
};

// Recording indices below this are the official test split.
inline constexpr int kFsddTestIndices = 5;

// The recordings in dir/recordings (FSDD's layout) or, when there is no such folder, in dir
// itself, sorted by speaker, digit and index. Other files than *.wav are ignored. Throws
// heed::Error for a missing directory, for a .wav file not named DIGIT_SPEAKER_INDEX.wav
// (DIGIT 0-9, SPEAKER letters, digits, '-' or '.', INDEX a number) and when there are none.
std::vector<DigitRecording> list_fsdd_recordings(const std::string& dir);

// The speakers of the recordings, sorted, each once.
std::vector<std::string> fsdd_speakers(const std::vector<DigitRecording>& recordings);

struct DigitSplitOptions {
  std::string test_speaker;   // empty: the official split
  double dev_fraction = 0.1;  // of the training recordings, for dev
  std::uint64_t seed = 1234;
};

struct DigitSplit {
  std::vector<DigitRecording> train, dev, test;  // each sorted as listed
};

// Test: the official indices, or every recording of test_speaker (UsageError naming the
// speakers there when there is none of them). Dev: round(N * dev_fraction) of the N other
// recordings, the first after a Fisher-Yates shuffle with Rng(seed) of the sorted list
// (Rng::below); train: the rest. Throws heed::Error when nothing is left for training or a
// dev fraction above 0 gives no dev recording, UsageError for a fraction outside [0, 1).
DigitSplit split_fsdd_recordings(const std::vector<DigitRecording>& recordings,
                                 const DigitSplitOptions& options);

}  // namespace heed
