#include <gtest/gtest.h>

#include <string>

#include "heed/models/model_config.h"
#include "heed/models/model_registry.h"
#include "heed/train/task.h"

namespace heed {
namespace {

// Every model kind is trained by exactly one family's task (training_task_spec throws when
// none or two claim a kind), and the family is the one its model calls for.
TEST(TaskRegistry, EveryKindHasOneTrainingTask) {
  for (const auto& entry : kModelKindNames) {
    SCOPED_TRACE(entry.name);
    const TrainingTaskSpec& spec = training_task_spec(entry.value);
    const std::string family = spec.family;
    if (classifies_images(entry.value)) EXPECT_EQ(family, "image classification");
    else if (is_image_to_sequence(entry.value)) EXPECT_EQ(family, "image to sequence");
    else if (answers_questions(entry.value)) EXPECT_EQ(family, "question answering");
    else if (transcribes_speech(entry.value)) EXPECT_EQ(family, "speech to text");
    else EXPECT_EQ(family, "sequence to sequence");
    EXPECT_NE(spec.make, nullptr);
  }
}

TEST(TaskRegistry, TheFamiliesOfTheKinds) {
  EXPECT_STREQ(training_task_spec(ModelKind::bahdanau).family, "sequence to sequence");
  EXPECT_STREQ(training_task_spec(ModelKind::luong).family, "sequence to sequence");
  EXPECT_STREQ(training_task_spec(ModelKind::noattn).family, "sequence to sequence");
  EXPECT_STREQ(training_task_spec(ModelKind::ram).family, "image classification");
  EXPECT_STREQ(training_task_spec(ModelKind::fc).family, "image classification");
  EXPECT_STREQ(training_task_spec(ModelKind::cnn).family, "image classification");
  EXPECT_STREQ(training_task_spec(ModelKind::image2seq).family, "image to sequence");
  EXPECT_STREQ(training_task_spec(ModelKind::las).family, "speech to text");
}

}  // namespace
}  // namespace heed
