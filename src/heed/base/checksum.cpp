#include "heed/base/checksum.h"

#include <xxhash.h>

#include <cstdio>
#include <new>

namespace heed {

Checksum::Checksum() : state_(XXH3_createState()) {
  if (!state_) throw std::bad_alloc();
  XXH3_64bits_reset(static_cast<XXH3_state_t*>(state_));
}

Checksum::~Checksum() { XXH3_freeState(static_cast<XXH3_state_t*>(state_)); }

void Checksum::update(const void* data, std::size_t size) {
  if (size > 0) XXH3_64bits_update(static_cast<XXH3_state_t*>(state_), data, size);
}

std::string Checksum::str() const {
  const auto h = static_cast<unsigned long long>(
      XXH3_64bits_digest(static_cast<const XXH3_state_t*>(state_)));
  char buf[40];
  std::snprintf(buf, sizeof buf, "%s:%016llx", kAlgorithm, h);
  return buf;
}

}  // namespace heed
