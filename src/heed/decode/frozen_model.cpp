#include "heed/decode/frozen_model.h"

#include <vector>

namespace heed {
namespace {

std::vector<kernels::FrozenWeights::Range> float_ranges(const Seq2Seq& model) {
  std::vector<kernels::FrozenWeights::Range> ranges;
  for (const Var& w : model.weights()) {
    const Tensor& t = w.value();
    if (t.defined() && t.dtype() == DType::f32 && t.is_contiguous())
      ranges.push_back({t.data<float>(), static_cast<std::size_t>(t.numel())});
  }
  return ranges;
}

}  // namespace

FrozenModel::FrozenModel(const Seq2Seq& model, kernels::MatmulPrecision precision)
    : scope_(float_ranges(model), precision) {}

}  // namespace heed
