#include "heed/decode/frozen_model.h"

#include <mutex>

#include "heed/base/error.h"

namespace heed {
namespace {

// Guards attaching and detaching handles (Var::set_packed) and the handles' reference counts:
// every copy of a handle is made and dropped under it, so use_count() says how many
// FrozenModels hold one. Products read the handle through Var::packed() without it: a handle
// only changes when no FrozenModel holds the weight, and no product may use it then.
std::mutex g_attach_mutex;

// Drops held's handles (g_attach_mutex held), detaching those no other FrozenModel holds.
void release(std::vector<std::pair<Var, std::shared_ptr<kernels::PackedWeight>>>& held) {
  for (auto& [w, h] : held) {
    h.reset();
    // Only the parameter's own reference left: the last FrozenModel holding it is going.
    if (w.packed_handle().use_count() == 1) w.set_packed(nullptr);
  }
  held.clear();
}

}  // namespace

FrozenModel::FrozenModel(const Seq2Seq& model) {
  {
    std::lock_guard<std::mutex> lock(g_attach_mutex);
    try {
      attach(model);
    } catch (...) {
      release(held_);
      throw;
    }
  }
  for (const auto& [w, h] : held_) w.hold_packed(true);
}

void FrozenModel::attach(const Seq2Seq& model) {
  const kernels::MatmulPrecision precision = model.compute_type().decoding;
  for (const Var& w : model.weights()) {
    const Tensor& t = w.value();
    if (!t.defined() || t.dtype() != DType::f32 || !t.is_contiguous() || t.numel() == 0) continue;
    std::shared_ptr<kernels::PackedWeight> h = w.packed_handle();
    if (h) {
      HEED_CHECK(h->precision() == precision, "frozen model: a ",
                 kernels::matmul_precision_name(precision), " freeze inside a ",
                 kernels::matmul_precision_name(h->precision()), " one");
    } else {
      h = std::make_shared<kernels::PackedWeight>(t.data<float>(),
                                                  static_cast<std::size_t>(t.numel()), precision);
      w.set_packed(h);
    }
    held_.emplace_back(w, std::move(h));
  }
}

FrozenModel::~FrozenModel() {
  for (const auto& [w, h] : held_) w.hold_packed(false);
  std::lock_guard<std::mutex> lock(g_attach_mutex);
  release(held_);
}

std::size_t FrozenModel::packed() const {
  std::size_t n = 0;
  for (const auto& [w, h] : held_) n += h->packed();
  return n;
}

std::size_t FrozenModel::products() const {
  std::size_t n = 0;
  for (const auto& [w, h] : held_) n += h->products();
  return n;
}

}  // namespace heed
