// A full disk at each write site of `heed train`, `heed average` and `heed translate`, and
// read-only directories (docs/RELIABILITY.md, "Fault injection"). The fault library
// (support/fault_preload.c, loaded with LD_PRELOAD) makes chosen libc calls fail with ENOSPC
// or EROFS, which needs no root and no special mount, and works when the tests run as root
// (for whom chmod does not stop a write). At each site heed must exit with code 1 and a
// message naming the file and the cause, leave the file as it was (the previous version, or
// none), leave no temporary behind, and a rerun without the fault must succeed: a training
// run then ends with the same files as one that never failed.
#include "fault_injection.h"

namespace heed::fault {
namespace {

constexpr const char* kNoSpace = "No space left on device";
constexpr const char* kReadOnly = "Read-only file system";

// Every regular file under dir with its bytes.
std::map<std::string, std::string> snapshot(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const std::string& f : files_under(dir)) out[f] = read_file(dir + "/" + f);
  return out;
}

class DiskFaults : public ::testing::Test {
 protected:
  // One uninterrupted run to compare with (16 steps, a validation every 4, a save every 8),
  // and the same run stopped at step 8, to resume.
  static void SetUpTestSuite() {
    task_ = new Task("heed_disk_faults",
                     "  max_steps: 16\n"
                     "  validate_every: 4\n"
                     "  save_every: 8\n"
                     "  keep_checkpoints: 2\n"
                     "  metric: loss\n");
    const Result a = run_heed(task_->train(ref()));
    ASSERT_EQ(a.code, 0) << a.output;
    const Result b = run_heed(task_->train(half(), " --set training.max_steps=8"));
    ASSERT_EQ(b.code, 0) << b.output;
  }
  static void TearDownTestSuite() {
    delete task_;
    task_ = nullptr;
  }
  static std::string ref() { return task_->path("ref"); }
  static std::string half() { return task_->path("half"); }
  static std::string path(const std::string& name) { return task_->path(name); }
  // A fault of op at the files whose path contains `where`, noted in a fresh log file.
  static Fault fault(const std::string& op, const std::string& where, long nth = 1) {
    const std::string log = path("fault.log");
    fs::remove(log);
    return Fault{op, where, nth, "", log};
  }
  // Whether the fault library injected its fault.
  static bool injected() { return !read_file(path("fault.log")).empty(); }
  // Expects the failed run r to have exited with code 1 naming file and cause.
  static void expect_failure(const Result& r, const std::string& dir, const std::string& file,
                             const std::string& cause) {
    EXPECT_TRUE(injected()) << "the fault was not injected";
    EXPECT_EQ(r.code, 1) << r.output;
    EXPECT_TRUE(contains(r.output, dir)) << r.output;
    EXPECT_TRUE(contains(r.output, fs::path(file).filename().string())) << r.output;
    EXPECT_TRUE(contains(r.output, cause)) << r.output;
    EXPECT_FALSE(contains(r.output, "internal error")) << r.output;
    EXPECT_EQ(temporaries_under(dir), std::vector<std::string>{});
    EXPECT_FALSE(fs::exists(dir + "/.heed.lock")) << "the lock file was left";
  }
  // Reruns the training without a fault: it must end as the uninterrupted run did.
  static void expect_rerun_completes(const std::string& dir) {
    const Result again = run_heed(task_->train(dir));
    ASSERT_EQ(again.code, 0) << again.output;
    expect_same_model_dir(ref(), dir, "rerun");
  }
  static Task* task_;
};
Task* DiskFaults::task_ = nullptr;

// A write site: the file's path in the model directory, and which matching write fails.
struct Site {
  std::string file;
  long nth = 1;
};

TEST_F(DiskFaults, FullDiskAtEachWriteOfANewTrainingRun) {
  // In the order a run writes them; .heed.unsaved marks weights written before the first
  // training state (docs/RELIABILITY.md).
  const std::vector<Site> sites = {{".heed.lock"},
                                   {"src.vocab"},
                                   {"tgt.vocab"},
                                   {"config.yaml"},
                                   {"train.log"},
                                   {".heed.unsaved"},
                                   {"best.safetensors"},
                                   {"history.jsonl"},
                                   {"checkpoints/step_8.safetensors"},
                                   {"last.safetensors"},
                                   {"last.safetensors", 2},
                                   {"training_state.safetensors"},
                                   {"training_state.safetensors", 2}};
  int n = 0;
  for (const Site& site : sites) {
    SCOPED_TRACE(site.file + " (write " + std::to_string(site.nth) + ")");
    const std::string dir = path("new" + std::to_string(n++));
    const Fault f = fault("write", dir + "/" + site.file, site.nth);
    const Result r = run_heed(task_->train(dir), &f);
    expect_failure(r, dir, site.file, kNoSpace);
    const std::string target = dir + "/" + site.file;
    if (site.file == "train.log") {
      EXPECT_EQ(read_file(target), "");  // nothing of the line that failed
    } else if (site.nth == 1) {
      EXPECT_FALSE(fs::exists(target)) << "a half-written file was left";
    } else if (fs::exists(target)) {  // an earlier version: whole (its checksum holds)
      EXPECT_NO_THROW(load_safetensors(target));
    }
    expect_rerun_completes(dir);
    if (HasFailure()) break;
    fs::remove_all(dir);
  }
}

TEST_F(DiskFaults, FullDiskAtEachWriteOfAResumedRunKeepsThePreviousFile) {
  // The resumed run must write a new best model before its first save (step 12 or 16).
  bool improves = false;
  std::istringstream history(read_file(ref() + "/history.jsonl"));
  for (std::string line; std::getline(history, line);) {
    const auto j = nlohmann::json::parse(line);
    improves = improves || (j["step"].get<int>() > 8 && j["best"].get<bool>());
  }
  ASSERT_TRUE(improves) << "no validation after step 8 improves: the best.safetensors site "
                           "would not be reached";
  const std::vector<std::string> sites = {".heed.lock",       "config.yaml",
                                          "history.jsonl",    "train.log",
                                          "best.safetensors", "checkpoints/step_16.safetensors",
                                          "last.safetensors", "training_state.safetensors"};
  int n = 0;
  for (const std::string& file : sites) {
    SCOPED_TRACE(file);
    const std::string dir = path("resumed" + std::to_string(n++));
    fs::copy(half(), dir, fs::copy_options::recursive);
    const auto before = snapshot(dir);
    const Fault f = fault("write", dir + "/" + file);
    const Result r = run_heed(task_->train(dir), &f);
    expect_failure(r, dir, file, kNoSpace);
    const auto after = snapshot(dir);
    if (file == "train.log") {  // appended: the earlier lines stay, nothing of the failed one
      EXPECT_EQ(after.at(file), before.at(file));
    } else if (before.count(file)) {
      ASSERT_TRUE(after.count(file)) << "the previous version was removed";
      EXPECT_TRUE(after.at(file) == before.at(file)) << "the previous version was changed";
    } else {
      EXPECT_FALSE(after.count(file)) << "a half-written file was left";
    }
    for (const auto& [name, bytes] : before) {  // older step checkpoints stay whole
      if (name.rfind("checkpoints/", 0) == 0 && after.count(name)) {
        EXPECT_TRUE(after.at(name) == bytes) << name;
      }
    }
    if (file == ".heed.lock") {
      EXPECT_TRUE(after == before) << "refused before changing anything";
    }
    expect_rerun_completes(dir);
    if (HasFailure()) break;
    fs::remove_all(dir);
  }
}

TEST_F(DiskFaults, FullDiskWritingAnAverageTranslationsOrAttention) {
  const std::string model = path("model");
  fs::copy(ref(), model, fs::copy_options::recursive);
  const std::string avg = model + "/avg.safetensors";
  const std::string average = "average --model " + model + " --out " + avg;
  ASSERT_EQ(run_heed(average + " --last 1").code, 0);
  const std::string previous = read_file(avg);
  {
    SCOPED_TRACE("heed average");
    const Fault f = fault("write", avg);
    const Result r = run_heed(average + " --last 2 --force", &f);
    expect_failure(r, model, avg, kNoSpace);
    EXPECT_TRUE(read_file(avg) == previous) << "the previous average was changed";
    const Result again = run_heed(average + " --last 2 --force");
    EXPECT_EQ(again.code, 0) << again.output;
    EXPECT_FALSE(read_file(avg) == previous);
  }
  const std::string out = path("out");
  fs::create_directories(out);
  write_file(path("words.txt"), "abc\nhgfe\n");
  const std::string translate = "translate --model " + model + " --input " + path("words.txt") +
                                " --attention " + out + "/att.jsonl --output " + out + "/hyp.txt";
  for (const char* file : {"att.jsonl", "hyp.txt"}) {
    SCOPED_TRACE(std::string("heed translate: ") + file);
    write_file(out + "/att.jsonl", "old\n");
    write_file(out + "/hyp.txt", "old\n");
    const Fault f = fault("write", out + "/" + file);
    const Result r = run_heed(translate, &f);
    expect_failure(r, out, file, kNoSpace);
    EXPECT_EQ(read_file(out + "/" + file), "old\n");
    const Result again = run_heed(translate);
    EXPECT_EQ(again.code, 0) << again.output;
    EXPECT_NE(read_file(out + "/" + file), "old\n");
  }
}

TEST_F(DiskFaults, ReadOnlyDirectoriesAreAClearErrorAndStayUnchanged) {
  // A new model directory inside a read-only one.
  {
    SCOPED_TRACE("heed train, new directory in a read-only one");
    const std::string ro = path("ro");
    fs::create_directories(ro);
    const Fault f = fault("readonly", ro + "/");
    const Result r = run_heed(task_->train(ro + "/model"), &f);
    expect_failure(r, ro + "/model", "model", kReadOnly);
    EXPECT_TRUE(contains(r.output, "cannot create the output directory")) << r.output;
    EXPECT_TRUE(fs::is_empty(ro));
  }
  // A model directory that is read-only: resuming, averaging into it, reading it.
  const std::string model = path("ro_model");
  fs::copy(half(), model, fs::copy_options::recursive);
  const auto before = snapshot(model);
  {
    SCOPED_TRACE("heed train, resuming a read-only directory");
    const Fault f = fault("readonly", model + "/");
    const Result r = run_heed(task_->train(model), &f);
    expect_failure(r, model, ".heed.lock", kReadOnly);
    EXPECT_TRUE(snapshot(model) == before) << "the read-only directory changed";
  }
  {
    SCOPED_TRACE("heed average into a read-only model directory");
    const Fault f = fault("readonly", model + "/");
    const Result r =
        run_heed("average --model " + model + " --last 1 --out " + model + "/avg.safetensors", &f);
    expect_failure(r, model, ".heed.lock", kReadOnly);
    EXPECT_TRUE(snapshot(model) == before) << "the read-only directory changed";
  }
  const std::string ro_out = path("ro_out");
  fs::create_directories(ro_out);
  {
    SCOPED_TRACE("heed average from a read-only model directory into a read-only one");
    const Fault f = fault("readonly", path("ro_"));  // ro_model and ro_out
    const Result r =
        run_heed("average --model " + model + " --last 1 --out " + ro_out + "/avg.safetensors", &f);
    expect_failure(r, ro_out, "avg.safetensors", kReadOnly);
    EXPECT_TRUE(fs::is_empty(ro_out));
    EXPECT_TRUE(snapshot(model) == before) << "the read-only directory changed";
  }
  {
    SCOPED_TRACE("heed translate --attention into a read-only directory");
    write_file(path("words.txt"), "abc\nhgfe\n");
    const Fault f = fault("readonly", path("ro_"));
    const Result r = run_heed("translate --model " + model + " --input " + path("words.txt") +
                                  " --attention " + ro_out + "/att.jsonl",
                              &f);
    expect_failure(r, ro_out, "att.jsonl", kReadOnly);
    EXPECT_TRUE(fs::is_empty(ro_out));
    EXPECT_TRUE(snapshot(model) == before) << "the read-only directory changed";
  }
  // Only a part of a new model directory read-only: checkpoints/, then the rename that puts
  // last.safetensors in place. The run stops naming it; the rerun completes.
  {
    SCOPED_TRACE("heed train, checkpoints/ read-only");
    const std::string dir = path("ro_checkpoints");
    const Fault f = fault("readonly", dir + "/checkpoints");
    const Result r = run_heed(task_->train(dir), &f);
    expect_failure(r, dir, "checkpoints", kReadOnly);
    EXPECT_FALSE(fs::exists(dir + "/checkpoints"));
    expect_rerun_completes(dir);
  }
  {
    SCOPED_TRACE("heed train, renaming last.safetensors into place fails");
    const std::string dir = path("ro_rename");
    const Fault f = fault("rename", dir + "/last.safetensors");
    const Result r = run_heed(task_->train(dir), &f);
    expect_failure(r, dir, "last.safetensors", kReadOnly);
    EXPECT_TRUE(contains(r.output, "cannot move the written file into place")) << r.output;
    EXPECT_FALSE(fs::exists(dir + "/last.safetensors"));
    expect_rerun_completes(dir);
  }
}

}  // namespace
}  // namespace heed::fault
