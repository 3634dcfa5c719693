#include "heed/tensor/arena.h"

#include <cstdlib>
#include <new>

namespace heed {
namespace {
thread_local Arena* g_current = nullptr;
constexpr std::size_t kAlign = 64;

std::byte* aligned_block(std::size_t bytes) {
  void* p = std::aligned_alloc(kAlign, (bytes + kAlign - 1) / kAlign * kAlign);
  if (!p) throw std::bad_alloc();
  return static_cast<std::byte*>(p);
}
}  // namespace

Arena::Arena(std::size_t block_bytes) : block_bytes_(block_bytes) {}

Arena::~Arena() {
  for (auto& b : blocks_) std::free(b.data);
}

void* Arena::allocate(std::size_t bytes) {
  bytes = (bytes + kAlign - 1) / kAlign * kAlign;
  if (blocks_.empty() || offset_ + bytes > blocks_.back().size) {
    std::size_t size = bytes > block_bytes_ ? bytes : block_bytes_;
    blocks_.push_back({aligned_block(size), size});
    offset_ = 0;
  }
  void* p = blocks_.back().data + offset_;
  offset_ += bytes;
  in_use_ += bytes;
  if (in_use_ > high_water_) high_water_ = in_use_;
  return p;
}

void Arena::reset() {
  ++generation_;
  if (blocks_.size() > 1) {  // consolidate so the next batch fits in one block
    std::size_t total = 0;
    for (auto& b : blocks_) {
      total += b.size;
      std::free(b.data);
    }
    blocks_.clear();
    blocks_.push_back({aligned_block(total), total});
  }
  offset_ = 0;
  in_use_ = 0;
}

Arena* Arena::current() { return g_current; }

ArenaScope::ArenaScope(Arena* arena) : previous_(g_current) { g_current = arena; }
ArenaScope::~ArenaScope() { g_current = previous_; }

}  // namespace heed
