#pragma once
// Var: a handle to a node of the define-by-run graph: a value, its gradient (allocated on
// first accumulation) and whether gradients flow to it. Copies share the node, so (like a
// shared_ptr) a const handle still reaches a mutable node.
#include <memory>
#include <string>

#include "heed/tensor/tensor.h"

namespace heed {
namespace kernels {
class PackedWeight;
}

class Var {
 public:
  Var() = default;
  explicit Var(Tensor value, bool requires_grad = false);

  bool defined() const { return impl_ != nullptr; }
  const Tensor& value() const;
  Tensor& mutable_value() const;
  bool requires_grad() const { return impl_ && impl_->requires_grad; }
  void set_requires_grad(bool on) const;

  // The gradient; undefined until something flowed into it.
  const Tensor& grad() const;
  bool has_grad() const { return impl_ && impl_->grad.defined(); }
  // The gradient buffer, zero-filled on first use; backward kernels accumulate into it.
  Tensor& grad_buffer() const;
  // For a backward kernel that can either write every element or accumulate: the buffer,
  // allocated without zeroing when there was none (first = true: the caller must overwrite
  // all of it), the existing one otherwise (first = false: accumulate into it). Saves the
  // zeroing pass where the first gradient to arrive is a product's whole output.
  Tensor& grad_buffer_unzeroed(bool& first) const;
  // Gives the gradient storage up (undefined again); parameters zero theirs instead.
  void clear_grad() const;
  // Zeroes the gradient, lazily: grad() and grad_buffer() zero the buffer when next called,
  // grad_buffer_unzeroed hands it over as new (a parameter's gradient that a product
  // overwrites is never zeroed). Every read goes through those, so none sees stale values.
  void zero_grad() const;

  const Shape& shape() const { return value().shape(); }
  std::int64_t dim(int i) const { return value().dim(i); }
  DType dtype() const { return value().dtype(); }
  bool same_node(const Var& o) const { return impl_ == o.impl_; }
  // The node's identity (shared by copies), e.g. to find a parameter in a map.
  const void* node() const { return impl_.get(); }

  // The weight's packed copy while the model is frozen for decoding (decode/frozen_model.h),
  // null otherwise: kept with the parameter it packs, and handed by the ops that multiply by
  // this weight to kernels::gemm (GemmOptions::packed_b). Only FrozenModel sets it.
  // Null unless a FrozenModel of the calling thread holds the weight (hold_packed): a pass
  // outside one (a forced alignment beside a decoding on another thread) must not read a
  // handle that the other thread's FrozenModel may detach and free at any moment. Null, too,
  // while gradients are recorded on this thread: a pass that differentiates through the
  // weights (saliency, training) computes with them, not with a rounded copy.
  const kernels::PackedWeight* packed() const;
  const std::shared_ptr<kernels::PackedWeight>& packed_handle() const;
  void set_packed(std::shared_ptr<kernels::PackedWeight> packed) const;
  // Counts a hold (held true) or its end (false) on this weight's handle by the calling
  // thread; holds nest. FrozenModel holds its weights on the thread that made it.
  void hold_packed(bool held) const;

 private:
  struct Impl {
    Tensor value;
    Tensor grad;
    bool grad_zero_pending = false;  // zero_grad was called: grad's contents are stale
    bool requires_grad = false;
    std::shared_ptr<kernels::PackedWeight> packed;
  };
  std::shared_ptr<Impl> impl_;
};

}  // namespace heed
