// The row blocks that parallel decoding cuts a batch into (decode/sentence_blocks.h): each
// block's rows, lengths and ids, copy attention's map cut with them, the shortlist kept whole.
#include "heed/decode/sentence_blocks.h"

#include <gtest/gtest.h>

#include "heed/base/error.h"

namespace heed {
namespace {

TEST(RowBlock, CutsTheIdsAndTheCopyMapAlike) {
  TokenBatch b;
  b.batch = 3;
  b.len = 4;
  b.ids = {4, 5, 6, 2,  //
           7, 2, 0, 0,  //
           8, 9, 2, 0};
  b.lengths = {4, 2, 3};
  b.copy_ids = {10, 5, 11, 2,  //
                10, 2, 0, 0,   //
                12, 9, 2, 0};
  b.extended = 3;
  const TokenBatch part = detail::row_block(b, 1, 3);
  EXPECT_EQ(part.batch, 2);
  EXPECT_EQ(part.len, 3);  // the block's longest row
  EXPECT_EQ(part.ids, (std::vector<std::int32_t>{7, 2, 0, 8, 9, 2}));
  EXPECT_EQ(part.copy_ids, (std::vector<std::int32_t>{10, 2, 0, 12, 9, 2}));
  EXPECT_EQ(part.extended, 3);
  b.copy_ids.clear();
  EXPECT_TRUE(detail::row_block(b, 0, 1).copy_ids.empty());
  // A vocabulary shortlist is the whole batch's: every block keeps it (it was dropped, so
  // decoding on two threads ran without the shortlist).
  EXPECT_TRUE(part.shortlist.empty());
  b.shortlist = {0, 1, 2, 3, 7, 9};
  EXPECT_EQ(detail::row_block(b, 1, 3).shortlist, b.shortlist);
  EXPECT_THROW(detail::row_block(b, 2, 4), Error);
}

}  // namespace
}  // namespace heed
