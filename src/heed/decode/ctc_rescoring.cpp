#include "heed/decode/ctc_rescoring.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "heed/base/error.h"
#include "heed/kernels/ctc.h"

namespace heed {

void rescore_with_ctc(const Seq2Seq& model, const TokenBatch& src, double weight,
                      DecodeResult& r) {
  HEED_CHECK(weight >= 0 && weight <= 1, "CTC rescoring: the weight must be in [0, 1], got ",
             weight);
  HEED_CHECK(static_cast<std::int64_t>(r.nbest.size()) == src.batch, "CTC rescoring: ",
             r.nbest.size(), " utterances decoded for a batch of ", src.batch);
  const Tensor z = model.ctc_logits(src).contiguous();
  HEED_CHECK(z.defined(), "CTC rescoring needs a model trained with a CTC head "
             "(model.ctc_weight > 0); this one has none");
  HEED_CHECK(z.ndim() == 3 && z.dim(0) == src.batch, "CTC rescoring: the head's logits are ",
             z.shape().str(), " for a batch of ", src.batch);
  const kernels::CtcShape one{1, z.dim(1), z.dim(2), kPad};
  dispatch(z.dtype(), [&]<typename T>() {
    for (std::int64_t b = 0; b < src.batch; ++b) {
      const T* row = z.data<T>() + b * z.dim(1) * z.dim(2);
      const std::int64_t frames = src.lengths[static_cast<std::size_t>(b)];
      for (Hypothesis& h : r.nbest[static_cast<std::size_t>(b)]) {
        std::vector<std::int32_t> y(h.tokens.begin(), h.tokens.end());
        if (!y.empty() && y.back() == kEos) y.pop_back();
        // The blank (the padding id) or an id past the head's cannot be a CTC symbol.
        double nll = std::numeric_limits<double>::infinity();
        if (std::all_of(y.begin(), y.end(), [&](std::int32_t t) { return t > kPad && t < one.symbols; })) {
          const std::int64_t length = static_cast<std::int64_t>(y.size());
          kernels::ctc_loss<T>(one, row, &frames, y.data(), &length, &nll, T(0), nullptr);
        }
        h.score = weight > 0 ? (1 - weight) * h.raw_score - weight * nll : h.raw_score;
      }
      std::stable_sort(r.nbest[static_cast<std::size_t>(b)].begin(),
                       r.nbest[static_cast<std::size_t>(b)].end(),
                       [](const Hypothesis& a, const Hypothesis& c) { return a.score > c.score; });
    }
  });
}

}  // namespace heed
