// The views of `heed show` (cli/show_view.h): every model kind has one, reading the items its
// kind takes, and the kinds drawn from images and audio are listed as the command's message
// names them.
#include <gtest/gtest.h>

#include "heed/cli/show_view.h"
#include "heed/models/model_registry.h"

namespace heed::cli {
namespace {

TEST(ShowView, EveryKindHasAViewThatDrawsItFromWhatItReads) {
  for (const auto& [kind, name] : kModelKindNames) {
    const ShowView& view = show_view(kind);
    EXPECT_TRUE(view.draws(kind)) << name;
    EXPECT_NE(view.show, nullptr) << name;
    EXPECT_EQ(view.input, takes_images(kind)         ? ShowInput::images
                          : transcribes_speech(kind) ? ShowInput::audio
                                                     : ShowInput::sentences)
        << name;
  }
}

TEST(ShowView, TheViewsOfOneFamilyAreOne) {
  EXPECT_EQ(&show_view(ModelKind::bahdanau), &show_view(ModelKind::noattn));
  EXPECT_EQ(&show_view(ModelKind::ram), &show_view(ModelKind::cnn));
  EXPECT_NE(&show_view(ModelKind::ram), &show_view(ModelKind::image2seq));
  EXPECT_NE(&show_view(ModelKind::bahdanau), &show_view(ModelKind::image2seq));
  EXPECT_NE(&show_view(ModelKind::bahdanau), &show_view(ModelKind::memn2n));
  EXPECT_NE(&show_view(ModelKind::bahdanau), &show_view(ModelKind::las));
}

TEST(ShowView, ListsTheKindsDrawnFromEachInput) {
  EXPECT_EQ(kinds_shown_from(ShowInput::images), "ram, fc, cnn and image2seq");
  EXPECT_EQ(kinds_shown_from(ShowInput::sentences),
            "bahdanau, luong, noattn, memn2n and transformer");
  EXPECT_EQ(kinds_shown_from(ShowInput::audio), "las");
}

}  // namespace
}  // namespace heed::cli
