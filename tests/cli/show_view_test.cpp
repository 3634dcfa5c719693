// The views of `heed show` (cli/show_view.h): every model kind but las has one, reading the items its
// kind takes, and the kinds drawn from images are listed as the command's message names them.
#include <gtest/gtest.h>

#include "heed/cli/show_view.h"
#include "heed/models/model_registry.h"

namespace heed::cli {
namespace {

// Every kind but the speech model's (las: no view yet, refused by name).
TEST(ShowView, EveryKindHasAViewThatDrawsItFromWhatItReads) {
  for (const auto& [kind, name] : kModelKindNames) {
    if (transcribes_speech(kind)) {
      try {
        show_view(kind);
        ADD_FAILURE() << name << " has a view: test it here";
      } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()), "no view of heed show draws model.kind las yet");
      }
      continue;
    }
    const ShowView& view = show_view(kind);
    EXPECT_TRUE(view.draws(kind)) << name;
    EXPECT_NE(view.show, nullptr) << name;
    EXPECT_EQ(view.input, takes_images(kind) ? ShowInput::images : ShowInput::sentences) << name;
  }
}

TEST(ShowView, TheViewsOfOneFamilyAreOne) {
  EXPECT_EQ(&show_view(ModelKind::bahdanau), &show_view(ModelKind::noattn));
  EXPECT_EQ(&show_view(ModelKind::ram), &show_view(ModelKind::cnn));
  EXPECT_NE(&show_view(ModelKind::ram), &show_view(ModelKind::image2seq));
  EXPECT_NE(&show_view(ModelKind::bahdanau), &show_view(ModelKind::image2seq));
  EXPECT_NE(&show_view(ModelKind::bahdanau), &show_view(ModelKind::memn2n));
}

TEST(ShowView, ListsTheKindsDrawnFromEachInput) {
  EXPECT_EQ(kinds_shown_from(ShowInput::images), "ram, fc, cnn and image2seq");
  EXPECT_EQ(kinds_shown_from(ShowInput::sentences),
            "bahdanau, luong, noattn, memn2n and transformer");
}

}  // namespace
}  // namespace heed::cli
