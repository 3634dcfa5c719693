#include "heed/cli/average_command.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <regex>
#include <string>

#include "heed/base/dir_lock.h"
#include "heed/base/error.h"
#include "heed/cli/validators.h"
#include "heed/tensor/safetensors.h"
#include "heed/store/interop.h"
#include "heed/store/model_dir.h"
#include "heed/store/vocabulary_checksums.h"

namespace fs = std::filesystem;

namespace heed::cli {
namespace {

// Whether path (a file that may not exist yet) lies inside the directory dir.
bool inside(const std::string& path, const std::string& dir) {
  std::error_code ec;
  const fs::path d = fs::weakly_canonical(dir, ec);
  if (ec) return false;
  const fs::path p = fs::weakly_canonical(fs::absolute(path, ec).parent_path(), ec);
  if (ec) return false;
  const auto rel = p.lexically_relative(d);
  return !rel.empty() && *rel.begin() != "..";
}

class AverageCommand : public Command {
 public:
  std::string name() const override { return "average"; }
  std::string description() const override {
    return "Average the weights of a model directory's last N step checkpoints";
  }

  void setup(CLI::App& app) override {
    app.add_option("--model,-m", dir_, "model directory written by heed train")->required();
    app.add_option("--last,-n", last_, "how many of the latest step checkpoints to average")
        ->required()
        ->check(int_range(1, 1000000));
    app.add_option("--out,-o", out_, "weights file to write (.safetensors, atomically)")
        ->required();
    app.add_flag("--force,-f", force_, "overwrite --out if it exists");
    app.footer("Reads DIR/checkpoints/step_<n>.safetensors (training keeps the last\n"
               "training.keep_checkpoints of them), takes the N with the highest steps and\n"
               "writes their element-wise mean, in the checkpoints' dtype. The result loads\n"
               "like best.safetensors: heed translate --model DIR --weights FILE. An existing\n"
               "--out is kept unless --force is given.");
  }

  int run() override {
    // The same rule as heed export: an existing file, perhaps another model's
    // best.safetensors, is never replaced by accident.
    std::error_code ec;
    HEED_CHECK(!fs::is_directory(out_, ec), out_,
               ": is a directory; --out names the weights file to write");
    HEED_CHECK(force_ || !fs::exists(out_, ec), out_,
               ": exists; heed average does not overwrite a file unless given --force");
    const fs::path ckdir = fs::path(dir_) / model_files::kCheckpoints;
    HEED_CHECK(fs::is_directory(dir_), dir_, ": no such model directory");
    HEED_CHECK(fs::is_directory(ckdir), dir_,
               ": has no step checkpoints (no checkpoints/ folder; training.keep_checkpoints "
               "must be above 0)");
    // Writing into the model directory takes its lock, as training does, so an average is
    // never written while a training run changes the directory. Written elsewhere, it only
    // reads, and may run beside a training.
    DirLock lock;
    if (inside(out_, dir_)) lock = DirLock(dir_, "averaging into it");
    std::vector<std::pair<std::int64_t, std::string>> found;
    const std::regex pattern("step_([0-9]+)\\.safetensors");
    for (const auto& entry : fs::directory_iterator(ckdir)) {
      std::smatch m;
      const std::string name = entry.path().filename().string();
      if (std::regex_match(name, m, pattern))
        found.emplace_back(std::stoll(m[1].str()), entry.path().string());
    }
    std::sort(found.begin(), found.end());
    HEED_CHECK(static_cast<std::int64_t>(found.size()) >= last_, ckdir.string(), " has ",
               found.size(), " step checkpoint(s), fewer than --last ", last_);
    found.erase(found.begin(), found.end() - last_);

    NamedTensors sum;
    std::vector<DType> dtypes;
    std::string steps;
    // What the checkpoints say about their model (kind, vocabulary checksums): kept in the
    // average when every checkpoint says the same, so that loading it checks them too.
    Metadata shared;
    for (const auto& [step, path] : found) {
      SafeTensorsFile f = load_safetensors(path);
      steps += (steps.empty() ? "" : ",") + std::to_string(step);
      for (const char* key : {interop_keys::kKind, vocabulary_checksum_keys::kSrc,
                              vocabulary_checksum_keys::kTgt}) {
        const auto it = f.metadata.find(key);
        if (step == found.front().first && it != f.metadata.end()) shared[key] = it->second;
        else if (it == f.metadata.end() || shared[key] != it->second) shared.erase(key);
      }
      if (sum.empty()) {
        for (auto& [name, t] : f.tensors) {
          dtypes.push_back(t.dtype());
          sum.emplace_back(name, t.to(DType::f64));
        }
        continue;
      }
      HEED_CHECK(f.tensors.size() == sum.size(), path, " has ", f.tensors.size(),
                 " tensors but ", found.front().second, " has ", sum.size());
      for (auto& [name, acc] : sum) {
        const Tensor& t = f.get(name);
        HEED_CHECK(t.shape() == acc.shape(), path, ": tensor ", name, " has shape ",
                   t.shape().str(), " but ", acc.shape().str(), " in ", found.front().second);
        const Tensor x = t.to(DType::f64);
        double* a = acc.data<double>();
        const double* b = x.data<double>();
        for (std::int64_t i = 0; i < acc.numel(); ++i) a[i] += b[i];
      }
    }
    const double n = static_cast<double>(found.size());
    NamedTensors out;
    for (std::size_t i = 0; i < sum.size(); ++i) {
      double* a = sum[i].second.data<double>();
      for (std::int64_t j = 0; j < sum[i].second.numel(); ++j) a[j] /= n;
      out.emplace_back(sum[i].first, sum[i].second.to(dtypes[i]));
    }
    shared["format"] = "pt";
    shared["heed.averaged_steps"] = steps;
    save_safetensors(out_, out, shared);
    std::cout << "averaged steps " << steps << " into " << out_ << "\n";
    return 0;
  }

 private:
  std::string dir_, out_;
  std::int64_t last_ = 0;
  bool force_ = false;
};

}  // namespace

std::unique_ptr<Command> make_average_command() { return std::make_unique<AverageCommand>(); }

}  // namespace heed::cli
