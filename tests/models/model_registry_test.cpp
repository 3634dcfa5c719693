// The model-kind registry: every kind has an entry, its defaults and its source-length limit.
#include <gtest/gtest.h>

#include "heed/models/model_registry.h"

namespace heed {
namespace {

TEST(ModelRegistry, EveryKindHasAnEntry) {
  for (const auto& n : enum_names(ModelKind{})) EXPECT_EQ(model_kind_spec(n.value).kind, n.value);
}

TEST(ModelRegistry, DefaultEncoderCells) {
  ModelConfig c;
  EXPECT_EQ(encoder_cell(c), RnnCell::gru);
  c.kind = ModelKind::luong;
  EXPECT_EQ(encoder_cell(c), RnnCell::lstm);
  c.encoder_cell = RnnCell::gru;
  EXPECT_EQ(encoder_cell(c), RnnCell::gru);
}

// Only the location score has a weight row per source position, so only it limits the source.
TEST(ModelRegistry, LongestSource) {
  ModelConfig c;
  c.max_src_len = 17;
  EXPECT_EQ(max_source_length(c), 0);
  c.kind = ModelKind::luong;
  c.score = AttentionScore::general;
  EXPECT_EQ(max_source_length(c), 0);
  c.score = AttentionScore::location;
  EXPECT_EQ(max_source_length(c), 17);
  c.kind = ModelKind::noattn;
  EXPECT_EQ(max_source_length(c), 0);
}

}  // namespace
}  // namespace heed
