#include "heed/autograd/tape.h"

namespace heed {
namespace {
thread_local bool g_grad_enabled = true;
}

Tape& Tape::current() {
  thread_local Tape tape;
  return tape;
}

void Tape::backward(Var& root) {
  HEED_CHECK(root.value().numel() == 1, "backward() without a seed needs a scalar, got ",
             root.shape().str());
  backward(root, Tensor::full(root.shape(), 1.0, root.dtype()));
}

void Tape::backward(Var& root, const Tensor& seed) {
  HEED_CHECK(root.requires_grad(), "backward() from a value that does not require a gradient");
  check_shape(seed, root.shape(), "backward seed");
  root.grad_buffer().copy_from(seed);
  // Entries may not record while running; move them out so a throwing backward leaves a
  // clean tape.
  std::vector<Backward> entries;
  entries.swap(entries_);
  for (std::size_t i = entries.size(); i-- > 0;) {
    entries[i]();
    if (observer_) observer_->replayed(i);
  }
}

void Tape::record(Backward fn, std::initializer_list<const Var*> reads) {
  if (observer_)
    for (const Var* v : reads)
      if (v && v->defined()) observer_->read(entries_.size(), *v);
  entries_.push_back(std::move(fn));
}

void Tape::record(Backward fn, const std::vector<const Var*>& reads) {
  if (observer_)
    for (const Var* v : reads)
      if (v && v->defined()) observer_->read(entries_.size(), *v);
  entries_.push_back(std::move(fn));
}

void Tape::record(Backward fn, const std::vector<Var>& reads) {
  if (observer_)
    for (const Var& v : reads)
      if (v.defined()) observer_->read(entries_.size(), v);
  entries_.push_back(std::move(fn));
}

bool grad_enabled() { return g_grad_enabled; }

NoGradGuard::NoGradGuard() : previous_(g_grad_enabled) { g_grad_enabled = false; }
NoGradGuard::~NoGradGuard() { g_grad_enabled = previous_; }

bool any_requires_grad(std::initializer_list<const Var*> inputs) {
  if (!g_grad_enabled) return false;
  for (const Var* v : inputs)
    if (v && v->requires_grad()) return true;
  return false;
}

Var record_op(Tensor value, std::initializer_list<const Var*> inputs,
              std::function<void(Var& out)> backward) {
  bool rg = any_requires_grad(inputs);
  Var out(std::move(value), rg);
  if (rg) {
    Tape::current().record(
        [out, fn = std::move(backward)]() mutable {
          if (out.has_grad()) fn(out);
        },
        inputs);
  }
  return out;
}

bool record_multi(const std::vector<const Var*>& inputs, std::vector<Var*> outputs,
                  std::function<void()> backward) {
  bool rg = false;
  if (grad_enabled())
    for (const Var* v : inputs) rg = rg || (v && v->requires_grad());
  for (Var* o : outputs) o->set_requires_grad(rg);
  if (!rg) return false;
  std::vector<Var> outs;
  for (Var* o : outputs) outs.push_back(*o);
  Tape::current().record(
      [outs = std::move(outs), fn = std::move(backward)]() {
        for (const Var& o : outs)
          if (o.has_grad()) return fn();
      },
      inputs);
  return true;
}

}  // namespace heed
