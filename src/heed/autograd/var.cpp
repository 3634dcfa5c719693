#include "heed/autograd/var.h"

#include "heed/autograd/tape.h"

#include "heed/kernels/packed_weight.h"

namespace heed {

Var::Var(Tensor value, bool requires_grad) : impl_(std::make_shared<Impl>()) {
  impl_->value = std::move(value);
  impl_->requires_grad = requires_grad;
}

const Tensor& Var::value() const {
  HEED_CHECK(impl_, "use of an undefined Var");
  return impl_->value;
}

Tensor& Var::mutable_value() const {
  HEED_CHECK(impl_, "use of an undefined Var");
  return impl_->value;
}

void Var::set_requires_grad(bool on) const {
  HEED_CHECK(impl_, "use of an undefined Var");
  impl_->requires_grad = on;
}

const kernels::PackedWeight* Var::packed() const {
  return impl_ && !grad_enabled() ? impl_->packed.get() : nullptr;
}

const std::shared_ptr<kernels::PackedWeight>& Var::packed_handle() const {
  HEED_CHECK(impl_, "use of an undefined Var");
  return impl_->packed;
}

void Var::set_packed(std::shared_ptr<kernels::PackedWeight> packed) const {
  HEED_CHECK(impl_, "use of an undefined Var");
  impl_->packed = std::move(packed);
}

const Tensor& Var::grad() const {
  HEED_CHECK(impl_, "use of an undefined Var");
  return impl_->grad;
}

Tensor& Var::grad_buffer() const {
  HEED_CHECK(impl_, "use of an undefined Var");
  if (!impl_->grad.defined()) impl_->grad = Tensor::zeros_like(impl_->value);
  return impl_->grad;
}

void Var::clear_grad() const {
  if (impl_) impl_->grad = Tensor();
}

void Var::zero_grad() const {
  if (impl_ && impl_->grad.defined()) impl_->grad.zero();
}

}  // namespace heed
