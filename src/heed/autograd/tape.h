#pragma once
// Tape: the define-by-run record of the coarse ops run since the last backward.
// Each op computes its value eagerly and, when gradients are wanted, records a closure
// that turns its output's gradient into its inputs' gradients. backward() replays the
// closures in reverse order and clears the tape. Under NoGradGuard nothing is recorded,
// outputs do not require gradients, and inference runs with no tape at all.
#include <functional>
#include <initializer_list>
#include <vector>

#include "heed/autograd/var.h"

namespace heed {

// Sees which Vars each entry reads and when backward() has replayed an entry; data-parallel
// training (dist/gradient_sync.h) learns from it when a parameter's gradient is final (once
// the earliest entry that read it has been replayed) and sends it while the rest runs.
class TapeObserver {
 public:
  virtual ~TapeObserver() = default;
  virtual void read(std::size_t entry, const Var& input) = 0;
  virtual void replayed(std::size_t entry) = 0;
};

class Tape {
 public:
  using Backward = std::function<void()>;

  // The tape of this thread.
  static Tape& current();

  // Records an entry whose backward accumulates into (some of) the gradients of `reads`:
  // every Var whose gradient fn may touch must be listed.
  void record(Backward fn, std::initializer_list<const Var*> reads);
  void record(Backward fn, const std::vector<Var>& reads);
  void record(Backward fn, const std::vector<const Var*>& reads);
  // At most one observer per thread's tape; nullptr removes it.
  void set_observer(TapeObserver* observer) { observer_ = observer; }
  // Seeds d(root)/d(root) = 1 (root must have one element) and runs the tape backwards.
  void backward(Var& root);
  // Same with an explicit seed gradient of root's shape (a vector-Jacobian product).
  void backward(Var& root, const Tensor& seed);
  void clear() { entries_.clear(); }
  std::size_t size() const { return entries_.size(); }

 private:
  std::vector<Backward> entries_;
  TapeObserver* observer_ = nullptr;
};

// Whether ops record onto the tape (true unless a NoGradGuard is alive on this thread).
bool grad_enabled();

class NoGradGuard {
 public:
  NoGradGuard();
  ~NoGradGuard();
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool previous_;
};

// True when grad mode is on and any input requires a gradient: the op must record.
bool any_requires_grad(std::initializer_list<const Var*> inputs);

// Convenience for ops: wraps value as the op's output; records backward (called only if
// the output requires a gradient and its gradient was reached).
Var record_op(Tensor value, std::initializer_list<const Var*> inputs,
              std::function<void(Var& out)> backward);

// Records an op with several outputs: each output requires a gradient iff any input does
// (in grad mode), and backward runs once, when any output received a gradient (the others
// count as zero). Returns whether it recorded.
bool record_multi(const std::vector<const Var*>& inputs, std::vector<Var*> outputs,
                  std::function<void()> backward);

}  // namespace heed
