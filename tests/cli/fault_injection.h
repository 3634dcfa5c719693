#pragma once
// Helpers of the fault-injection tests (kill_resume_slow_test.cpp, disk_faults_slow_test.cpp):
// they run the built heed binary on a tiny reversal task, some runs with the fault library
// (support/fault_preload.c, built as HEED_FAULT_PRELOAD) loaded by LD_PRELOAD, and compare
// model directories file by file.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cli/cli_test_util.h"
#include "heed/base/random.h"
#include "heed/tensor/safetensors.h"

#ifndef HEED_FAULT_PRELOAD
#error "HEED_FAULT_PRELOAD (the path of the fault library) is set by tests/CMakeLists.txt"
#endif

namespace heed::fault {

namespace fs = std::filesystem;

inline std::string heed_binary() {
  if (const char* env = std::getenv("HEED_BINARY")) return env;
  return (fs::canonical("/proc/self/exe").parent_path().parent_path() / "heed").string();
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

struct Result {
  int code = -1;       // the exit code, or 128 + the signal that ended the process
  std::string output;  // stdout and stderr
};

// Runs a shell command line (stderr joined to stdout).
inline Result run_shell(const std::string& cmd) {
  Result r;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) r.output.append(buf, n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

// An injected fault: the environment that makes the fault library act in one heed process.
struct Fault {
  std::string op;     // write, open, rename, mkdir, readonly, trace (support/fault_preload.c)
  std::string path;   // the substring a path must contain
  long nth = 1;       // the first matching call that fails
  std::string error;  // ENOSPC, EROFS, KILL, ... ("" = the library's default)
  std::string log;    // where the library notes what it did

  // "VAR=value ..." for a shell command line, before the program.
  std::string env() const {
    std::string e = "LD_PRELOAD='" + std::string(HEED_FAULT_PRELOAD) + "' HEED_FAULT_OP=" + op +
                    " HEED_FAULT_PATH='" + path + "' HEED_FAULT_NTH=" + std::to_string(nth);
    if (!error.empty()) e += " HEED_FAULT_ERRNO=" + error;
    if (!log.empty()) e += " HEED_FAULT_LOG='" + log + "'";
    return e + " ";
  }
  std::vector<std::string> env_list() const {
    std::vector<std::string> e = {"LD_PRELOAD=" + std::string(HEED_FAULT_PRELOAD),
                                  "HEED_FAULT_OP=" + op, "HEED_FAULT_PATH=" + path,
                                  "HEED_FAULT_NTH=" + std::to_string(nth)};
    if (!error.empty()) e.push_back("HEED_FAULT_ERRNO=" + error);
    if (!log.empty()) e.push_back("HEED_FAULT_LOG=" + log);
    return e;
  }
};

// `heed <args>`, optionally under a fault.
inline Result run_heed(const std::string& args, const Fault* fault = nullptr) {
  return run_shell((fault ? fault->env() : std::string()) + "'" + heed_binary() + "' " + args);
}

// A scratch directory (removed at the end) with a word-reversal data set (300 training and 20
// dev pairs) and a config for a tiny Bahdanau model (emb 16, hidden 32), one thread, so that
// runs are bit for bit repeatable.
class Task {
 public:
  Task(const std::string& name, const std::string& training) {
    root_ = fs::temp_directory_path() / (name + "_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    write_file(path("config.yaml"),
               testing::write_reversal_task(root_) +
                   "model:\n"
                   "  kind: bahdanau\n"
                   "  emb_dim: 16\n"
                   "  enc_hidden: 32\n"
                   "  dec_hidden: 32\n"
                   "  dropout: 0.2\n"
                   "training:\n"
                   "  lr: 0.01\n"
                   "  max_tokens: 200\n"
                   "  log_every: 2\n"
                   "  threads: 1\n" +
                   training + "output: " + path("unused") + "\n");
  }
  ~Task() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  std::string path(const std::string& name) const { return (root_ / name).string(); }
  // The arguments of `heed train` writing dir (plus further --set options).
  std::string train(const std::string& dir, const std::string& more = "") const {
    return "train '" + path("config.yaml") + "' --set output=" + dir + more;
  }

 private:
  fs::path root_;
};

// The regular files under dir, as paths relative to it.
inline std::set<std::string> files_under(const std::string& dir) {
  std::set<std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (it->is_regular_file()) out.insert(fs::relative(it->path(), dir).string());
  }
  return out;
}

// The temporaries (<name>.tmp.<pid>, or the older <name>.tmp) under dir.
inline std::vector<std::string> temporaries_under(const std::string& dir) {
  std::vector<std::string> out;
  for (const std::string& f : files_under(dir)) {
    const std::string name = fs::path(f).filename().string();
    if (contains(name, ".tmp.") ||
        (name.size() > 4 && name.compare(name.size() - 4, 4, ".tmp") == 0))
      out.push_back(f);
  }
  return out;
}

// history.jsonl (or a training state's heed.history) without the wall-clock "seconds".
inline std::string history_without_time(const std::string& text) {
  std::istringstream in(text);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_object()) j.erase("seconds");
    out += (j.is_discarded() ? "not JSON: " + line : j.dump()) + "\n";
  }
  return out;
}

// Expects dir to hold the same files as ref, with the same bytes, except what depends on the
// clock: train.log (speeds), the "seconds" of history entries and the training state's
// heed.train_seconds (and config.yaml names its own directory). The tensors of the training
// state (weights, Adam's moments) and the rest of its state must be identical.
inline void expect_same_model_dir(const std::string& ref, const std::string& dir,
                                  const std::string& what) {
  const std::set<std::string> want = files_under(ref), got = files_under(dir);
  EXPECT_EQ(got, want) << what << ": other files than an uninterrupted run";
  for (const std::string& f : want) {
    if (!got.count(f) || f == "train.log") continue;
    const std::string a = ref + "/" + f, b = dir + "/" + f;
    if (f == "history.jsonl") {
      EXPECT_EQ(history_without_time(read_file(b)), history_without_time(read_file(a)))
          << what << ": " << f;
    } else if (f == "training_state.safetensors") {
      const SafeTensorsFile x = load_safetensors(a), y = load_safetensors(b);
      EXPECT_EQ(y.checksum, x.checksum) << what << ": " << f << " (tensors)";
      ASSERT_EQ(y.tensors.size(), x.tensors.size()) << what << ": " << f;
      for (std::size_t i = 0; i < x.tensors.size(); ++i) {
        EXPECT_EQ(y.tensors[i].first, x.tensors[i].first) << what;
        EXPECT_EQ(y.tensors[i].second.to_vector(), x.tensors[i].second.to_vector())
            << what << ": " << f << ": " << x.tensors[i].first;
      }
      Metadata mx = x.metadata, my = y.metadata;
      for (Metadata* m : {&mx, &my}) {
        m->erase("heed.train_seconds");
        (*m)["heed.history"] = history_without_time((*m)["heed.history"]);
      }
      EXPECT_EQ(my, mx) << what << ": " << f << " (state)";
    } else if (f == "config.yaml") {  // names its own directory as the output
      std::string text = read_file(b);
      for (auto at = text.find(dir); at != std::string::npos; at = text.find(dir, at + ref.size()))
        text.replace(at, dir.size(), ref);
      EXPECT_EQ(text, read_file(a)) << what << ": " << f;
    } else {
      EXPECT_TRUE(read_file(b) == read_file(a)) << what << ": " << f << " differs";
    }
  }
}

}  // namespace heed::fault
