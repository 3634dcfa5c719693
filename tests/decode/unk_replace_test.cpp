// UNK replacement: the most-attended source position of every UNK.
#include "heed/decode/unk_replace.h"

#include <gtest/gtest.h>

#include "decode/fake_model.h"
#include "heed/decode/greedy.h"

namespace heed::testing {
namespace {

TEST(UnkReplace, MostAttendedPosition) {
  Hypothesis h;
  h.tokens = {4, kUnk, kUnk, kEos};
  h.length = 4;
  h.attention = Tensor::from({4, 3}, {0.9, 0.05, 0.05,  //
                                      0.1, 0.2, 0.7,    //
                                      0.4, 0.4, 0.2,    // tie: the first position
                                      0.1, 0.8, 0.1});
  EXPECT_EQ(unk_source_positions(h), (std::vector<std::int64_t>{-1, 2, 0, -1}));
  const std::vector<std::string> tgt{"le", "<unk>", "<unk>"}, src{"Zurich", "the", "Rhine"};
  EXPECT_EQ(replace_unks(h, tgt, src), (std::vector<std::string>{"le", "Rhine", "Zurich"}));
  const std::vector<std::string> short_src{"a"};
  EXPECT_THROW(replace_unks(h, tgt, short_src), Error);
}

TEST(UnkReplace, NeedsAttentionOnlyWhenThereIsAnUnk) {
  Hypothesis h;
  h.tokens = {4, kEos};
  EXPECT_EQ(unk_source_positions(h), (std::vector<std::int64_t>{-1, -1}));
  h.tokens = {kUnk};
  EXPECT_THROW(unk_source_positions(h), Error);
}

TEST(UnkReplace, FromADecodedHypothesis) {
  // The model emits UNK then EOS; at the UNK step it attends to position 2 of 3.
  FakeModel model(
      6,
      [](std::int64_t, const Prefix& p) {
        return p.empty() ? dist(6, {{kUnk, 0.9}, {kEos, 0.1}}) : dist(6, {{kEos, 1.0}});
      },
      [](std::int64_t, const Prefix& p, std::int64_t m) {
        std::vector<double> a(static_cast<std::size_t>(m), 0.0);
        a[p.empty() ? 2 : 0] = 1.0;
        return a;
      });
  DecodeResult r = greedy_decode(model, make_batch({{4, 5, 4}}));
  EXPECT_EQ(unk_source_positions(r.best(0)), (std::vector<std::int64_t>{2, -1}));
}

}  // namespace
}  // namespace heed::testing
