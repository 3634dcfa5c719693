#pragma once
// Arena: a bump allocator for per-batch activations. While an ArenaScope is active on a
// thread, Tensor::empty takes its storage from the arena instead of the heap; reset()
// gives everything back at once at the end of a batch, so the training and decoding hot
// loops do no malloc/free. Blocks are kept between batches and grow to the high-water mark.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace heed {

class Arena {
 public:
  explicit Arena(std::size_t block_bytes = std::size_t{64} << 20);
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  ~Arena();

  // 64-byte aligned memory valid until the next reset().
  void* allocate(std::size_t bytes);
  // Releases every allocation; merges the blocks into one big enough for the high-water mark.
  void reset();
  // Bumped by reset(): tensors remember it and (in debug builds) refuse stale access.
  std::uint64_t generation() const { return generation_; }
  std::size_t bytes_in_use() const { return in_use_; }
  std::size_t high_water() const { return high_water_; }

  // The arena active on this thread, or nullptr.
  static Arena* current();

 private:
  friend class ArenaScope;
  struct Block {
    std::byte* data;
    std::size_t size;
  };
  std::vector<Block> blocks_;
  std::size_t block_bytes_;
  std::size_t offset_ = 0;  // in blocks_.back()
  std::size_t in_use_ = 0;
  std::size_t high_water_ = 0;
  std::uint64_t generation_ = 0;
};

// Makes an arena the current one on this thread for the scope's lifetime (nestable;
// ArenaScope(nullptr) switches arena allocation off inside, e.g. for parameter state).
class ArenaScope {
 public:
  explicit ArenaScope(Arena* arena);
  ~ArenaScope();
  ArenaScope(const ArenaScope&) = delete;
  ArenaScope& operator=(const ArenaScope&) = delete;

 private:
  Arena* previous_;
};

}  // namespace heed
