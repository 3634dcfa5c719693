#pragma once
// Helpers shared by the libFuzzer harnesses. heed's readers take file paths, so each input
// is written to a scratch file first (in /dev/shm when there is one: no disk traffic), named
// by pid so that parallel fuzzers never share one.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <string>

namespace heed::fuzz {

// The scratch files made so far, removed when the fuzzer exits (it calls exit()).
struct ScratchFiles {
  std::mutex mutex;
  std::set<std::string> paths;
  ~ScratchFiles() {
    for (const auto& p : paths) std::remove(p.c_str());
  }
};

inline ScratchFiles& scratch_files() {
  static ScratchFiles files;
  return files;
}

// A scratch path for the name, unique to this process.
inline std::string scratch_path(const std::string& name) {
  static const std::string dir = [] {
    std::error_code ec;
    const std::filesystem::path shm = "/dev/shm";
    return (std::filesystem::is_directory(shm, ec) ? shm
                                                    : std::filesystem::temp_directory_path())
        .string();
  }();
  std::string path = dir + "/heed_fuzz_" + std::to_string(::getpid()) + "_" + name;
  std::lock_guard<std::mutex> lock(scratch_files().mutex);
  scratch_files().paths.insert(path);
  return path;
}

// Writes the bytes to scratch_path(name) and returns that path.
inline std::string write_input(const std::string& name, const std::uint8_t* data,
                               std::size_t size) {
  const std::string path = scratch_path(name);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}

// A property that must hold for every input: its failure is a finding, so it aborts (which
// libFuzzer reports with the input that caused it).
inline void require(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz property violated: %s\n", what);
  std::abort();
}

}  // namespace heed::fuzz
