#pragma once
// Stop signals (SIGINT, SIGTERM) handled on one thread of their own.
//
// A signal handler runs on whichever thread the kernel picks, on that thread's stack. oneDNN
// 2.x's AVX-512 f32 GEMM kernel points the stack pointer into a heap buffer while it runs,
// so a handler delivered there writes its signal frame over the heap (oneDNN issue 4845,
// fixed in 3.11.2; Debian ships 2.6): glibc later aborts with "corrupted size vs.
// prev_size". So heed never lets a handler run on a compute thread: start_signal_thread(),
// called first in main() before any other thread exists, blocks the stop signals in the
// calling thread (every thread created later inherits the mask) and waits for them with
// sigwait() on a thread that does nothing else.
//
// What a stop signal does:
// - no stop handler set: the default action (the process ends by the signal, as without
//   any of this);
// - a stop handler set: the first signal calls it (on the signal thread; it should only set
//   a flag); repeats within one second are ignored, because `timeout` and process-group
//   kills deliver the same request twice; a signal one second or more after the first
//   takes the default action (a second Ctrl-C ends the process at once).
namespace heed {

// Blocks SIGINT and SIGTERM in the calling thread and starts the thread that waits for
// them. Call once, from main(), before any other thread is created.
void start_signal_thread();

// Sets (or, with nullptr, clears) what the first stop signal calls, and forgets any signal
// seen before. Without start_signal_thread() the handler is never called.
void set_stop_handler(void (*handler)());

}  // namespace heed
