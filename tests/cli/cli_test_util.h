#pragma once
// Helpers for end-to-end tests of the `heed` binary: it lives at <build>/heed, and the test
// executables at <build>/tests/, so it is found relative to /proc/self/exe.
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <sys/wait.h>

#include "heed/base/random.h"

namespace heed::testing {

inline std::string heed_binary() {
  auto exe = std::filesystem::read_symlink("/proc/self/exe");
  return (exe.parent_path().parent_path() / "heed").string();
}

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// Runs a shell command line, stderr joined to stdout.
inline CommandResult run_shell(const std::string& command) {
  CommandResult r;
  const std::string cmd = command + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.output.append(buf.data(), n);
  int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// Runs `heed <args>` through the shell (args are shell words; quote as needed).
inline CommandResult run_heed(const std::string& args) {
  return run_shell(heed_binary() + " " + args);
}

// A fresh directory under the system temp dir, removed when the object dies.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& name) {
    path_ = std::filesystem::temp_directory_path() /
            (name + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter()++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() { std::filesystem::remove_all(path_); }
  std::string file(const std::string& name, const std::string& content) const {
    auto p = path_ / name;
    std::ofstream(p) << content;
    return p.string();
  }
  std::string path(const std::string& name = "") const { return (path_ / name).string(); }

 private:
  static int& counter() {
    static int c = 0;
    return c;
  }
  std::filesystem::path path_;
};

// The word-reversal task as text: n lines of min_len + rng.below(spread) letters drawn from
// the first `letters` of the alphabet, and the same lines reversed ({source, target}, each
// line ending in '\n').
inline std::pair<std::string, std::string> reversal_lines(Rng& rng, int n, std::uint64_t min_len,
                                                          std::uint64_t spread, std::uint64_t letters) {
  std::string src, tgt;
  for (int i = 0; i < n; ++i) {
    std::string s;
    const auto len = min_len + rng.below(spread);
    for (std::uint64_t k = 0; k < len; ++k) s += static_cast<char>('a' + rng.below(letters));
    src += s + "\n";
    tgt += std::string(s.rbegin(), s.rend()) + "\n";
  }
  return {src, tgt};
}

// The word-reversal task of the end-to-end training tests, written into dir: train.src/.tgt
// (300 pairs) and dev.src/.tgt (20 pairs) of 3-8 letters from a-h, drawn from Rng(7). Returns
// the config's data section naming them.
inline std::string write_reversal_task(const std::filesystem::path& dir) {
  Rng rng(7);
  for (const char* split : {"train", "dev"}) {
    const auto [src, tgt] = reversal_lines(rng, std::string(split) == "train" ? 300 : 20, 3, 6, 8);
    std::ofstream(dir / (std::string(split) + ".src")) << src;
    std::ofstream(dir / (std::string(split) + ".tgt")) << tgt;
  }
  return "data:\n"
         "  train_source: " + (dir / "train.src").string() + "\n"
         "  train_target: " + (dir / "train.tgt").string() + "\n"
         "  dev_source: " + (dir / "dev.src").string() + "\n"
         "  dev_target: " + (dir / "dev.tgt").string() + "\n";
}

}  // namespace heed::testing
