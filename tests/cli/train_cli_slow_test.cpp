// End-to-end tests of `heed train`, `heed info` and `heed average`: they run the built heed
// binary (next to the tests folder of the build, or $HEED_BINARY) on a generated reversal
// task with a tiny model.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"
#include "heed/base/random.h"
#include "heed/base/error.h"
#include "heed/tensor/safetensors.h"
#include "heed/store/model_dir.h"
#include "support/bf16.h"

namespace fs = std::filesystem;

namespace heed {
namespace {

std::string heed_binary() {
  if (const char* env = std::getenv("HEED_BINARY")) return env;
  return (fs::canonical("/proc/self/exe").parent_path().parent_path() / "heed").string();
}

struct Result {
  int code = -1;
  std::string output;  // stdout and stderr
};

// Runs a shell command line; code is its exit code, or 128 + the signal that killed it.
Result run_shell(const std::string& cmd) {
  Result r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) r.output.append(buf, n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

Result run(const std::string& args) {
  return run_shell("'" + heed_binary() + "' " + args + " 2>&1");
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// A scratch directory with a reversal data set and a config for a tiny model.
class TrainCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = new fs::path(fs::temp_directory_path() / ("heed_cli_train_" + std::to_string(getpid())));
    fs::remove_all(*root_);
    fs::create_directories(*root_);
    write_file(path("config.yaml"),
               testing::write_reversal_task(*root_) +
               "model:\n"
               "  kind: bahdanau\n"
               "  emb_dim: 8\n"
               "  enc_hidden: 12\n"
               "  dec_hidden: 12\n"
               "  dropout: 0.2\n"
               "training:\n"
               "  lr: 0.01\n"
               "  max_tokens: 200\n"
               "  max_steps: 12\n"
               "  validate_every: 4\n"
               "  keep_checkpoints: 2\n"
               "  log_every: 2\n"
               "  metric: wer\n"
               "  threads: 1\n"
               "output: " + path("model") + "\n");
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(*root_, ec);
    delete root_;
  }
  static std::string path(const std::string& name) { return (*root_ / name).string(); }
  // Trains the shared model once (the first test that needs it).
  static const Result& trained() {
    static Result r = run("train " + path("config.yaml"));
    return r;
  }
  static fs::path* root_;
};
fs::path* TrainCli::root_ = nullptr;

TEST_F(TrainCli, HelpForEachCommand) {
  for (const char* cmd : {"train", "info", "average"}) {
    const Result r = run(std::string(cmd) + " --help");
    EXPECT_EQ(r.code, 0) << cmd << ": " << r.output;
    EXPECT_NE(r.output.find("Usage"), std::string::npos) << r.output;
  }
}

TEST_F(TrainCli, TrainsAndWritesTheModelDirectory) {
  const Result& r = trained();
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("trained " + path("model") + " to step 12"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("validation at step 4"), std::string::npos) << r.output;
  for (const char* f : {"config.yaml", "src.vocab", "tgt.vocab", "best.safetensors",
                        "last.safetensors", "training_state.safetensors", "history.jsonl",
                        "train.log", "checkpoints/step_8.safetensors",
                        "checkpoints/step_12.safetensors"})
    EXPECT_TRUE(fs::exists(path("model/") + f)) << f;
  EXPECT_FALSE(fs::exists(path("model/checkpoints/step_4.safetensors")));  // keep_checkpoints 2
  // Three validations, each a JSON line with the dev loss and the WER.
  const std::string history = read_file(path("model/history.jsonl"));
  int lines = 0;
  for (char c : history) lines += c == '\n';
  EXPECT_EQ(lines, 3) << history;
  EXPECT_NE(history.find("\"wer\""), std::string::npos);
  EXPECT_NE(read_file(path("model/train.log")).find("step 10/12"), std::string::npos);
  // Weights load by PyTorch name.
  const SafeTensorsFile best = load_safetensors(path("model/best.safetensors"));
  EXPECT_GT(best.tensors.size(), 4u);
  EXPECT_TRUE(best.contains("encoder.weight_ih_l0_reverse") || best.tensors.size() > 4);
}

// training.sort_pool reaches the batch plan: pools of one pair make a batch of each of the
// 300 training pairs, where the whole corpus as one pool (0, or the default 8,192 here) packs
// pairs of alike lengths into batches of up to 200 tokens.
TEST_F(TrainCli, SortPoolSetsHowManyPairsAreSortedTogether) {
  const auto steps_in_first_epoch = [](const std::string& pool) {
    const Result r = run("train " + path("config.yaml") + " --set output=" + path("pool" + pool) +
                         " --set training.sort_pool=" + pool + " --set training.max_steps=0" +
                         " --set training.max_epochs=1 --set training.validate_every=1000");
    EXPECT_EQ(r.code, 0) << r.output;
    const std::string done = "epoch 1 done at step ";
    const std::size_t at = r.output.find(done);
    EXPECT_NE(at, std::string::npos) << r.output;
    return at == std::string::npos ? -1 : std::stoi(r.output.substr(at + done.size()));
  };
  EXPECT_EQ(steps_in_first_epoch("1"), 300);
  const int whole = steps_in_first_epoch("0");
  EXPECT_GE(whole, 300 * 4 / 200);  // at least 4 tokens (3 + EOS) a pair
  EXPECT_LT(whole, 30);
}

TEST_F(TrainCli, ResumedRunEqualsUninterruptedRun) {
  ASSERT_EQ(trained().code, 0);
  const std::string half = "train " + path("config.yaml") + " --set output=" + path("resumed");
  const Result a = run(half + " --set training.max_steps=6");
  ASSERT_EQ(a.code, 0) << a.output;
  const Result b = run(half);  // max_steps 12 as in the config
  ASSERT_EQ(b.code, 0) << b.output;
  EXPECT_NE(b.output.find("resuming"), std::string::npos) << b.output;
  for (const char* f : {"last.safetensors", "best.safetensors", "checkpoints/step_12.safetensors"})
    EXPECT_EQ(read_file(path("resumed/") + f), read_file(path("model/") + f)) << f;
  EXPECT_EQ(read_file(path("resumed/history.jsonl")).size() > 0, true);
  // Running again has nothing left to do and changes no weights.
  const Result c = run(half);
  EXPECT_EQ(c.code, 0) << c.output;
  EXPECT_EQ(read_file(path("resumed/last.safetensors")), read_file(path("model/last.safetensors")));
}

TEST_F(TrainCli, Bf16ProductsTrainAndAreRecorded) {
  HEED_SKIP_WITHOUT_BF16();
  ASSERT_EQ(trained().code, 0);
  const Result r = run("train " + path("config.yaml") + " --set output=" + path("bf16") +
                       " --set training.precision=bf16");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("trained " + path("bf16") + " to step 12"), std::string::npos) << r.output;
  EXPECT_NE(read_file(path("bf16/config.yaml")).find("precision: bf16"), std::string::npos);
  // Different products, so different weights than the fp32 run of the same seed.
  EXPECT_NE(read_file(path("bf16/last.safetensors")), read_file(path("model/last.safetensors")));
}

// model.attention.mode: hard end to end: REINFORCE training resumes exactly (the samples'
// generator and the baseline are in the training state), info names the mode, translate
// decodes with the argmax position and writes the weights alpha.
TEST_F(TrainCli, HardAttentionTrainsResumesAndTranslates) {
  const std::string hard = " --set model.attention.mode=hard --set training.entropy_weight=0.01";
  const std::string full = "train " + path("config.yaml") + hard + " --set output=" + path("hard");
  const Result a = run(full);
  ASSERT_EQ(a.code, 0) << a.output;
  EXPECT_NE(read_file(path("hard/config.yaml")).find("mode: hard"), std::string::npos);
  const std::string half = "train " + path("config.yaml") + hard + " --set output=" + path("hard2");
  ASSERT_EQ(run(half + " --set training.max_steps=6").code, 0);
  const Result b = run(half);
  ASSERT_EQ(b.code, 0) << b.output;
  EXPECT_NE(b.output.find("resuming"), std::string::npos) << b.output;
  EXPECT_EQ(read_file(path("hard2/last.safetensors")), read_file(path("hard/last.safetensors")));
  // Hard attention trains other weights than soft attention from the same seed.
  ASSERT_EQ(trained().code, 0);
  EXPECT_NE(read_file(path("hard/last.safetensors")), read_file(path("model/last.safetensors")));
  const Result info = run("info --model " + path("hard"));
  ASSERT_EQ(info.code, 0) << info.output;
  EXPECT_NE(info.output.find("hard attention (decoding: argmax)"), std::string::npos)
      << info.output;
  write_file(path("hard_in.txt"), "abc\nhgfe\n");
  const Result t = run("translate -m " + path("hard") + " --attention " + path("hard.json") +
                       " --input " + path("hard_in.txt"));
  ASSERT_EQ(t.code, 0) << t.output;
  EXPECT_FALSE(read_file(path("hard.json")).empty());
  // Refused for the kind without attention, naming the key.
  const Result n = run("train " + path("config.yaml") + hard + " --set model.kind=noattn" +
                       " --set output=" + path("hard_noattn"));
  EXPECT_NE(n.code, 0);
  EXPECT_NE(n.output.find("model.attention.mode"), std::string::npos) << n.output;
}

TEST_F(TrainCli, ResumeWithAnotherModelIsRefused) {
  ASSERT_EQ(trained().code, 0);
  const Result r = run("train " + path("config.yaml") + " --set model.emb_dim=9");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("holds a training run with another config"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("emb_dim: 9"), std::string::npos) << r.output;
}

TEST_F(TrainCli, InfoShowsArchitectureParametersAndHistory) {
  ASSERT_EQ(trained().code, 0);
  const Result r = run("info --model " + path("model"));
  ASSERT_EQ(r.code, 0) << r.output;
  for (const char* s : {"architecture: bahdanau", "vocabularies: source 12 (char), target 12 (char)",
                        "parameters:", "total", "training: 12 steps", "validations: 3",
                        "best dev wer:", "step checkpoints: 8 12"})
    EXPECT_NE(r.output.find(s), std::string::npos) << s << "\n" << r.output;
  const Result missing = run("info --model " + path("nowhere"));
  EXPECT_EQ(missing.code, 1);
  EXPECT_NE(missing.output.find("no such model directory"), std::string::npos) << missing.output;
}

TEST_F(TrainCli, AverageOfTwoCheckpointsIsTheirMean) {
  ASSERT_EQ(trained().code, 0);
  const Result r = run("average --model " + path("model") + " --last 2 --out " + path("avg.safetensors"));
  ASSERT_EQ(r.code, 0) << r.output;
  const SafeTensorsFile a = load_safetensors(path("model/checkpoints/step_8.safetensors"));
  const SafeTensorsFile b = load_safetensors(path("model/checkpoints/step_12.safetensors"));
  const SafeTensorsFile m = load_safetensors(path("avg.safetensors"));
  ASSERT_EQ(m.tensors.size(), a.tensors.size());
  for (const auto& [name, t] : m.tensors) {
    const auto x = a.get(name).to_vector(), y = b.get(name).to_vector(), z = t.to_vector();
    ASSERT_EQ(z.size(), x.size());
    for (std::size_t i = 0; i < z.size(); ++i)
      ASSERT_EQ(z[i], static_cast<double>(static_cast<float>((x[i] + y[i]) / 2))) << name << " " << i;
  }
  const Result too_many = run("average --model " + path("model") + " --last 3 --out " + path("x.safetensors"));
  EXPECT_EQ(too_many.code, 1);
  EXPECT_NE(too_many.output.find("fewer than --last 3"), std::string::npos) << too_many.output;
}

TEST_F(TrainCli, LoadModelDirRestoresModelVocabulariesAndTokenizers) {
  ASSERT_EQ(trained().code, 0);
  for (const char* which : {"best", "last"}) {
    LoadedModel m = load_model_dir(path("model"), which);
    EXPECT_EQ(m.src_vocab.size(), 12u);
    EXPECT_EQ(m.tgt_vocab.size(), 12u);
    EXPECT_EQ(m.src_tokenizer->name(), "char");
    EXPECT_EQ(m.config.model.kind, ModelKind::bahdanau);
    EXPECT_FALSE(m.model->training());
    const SafeTensorsFile f = load_safetensors(path("model/") + which + ".safetensors");
    for (const auto& [name, v] : m.model->named_parameters())
      EXPECT_EQ(v.value().to_vector(), f.get(name).to_vector()) << name;
  }
  EXPECT_NO_THROW(load_model_dir(path("model"), path("model/checkpoints/step_8.safetensors")));
  try {
    load_model_dir(path("model"), path("nope.safetensors"));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no such weights file"), std::string::npos) << e.what();
  }
  EXPECT_THROW(load_model_dir(path("nowhere")), Error);
}

TEST_F(TrainCli, BadConfigExitsWithCode2AndNamesTheKey) {
  const std::string config = read_file(path("config.yaml"));
  const auto line = std::count(config.begin(), config.end(), '\n') + 1;
  write_file(path("bad.yaml"), config + "extra: 1\n");
  Result r = run("train " + path("bad.yaml"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("bad.yaml:" + std::to_string(line) + ": unknown key 'extra'"),
            std::string::npos)
      << r.output;
  r = run("train " + path("config.yaml") + " --set training.lr=fast");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--set: training.lr: expected a number, got 'fast'"), std::string::npos)
      << r.output;
  r = run("train");
  EXPECT_EQ(r.code, 2) << r.output;
}

TEST_F(TrainCli, MissingFilesAreNamed) {
  Result r = run("train " + path("no_such.yaml"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("no_such.yaml: cannot open the config for reading"), std::string::npos)
      << r.output;
  r = run("train " + path("config.yaml") + " --set output=" + path("m2") +
          " --set data.train_source=" + path("missing.src"));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("missing.src: cannot open for reading"), std::string::npos) << r.output;
}

TEST_F(TrainCli, InterruptSavesStateAndExits130) {
  // SIGINT after a moment; with an endless step limit the run can only end by the signal.
  const Result r = run_shell("timeout --preserve-status -s INT 3 '" + heed_binary() + "' train " +
                             path("config.yaml") + " --set output=" + path("interrupted") +
                             " --set training.max_steps=1000000 --set training.max_epochs=0 2>&1");
  const std::string& out = r.output;
  EXPECT_EQ(r.code, 130) << out;
  EXPECT_NE(out.find("interrupted"), std::string::npos) << out;
  EXPECT_TRUE(fs::exists(path("interrupted/training_state.safetensors"))) << out;
}

TEST_F(TrainCli, TermFromTimeoutSavesStateEveryTime) {
  // GNU timeout sends SIGTERM to heed and then to its process group: the same request
  // twice. Both must give one clean stop. Sixteen OpenMP threads and a model wide enough
  // for oneDNN's AVX-512 GEMM kernel make a signal land on a compute thread likely: a
  // handler run there corrupted the heap (base/stop_signals.h).
  for (int round = 0; round < 3; ++round) {
    const std::string out_dir = path("term" + std::to_string(round));
    const Result r = run_shell(
        "OMP_NUM_THREADS=16 timeout -s TERM " + std::to_string(2 + round) + " '" +
        heed_binary() + "' train " + path("config.yaml") + " --set output=" + out_dir +
        " --set training.max_steps=1000000 --set training.max_epochs=0" +
        " --set model.enc_hidden=384 --set model.dec_hidden=384 --set model.attn_dim=384" +
        " --set training.threads=2 2>&1");
    const std::string& out = r.output;
    EXPECT_EQ(r.code, 124) << out;  // timeout's code for "it timed out"
    EXPECT_NE(out.find("interrupted; the training state is saved"), std::string::npos) << out;
    EXPECT_EQ(out.find("corrupted"), std::string::npos) << out;
    EXPECT_TRUE(fs::exists(out_dir + "/training_state.safetensors")) << out;
  }
}

TEST_F(TrainCli, SecondTrainingOnOneDirectoryIsRefusedNamingThePid) {
  // The first run holds the directory's lock (.heed.lock, its pid inside) until it ends; a
  // second run on the same directory is refused at once and changes nothing there.
  const std::string dir = path("locked");
  const std::string train = "'" + heed_binary() + "' train " + path("config.yaml") +
                            " --set output=" + dir +
                            " --set training.max_steps=1000000 --set training.max_epochs=0";
  const Result r = run_shell(
      train + " >" + path("first.log") + " 2>&1 & first=$!\n"
      "for i in $(seq 1 400); do [ -s " + dir + "/training_state.safetensors ] && break; "
      "sleep 0.05; done\n"
      "echo \"first pid $first\"\n" +
      train + " 2>&1; echo \"second exit $?\"\n"
      "kill -INT $first; wait $first; echo \"first exit $?\"\n");
  const std::string& out = r.output;
  const auto at = out.find("first pid ");
  ASSERT_NE(at, std::string::npos) << out;
  const std::string pid = out.substr(at + 10, out.find('\n', at) - at - 10);
  EXPECT_NE(out.find("in use by another heed process (pid " + pid + ")"), std::string::npos)
      << out;
  EXPECT_NE(out.find("second exit 1"), std::string::npos) << out;
  EXPECT_NE(out.find("first exit 130"), std::string::npos) << out << read_file(path("first.log"));
  EXPECT_FALSE(fs::exists(dir + "/.heed.lock"));
  // Only the first run's resume message-free log: the second never wrote to the directory.
  EXPECT_EQ(read_file(dir + "/train.log").find("resuming"), std::string::npos);
}

}  // namespace
}  // namespace heed
