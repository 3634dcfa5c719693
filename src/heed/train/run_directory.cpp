#include "heed/train/run_directory.h"

#include <filesystem>
#include <set>
#include <sstream>
#include <vector>

#include "heed/base/atomic_file.h"
#include "heed/base/error.h"
#include "heed/store/model_dir.h"
#include "heed/store/quantized_weights.h"

namespace fs = std::filesystem;

namespace heed {

namespace {

// Present while a run that started in the directory has written weights but not yet its
// first training state.
constexpr const char* kUnsavedMarker = ".heed.unsaved";

// The config with everything a resumed run may change blanked out: the data and model
// sections must stay as they were.
std::string identity_yaml(TrainConfig c) {
  c.training = TrainingConfig{};
  c.output.clear();
  c.model.src_vocab = c.model.tgt_vocab = 0;
  c.model.classifier.image_height = c.model.classifier.image_width = 0;  // from the images
  return to_yaml(c);
}

void check_resumable(const TrainConfig& saved, const TrainConfig& now, const std::string& dir) {
  const std::string a = identity_yaml(saved), b = identity_yaml(now);
  if (a == b) return;
  std::istringstream sa(a), sb(b);
  std::string la, lb, section;
  while (std::getline(sa, la) && std::getline(sb, lb)) {
    if (!la.empty() && la[0] != ' ') section = la;
    if (la != lb) break;
  }
  auto trim = [](std::string s) { return s.erase(0, s.find_first_not_of(' ')); };
  throw Error(dir + " holds a training run with another config (in " + section + " it has '" +
              trim(la) + "', this config says '" + trim(lb) +
              "'); only the training section may change when resuming, so use a new output "
              "directory");
}

}  // namespace

PreparedDirectory prepare_run_directory(const TrainConfig& config) {
  // The directory is locked before anything in it is read, so a second run on it is refused
  // naming the first one's pid instead of resuming its half-written state.
  const std::string& dir = config.output;
  PreparedDirectory prepared;
  std::error_code ec;
  if (!fs::exists(dir)) {
    fs::create_directories(dir, ec);
    HEED_CHECK(!ec, dir, ": cannot create the output directory (", ec.message(), ")");
  }
  HEED_CHECK(fs::is_directory(dir), dir, ": exists and is not a directory");
  prepared.lock = DirLock(dir, "training");
  remove_stale_temporaries(dir);
  const std::string state_path = path_in(dir, model_files::kState);
  const std::string marker = path_in(dir, kUnsavedMarker);
  prepared.resume = fs::exists(state_path);
  if (prepared.resume) {
    fs::remove(marker, ec);  // left by a kill right after the first save
    check_resumable(load_model_config(dir), config, dir);
    return prepared;
  }
  // No training state: a run that started here saved no step (a config or data error found
  // late, out of memory, Ctrl-C or kill -9 before the first save). What such a run leaves
  // (vocabularies, config, logs) is removed so that the corrected command starts afresh;
  // weights and anything heed does not write are never touched: they stop the run instead,
  // except the weights of such a run, which it marked as unsaved before writing them.
  const bool unsaved = fs::is_regular_file(marker, ec);
  const std::set<std::string> leftovers = {
      model_files::kConfig, model_files::kSrcVocab, model_files::kTgtVocab, model_files::kSrcSpm,
      model_files::kTgtSpm, model_files::kHistory,  model_files::kLog,      DirLock::kFileName};
  std::vector<fs::path> remove;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name == DirLock::kFileName || name == kUnsavedMarker) continue;
    const bool weights = name == model_files::kBest || name == model_files::kLast ||
                         (name == model_files::kCheckpoints && !fs::is_empty(entry.path()));
    HEED_CHECK(name != model_files::kBest || !is_quantized_file(entry.path().string()), dir,
               ": holds a quantised model (heed quantize: int8 weights, no training state); "
               "training does not continue from int8 weights: train from the directory it "
               "was quantised from, or give a new or empty output directory");
    HEED_CHECK(!weights || unsaved, dir, ": holds ", name,
               " but no training state to resume (", model_files::kState,
               "); heed does not overwrite weights: move them away or give a new or empty "
               "output directory");
    const bool ours = (leftovers.count(name) && entry.is_regular_file()) ||
                      (unsaved && (name == model_files::kBest || name == model_files::kLast) &&
                       entry.is_regular_file()) ||
                      (name == model_files::kCheckpoints && entry.is_directory()) ||
                      (entry.is_regular_file() && name.size() > 4 &&
                       name.compare(name.size() - 4, 4, ".tmp") == 0 &&
                       leftovers.count(name.substr(0, name.size() - 4)));
    HEED_CHECK(ours, dir, ": exists, holds no training state to resume, and holds '", name,
               "', which heed did not write; give a new or empty output directory");
    remove.push_back(entry.path());
  }
  for (const auto& p : remove) fs::remove_all(p);
  if (unsaved) fs::remove(marker);  // last: until then the weights left are known as ours
  if (!remove.empty() || unsaved) prepared.restarted = true;
  return prepared;
}

void mark_unsaved(const std::string& dir) {
  write_file_atomically(path_in(dir, kUnsavedMarker),
                        "heed train started here and has not saved its training state yet; "
                        "the next run removes what it wrote\n");
}

void clear_unsaved_marker(const std::string& dir) {
  std::error_code ec;
  fs::remove(path_in(dir, kUnsavedMarker), ec);
}

}  // namespace heed
