// Speech manifests (data/speech_manifest.h): paths resolved against the manifest's folder,
// absolute paths kept, transcripts as written, and every malformed line named by file and line.
#include "heed/data/speech_manifest.h"

#include <gtest/gtest.h>

#include "data/temp_dir.h"
#include "heed/base/error.h"

namespace heed {
namespace {

using testing::TempDir;

std::string error_of(const std::string& path) {
  try {
    read_speech_manifest(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(SpeechManifest, ResolvesPathsAgainstTheManifestsFolder) {
  TempDir dir;
  const std::string path =
      dir.write("train.tsv", "wav/a.wav\tone two\n/abs/b.wav\tthree  four \nc.wav\tfive\tsix\n");
  const std::vector<SpeechUtterance> u = read_speech_manifest(path);
  ASSERT_EQ(u.size(), 3u);
  EXPECT_EQ(u[0].audio_path, dir.file("wav/a.wav"));
  EXPECT_EQ(u[0].transcript, "one two");
  EXPECT_EQ(u[0].line, 1u);
  EXPECT_EQ(u[1].audio_path, "/abs/b.wav");
  EXPECT_EQ(u[1].transcript, "three  four ");  // as written: the tokeniser splits it
  EXPECT_EQ(u[2].audio_path, dir.file("c.wav"));
  EXPECT_EQ(u[2].transcript, "five\tsix");  // the first TAB ends the path
  EXPECT_EQ(u[2].line, 3u);
}

TEST(SpeechManifest, NamesTheFileAndLineOfEveryMalformedLine) {
  TempDir dir;
  EXPECT_EQ(error_of(dir.write("a.tsv", "x.wav\tone\nno tab here\n")),
            dir.file("a.tsv") + ":2: expected a WAV file's path, a TAB and its transcript, got "
                                "'no tab here'");
  EXPECT_EQ(error_of(dir.write("b.tsv", "\tone\n")),
            dir.file("b.tsv") + ":1: empty WAV path before the TAB");
  EXPECT_EQ(error_of(dir.write("c.tsv", "x.wav\tone\ny.wav\t  \n")),
            dir.file("c.tsv") + ":2: empty transcript after the TAB");
  EXPECT_EQ(error_of(dir.write("d.tsv", "")),
            dir.file("d.tsv") + ": no utterance (expected lines of a WAV path, a TAB and its "
                                "transcript)");
  EXPECT_NE(error_of(dir.file("missing.tsv")).find("missing.tsv"), std::string::npos);
}

}  // namespace
}  // namespace heed
