#include "heed/autograd/bag_of_words_op.h"

#include "heed/autograd/tape.h"
#include "heed/base/error.h"

namespace heed {

Var bag_of_words(const Var& table, const Var& temporal,
                 const std::shared_ptr<const WordRowBatch>& rows, bool position) {
  const Tensor& tv = table.value();
  HEED_CHECK(tv.ndim() == 2 && tv.is_contiguous(), "bag_of_words: the table must be a "
             "contiguous 2-D tensor, got ", tv.shape().str());
  const std::int64_t V = tv.dim(0), dim = tv.dim(1);
  const WordRowBatch& r = *rows;
  HEED_CHECK(r.rows >= 0 && r.width >= 0 &&
                 r.ids.size() == static_cast<std::size_t>(r.rows * r.width) &&
                 r.lengths.size() == static_cast<std::size_t>(r.rows),
             "bag_of_words: ", r.ids.size(), " ids and ", r.lengths.size(),
             " lengths for ", r.rows, " rows of ", r.width);
  for (std::int64_t i = 0; i < r.rows; ++i) {
    const std::int32_t len = r.lengths[static_cast<std::size_t>(i)];
    HEED_CHECK(len >= 0 && len <= r.width, "bag_of_words: row ", i, " has length ", len,
               ", outside [0, ", r.width, "]");
    for (std::int32_t j = 0; j < len; ++j) {
      const std::int32_t id = r.ids[static_cast<std::size_t>(i * r.width + j)];
      HEED_CHECK(id >= 0 && id < V, "bag_of_words: id ", id, " in row ", i,
                 " is outside the table of ", V, " rows");
    }
  }
  if (temporal.defined()) {
    const Tensor& t = temporal.value();
    HEED_CHECK(t.ndim() == 2 && t.dim(1) == dim && t.is_contiguous() && t.dtype() == tv.dtype(),
               "bag_of_words: the temporal table must be (rows, ", dim, ") like the table, got ",
               t.shape().str());
    HEED_CHECK(r.time.size() == static_cast<std::size_t>(r.rows), "bag_of_words: ",
               r.time.size(), " times for ", r.rows, " rows");
    for (std::int32_t time : r.time)
      HEED_CHECK(time < t.dim(0), "bag_of_words: time ", time, " is outside the temporal table "
                 "of ", t.dim(0), " rows");
  } else {
    HEED_CHECK(r.time.empty(), "bag_of_words: times given without a temporal table");
  }
  Tensor y = Tensor::empty({r.rows, dim}, tv.dtype());
  dispatch(tv.dtype(), [&]<typename T>() {
    kernels::bag_of_words<T>(tv.data<T>(), temporal.defined() ? temporal.value().data<T>() : nullptr,
                             r.view(), dim, position, y.data<T>());
  });
  if (!any_requires_grad({&table, &temporal})) return Var(y);
  return record_op(y, {&table, &temporal}, [table, temporal, rows, dim, position](Var& o) {
    dispatch(o.dtype(), [&]<typename T>() {
      T* dtable = table.requires_grad() ? table.grad_buffer().data<T>() : nullptr;
      T* dtemporal = temporal.defined() && temporal.requires_grad()
                         ? temporal.grad_buffer().data<T>()
                         : nullptr;
      kernels::bag_of_words_backward<T>(o.grad().data<T>(), rows->view(), dim, position, dtable,
                                        dtemporal);
    });
  });
}

}  // namespace heed
