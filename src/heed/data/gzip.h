#pragma once
// gzip through zlib, in memory: the compressed form of the IDX files (data/idx_file.h).
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace heed {

// True when bytes start with gzip's magic bytes 1f 8b.
bool is_gzip(const std::vector<std::uint8_t>& bytes);

// Inflates the one gzip member that bytes must be. Refuses (heed::Error starting with
// `what`) a damaged or truncated stream, bytes after its end, and an output of more than
// max_out bytes.
std::vector<std::uint8_t> gunzip(const std::vector<std::uint8_t>& bytes, std::uint64_t max_out,
                                 const std::string& what);

// The parts, concatenated, as one gzip member (no file name, time stamp 0: the same input
// gives the same bytes).
std::string gzip(std::initializer_list<std::string_view> parts);

}  // namespace heed
