#pragma once
// Checksum: a content hash for detecting damaged files (a flipped bit, a torn copy), fed in
// pieces. XXH3-64 from Debian's libxxhash: it runs at memory speed, so hashing a weights
// file costs nothing next to reading it; it guards against accidents, not against an
// attacker (anyone can recompute it).
#include <cstddef>
#include <string>

namespace heed {

class Checksum {
 public:
  // The algorithm's name, written before the digits so a later heed can change it.
  static constexpr const char* kAlgorithm = "xxh3-64";

  Checksum();
  ~Checksum();
  Checksum(const Checksum&) = delete;
  Checksum& operator=(const Checksum&) = delete;

  void update(const void* data, std::size_t size);
  // "xxh3-64:" followed by 16 lower-case hex digits, of everything fed so far.
  std::string str() const;

 private:
  void* state_;  // XXH3_state_t, kept out of this header
};

}  // namespace heed
