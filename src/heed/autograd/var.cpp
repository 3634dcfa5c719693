#include "heed/autograd/var.h"

#include "heed/autograd/tape.h"

#include <cstddef>
#include <cstring>
#include <unordered_map>

#include "heed/kernels/packed_weight.h"
#include "heed/kernels/parallel_chunks.h"

namespace heed {
namespace {

// The weights whose packed handles the calling thread's FrozenModels hold, with how many
// holds each (they nest).
thread_local std::unordered_map<const void*, int> t_held;

// Zeroes a contiguous tensor, split across the threads when large (a training step zeroes
// every parameter's gradient and many activations' gradient buffers).
void zero_contiguous(Tensor& t) {
  auto* p = static_cast<std::byte*>(t.raw());
  const auto size = static_cast<std::int64_t>(dtype_size(t.dtype()));
  kernels::parallel_chunks(
      t.numel(), 1,
      [&](std::int64_t i0, std::int64_t i1) {
        std::memset(p + i0 * size, 0, static_cast<std::size_t>((i1 - i0) * size));
      },
      16);
}

}  // namespace

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
  if (!impl_ || grad_enabled() || t_held.find(impl_.get()) == t_held.end()) return nullptr;
  return impl_->packed.get();
}

void Var::hold_packed(bool held) const {
  HEED_CHECK(impl_, "use of an undefined Var");
  if (held) {
    ++t_held[impl_.get()];
    return;
  }
  const auto it = t_held.find(impl_.get());
  HEED_CHECK(it != t_held.end(), "a packed weight released by a thread that does not hold it");
  if (--it->second == 0) t_held.erase(it);
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
  if (impl_->grad_zero_pending) {
    zero_contiguous(impl_->grad);
    impl_->grad_zero_pending = false;
  }
  return impl_->grad;
}

Tensor& Var::grad_buffer() const {
  HEED_CHECK(impl_, "use of an undefined Var");
  if (!impl_->grad.defined()) {
    impl_->grad = Tensor::empty(impl_->value.shape(), impl_->value.dtype());
    zero_contiguous(impl_->grad);
  } else if (impl_->grad_zero_pending) {
    zero_contiguous(impl_->grad);
  }
  impl_->grad_zero_pending = false;
  return impl_->grad;
}

Tensor& Var::grad_buffer_unzeroed(bool& first) const {
  HEED_CHECK(impl_, "use of an undefined Var");
  first = !impl_->grad.defined() || impl_->grad_zero_pending;
  if (!impl_->grad.defined())
    impl_->grad = Tensor::empty(impl_->value.shape(), impl_->value.dtype());
  impl_->grad_zero_pending = false;
  return impl_->grad;
}

void Var::clear_grad() const {
  if (!impl_) return;
  impl_->grad = Tensor();
  impl_->grad_zero_pending = false;
}

void Var::zero_grad() const {
  // The buffer (always contiguous: only grad_buffer* allocate it) is zeroed when next read
  // or accumulated into, and not at all when a product overwrites it first.
  if (impl_ && impl_->grad.defined()) impl_->grad_zero_pending = true;
}

}  // namespace heed
