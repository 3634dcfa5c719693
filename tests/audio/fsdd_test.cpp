// FSDD's recordings: names read, the folder found, bad names refused; the official split
// (indices 0-4 test), a held-out speaker, dev drawn from training recordings by seed.
#include "heed/audio/fsdd.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "data/temp_dir.h"
#include "heed/base/error.h"

namespace heed {
namespace {

using testing::TempDir;

// Empty files named as FSDD names its recordings (listing reads names only).
void touch_recordings(const std::string& dir, const std::vector<std::string>& speakers,
                      int digits, int indices) {
  std::filesystem::create_directories(dir);
  for (const auto& s : speakers)
    for (int d = 0; d < digits; ++d)
      for (int i = 0; i < indices; ++i)
        std::ofstream(dir + "/" + std::to_string(d) + "_" + s + "_" + std::to_string(i) + ".wav");
}

TEST(Fsdd, ListsRecordingsSortedFromRecordingsOrTheFolderItself) {
  TempDir dir;
  touch_recordings(dir.file("fsdd/recordings"), {"theo", "george"}, 2, 12);
  std::ofstream(dir.file("fsdd/recordings/README.md")) << "not a recording\n";
  for (const std::string& where : {dir.file("fsdd"), dir.file("fsdd/recordings")}) {
    const auto r = list_fsdd_recordings(where);
    ASSERT_EQ(r.size(), 48u);
    EXPECT_EQ(r[0].speaker, "george");
    EXPECT_EQ(r[0].digit, 0);
    EXPECT_EQ(r[0].index, 0);
    EXPECT_EQ(r[1].index, 1);
    EXPECT_EQ(r[2].index, 2);  // by number: 2 before 10
    EXPECT_EQ(r[11].index, 11);
    EXPECT_EQ(r[12].digit, 1);
    EXPECT_EQ(r.back().speaker, "theo");
    EXPECT_EQ(std::filesystem::path(r.back().path).filename(), "1_theo_11.wav");
    EXPECT_EQ(fsdd_speakers(r), (std::vector<std::string>{"george", "theo"}));
  }
}

std::string list_error(const std::string& dir) {
  try {
    list_fsdd_recordings(dir);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Fsdd, RefusesBadNamesAndEmptyFolders) {
  TempDir dir;
  EXPECT_EQ(list_error(dir.file("none")),
            dir.file("none") + ": no such directory, expected FSDD's folder (holding "
                               "recordings/) or the folder of its DIGIT_SPEAKER_INDEX.wav files");
  std::filesystem::create_directories(dir.file("empty"));
  EXPECT_EQ(list_error(dir.file("empty")),
            dir.file("empty") + ": no recordings, expected FSDD's DIGIT_SPEAKER_INDEX.wav files "
                                "there or in recordings/ under it");
  for (const std::string name : {"x_theo_1.wav", "12_theo_1.wav", "3_theo.wav", "3__1.wav",
                                 "3_theo_x.wav", "3_th eo_1.wav"}) {
    std::filesystem::remove_all(dir.file("bad"));
    std::filesystem::create_directories(dir.file("bad"));
    std::ofstream(dir.file("bad/" + name));
    EXPECT_EQ(list_error(dir.file("bad")),
              dir.file("bad/" + name) + ": a recording's name, expected DIGIT_SPEAKER_INDEX.wav "
                                        "(FSDD's names, e.g. 3_theo_17.wav)");
  }
}

std::vector<DigitRecording> recordings(const std::vector<std::string>& speakers, int indices) {
  std::vector<DigitRecording> out;
  for (const auto& s : speakers)
    for (int d = 0; d < 10; ++d)
      for (int i = 0; i < indices; ++i) out.push_back({d, s, i, s + std::to_string(d * 100 + i)});
  return out;
}

TEST(Fsdd, OfficialSplitTestsIndicesZeroToFour) {
  const auto all = recordings({"a", "b", "c"}, 50);
  DigitSplitOptions o;
  o.dev_fraction = 0.1;
  const DigitSplit s = split_fsdd_recordings(all, o);
  EXPECT_EQ(s.test.size(), 150u);
  EXPECT_EQ(s.dev.size(), 135u);  // 10% of 1350
  EXPECT_EQ(s.train.size(), 1215u);
  for (const auto& r : s.test) EXPECT_LT(r.index, 5);
  for (const auto& r : s.train) EXPECT_GE(r.index, 5);
  for (const auto& r : s.dev) EXPECT_GE(r.index, 5);
  std::set<std::string> train_paths;
  for (const auto& r : s.train) train_paths.insert(r.path);
  for (const auto& r : s.dev) EXPECT_EQ(train_paths.count(r.path), 0u) << r.path;
  // The same seed, the same dev; another seed, another.
  EXPECT_EQ(split_fsdd_recordings(all, o).dev.front().path, s.dev.front().path);
  o.seed = 99;
  const DigitSplit t = split_fsdd_recordings(all, o);
  std::vector<std::string> a, b;
  for (const auto& r : s.dev) a.push_back(r.path);
  for (const auto& r : t.dev) b.push_back(r.path);
  EXPECT_NE(a, b);
  EXPECT_EQ(t.test.size(), 150u);
}

TEST(Fsdd, HeldOutSpeakerIsTheWholeTestSet) {
  const auto all = recordings({"a", "b", "c"}, 50);
  DigitSplitOptions o;
  o.test_speaker = "b";
  o.dev_fraction = 0.2;
  const DigitSplit s = split_fsdd_recordings(all, o);
  EXPECT_EQ(s.test.size(), 500u);
  for (const auto& r : s.test) EXPECT_EQ(r.speaker, "b");
  EXPECT_EQ(s.dev.size(), 200u);
  EXPECT_EQ(s.train.size(), 800u);
  for (const auto& r : s.train) EXPECT_NE(r.speaker, "b");
  for (const auto& r : s.dev) EXPECT_NE(r.speaker, "b");
  o.test_speaker = "zed";
  try {
    split_fsdd_recordings(all, o);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "--test-speaker zed: no recordings of that speaker; the speakers are "
                           "a, b, c");
  }
}

TEST(Fsdd, RefusesASplitWithNothingToTrainOn) {
  DigitSplitOptions o;
  EXPECT_THROW(split_fsdd_recordings(recordings({"a"}, 5), o), Error);  // all test
  o.test_speaker = "a";
  EXPECT_THROW(split_fsdd_recordings(recordings({"a"}, 50), o), Error);
  o = {};
  o.dev_fraction = 1.0;
  EXPECT_THROW(split_fsdd_recordings(recordings({"a"}, 50), o), UsageError);
  o.dev_fraction = 0;
  EXPECT_TRUE(split_fsdd_recordings(recordings({"a"}, 50), o).dev.empty());
}

}  // namespace
}  // namespace heed
