#include "heed/base/memory.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>

#include "heed/base/error.h"

namespace heed {

std::uint64_t physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return 0;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
}

std::string format_bytes(double bytes) {
  char buf[64];
  if (!std::isfinite(bytes) || bytes >= 1e15)
    std::snprintf(buf, sizeof buf, "%.3g bytes", bytes);
  else if (bytes >= 1e9)
    std::snprintf(buf, sizeof buf, "%.1f GB", bytes / 1e9);
  else if (bytes >= 1e6)
    std::snprintf(buf, sizeof buf, "%.0f MB", bytes / 1e6);
  else
    std::snprintf(buf, sizeof buf, "%.0f KB", std::ceil(bytes / 1e3));
  return buf;
}

void check_fits_in_memory(double bytes, const std::string& what, const std::string& advice) {
  const std::uint64_t total = physical_memory_bytes();
  if (total == 0) return;
  HEED_CHECK(std::isfinite(bytes) && bytes <= static_cast<double>(total), what, " needs about ",
             format_bytes(bytes), ", more than this machine's ",
             format_bytes(static_cast<double>(total)), " of memory; ", advice);
}

}  // namespace heed
