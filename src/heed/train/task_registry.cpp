// The training tasks, one per family of models. Adding a family: its task file defines
// `extern const TrainingTaskSpec k<Family>Task` and the list below names it.
#include "heed/base/error.h"
#include "heed/train/task.h"

namespace heed {

// Each defined in its task's file.
extern const TrainingTaskSpec kSeq2SeqTask;
extern const TrainingTaskSpec kImageClassificationTask;
extern const TrainingTaskSpec kImageToSequenceTask;
extern const TrainingTaskSpec kQuestionAnsweringTask;
extern const TrainingTaskSpec kSpeechToTextTask;

namespace {
const TrainingTaskSpec* const kTasks[] = {&kSeq2SeqTask, &kImageClassificationTask,
                                          &kImageToSequenceTask, &kQuestionAnsweringTask,
                                          &kSpeechToTextTask};
}  // namespace

const TrainingTaskSpec& training_task_spec(ModelKind kind) {
  const TrainingTaskSpec* found = nullptr;
  for (const TrainingTaskSpec* task : kTasks) {
    if (!task->trains(kind)) continue;
    HEED_CHECK(!found, "model.kind ", enum_name(kind), ": both the ", found->family, " and the ",
               task->family, " tasks train it; a kind belongs to one family");
    found = task;
  }
  HEED_CHECK(found, "model.kind ", enum_name(kind), ": no training task trains it");
  return *found;
}

std::unique_ptr<TrainingTask> make_training_task(const TaskContext& context) {
  return training_task_spec(context.config.model.kind).make(context);
}

}  // namespace heed
