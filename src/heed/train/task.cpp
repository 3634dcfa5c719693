#include "heed/train/task.h"

#include <cstdio>

#include "heed/base/error.h"
#include "heed/data/batch_sampler.h"

namespace heed {

void TrainingTask::plan_dev_batches() {
  BatchOptions bo;
  bo.max_tokens = static_cast<std::size_t>(training().max_tokens);
  bo.max_sentences = static_cast<std::size_t>(training().max_sentences);
  bo.shuffle = false;
  bo.pool_size = 0;
  Rng unused(0);
  dev_plan_ = plan_batches(dev_corpus_, bo, unused);
}

void set_vocabulary_size(std::int64_t& field, std::size_t size, const char* key) {
  const auto n = static_cast<std::int64_t>(size);
  HEED_CHECK(field == 0 || field == n, "model.", key, " is ", field, " but the vocabulary has ",
             n, " entries; leave it 0 (it is set from the vocabulary)");
  field = n;
}

std::string format_number(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

}  // namespace heed
