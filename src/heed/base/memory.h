#pragma once
// "Does this fit in memory?" before allocating it. Sizes that come from a config or the
// command line (model dimensions, output length limits) are checked against the machine's
// physical memory up front, so an absurd value gets an error naming the key instead of
// std::bad_alloc (or the OOM killer) halfway through a run.
#include <cstdint>
#include <string>

namespace heed {

// The machine's physical memory in bytes (sysconf); 0 when it cannot be read.
std::uint64_t physical_memory_bytes();

// "3.2 GB", "512 MB": bytes in decimal units, for messages.
std::string format_bytes(double bytes);

// Throws heed::Error unless `bytes` (a double, so that products of absurd sizes cannot
// overflow) fits in the physical memory: "<what> needs about X, more than this machine's
// Y of memory; <advice>". Does nothing when the memory size is unknown.
void check_fits_in_memory(double bytes, const std::string& what, const std::string& advice);

}  // namespace heed
