// The model-kind registry: every kind has an entry, its defaults and its source-length limit.
#include <gtest/gtest.h>

#include "heed/models/model_registry.h"

namespace heed {
namespace {

TEST(ModelRegistry, EveryKindHasAnEntry) {
  for (const auto& n : enum_names(ModelKind{})) EXPECT_EQ(model_kind_spec(n.value).kind, n.value);
}

// The families of models/model_config.h agree with what each entry builds: an image
// classifier builds a classifier and no encoder–decoder, a memory network neither (its task
// builds it), every other kind an encoder–decoder and no classifier.
TEST(ModelRegistry, FamiliesAgreeWithTheBuilders) {
  for (const auto& n : enum_names(ModelKind{})) {
    SCOPED_TRACE(n.name);
    const ModelKindSpec& spec = model_kind_spec(n.value);
    EXPECT_EQ(classifies_images(n.value) || answers_questions(n.value), spec.build == nullptr);
    EXPECT_EQ(classifies_images(n.value), spec.build_classifier != nullptr);
    EXPECT_EQ(takes_images(n.value), classifies_images(n.value) || is_image_to_sequence(n.value));
  }
  EXPECT_EQ(model_family(ModelKind::luong), ModelFamily::sequence_to_sequence);
  EXPECT_EQ(model_family(ModelKind::cnn), ModelFamily::image_classification);
  EXPECT_EQ(model_family(ModelKind::image2seq), ModelFamily::image_to_sequence);
  EXPECT_EQ(model_family(ModelKind::memn2n), ModelFamily::question_answering);
  EXPECT_FALSE(takes_images(ModelKind::memn2n));
  EXPECT_FALSE(is_sequence_to_sequence(ModelKind::memn2n));
  EXPECT_FALSE(model_kind_traits(ModelKind::noattn).attention_decoder);
  EXPECT_TRUE(model_kind_traits(ModelKind::image2seq).attention_decoder);
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
