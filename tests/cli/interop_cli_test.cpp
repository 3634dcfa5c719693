// End-to-end tests of `heed export` and `heed import` (docs/cli/export.md, import.md): a
// trained model goes out and back in and translates the same (an image model or a memory
// network: evaluates the same); a PyTorch-saved fixture
// (tests/golden/interop_*) imports with its metadata or with --config and vocabularies
// given; mistakes are exit 1 with a message naming the file, bad command lines exit 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli/cli_test_util.h"
#include "cli/quadrant_images.h"
#include "heed/store/interop.h"
#include "heed/tensor/safetensors.h"
#include "support/babi_moves.h"

namespace heed {
namespace {

using testing::CommandResult;
using testing::run_heed;
using testing::ScratchDir;

std::string fixture(const std::string& name) {
  return std::string(HEED_GOLDEN_DIR) + "/" + name + ".safetensors";
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

#define EXPECT_OUTPUT_HAS(result, part) \
  EXPECT_NE((result).output.find(part), std::string::npos) << "expected '" << (part) << "' in: " << (result).output

class InteropCli : public ::testing::Test {
 protected:
  ScratchDir dir_{"heed_cli_interop"};
  std::string input() { return dir_.file("in.txt", "a b c\nd e f a\ng\n"); }
  // `heed translate` of input() (whitespace-separated letters) through model directory m.
  CommandResult translate(const std::string& m, const std::string& in) {
    return run_heed("translate --model " + m + " --input " + in);
  }
};

TEST_F(InteropCli, TrainedModelExportsAndImportsBack) {
  const std::string data = testing::write_reversal_task(dir_.path());
  const std::string config = dir_.file("config.yaml",
                                       data +
                                           "model:\n"
                                           "  kind: bahdanau\n"
                                           "  emb_dim: 8\n"
                                           "  enc_hidden: 8\n"
                                           "  dec_hidden: 8\n"
                                           "training:\n"
                                           "  max_tokens: 200\n"
                                           "  max_steps: 5\n"
                                           "  validate_every: 5\n"
                                           "output: " + dir_.path("trained") + "\n");
  ASSERT_EQ(run_heed("train " + config).exit_code, 0);
  const std::string out = dir_.path("model.safetensors");
  CommandResult r = run_heed("export --model " + dir_.path("trained") + " --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_OUTPUT_HAS(r, "exported 24 tensors");
  const SafeTensorsFile f = load_safetensors(out);
  EXPECT_EQ(f.metadata.at(interop_keys::kKind), "bahdanau");
  EXPECT_EQ(f.metadata.at(interop_keys::kWeights), "best");

  // No overwrite without --force; with it, the file is written again.
  r = run_heed("export --model " + dir_.path("trained") + " --weights last --out " + out);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_OUTPUT_HAS(r, "model.safetensors: exists");
  r = run_heed("export --model " + dir_.path("trained") + " --weights last --out " + out +
               " --force");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(load_safetensors(out).metadata.at(interop_keys::kWeights), "last");

  r = run_heed("import --from-pytorch " + out + " --out " + dir_.path("back"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string in = dir_.file("letters.txt", "abc\nhgfe\nda\n");
  const CommandResult a = run_heed("translate --model " + dir_.path("trained") +
                                   " --checkpoint last --input " + in);
  const CommandResult b = translate(dir_.path("back"), in);
  ASSERT_EQ(a.exit_code, 0) << a.output;
  ASSERT_EQ(b.exit_code, 0) << b.output;
  EXPECT_EQ(a.output, b.output);
  EXPECT_EQ(run_heed("info --model " + dir_.path("back")).exit_code, 0);
  EXPECT_EQ(read(dir_.path("trained/src.vocab")), read(dir_.path("back/src.vocab")));
}

TEST_F(InteropCli, PyTorchStateWithMetadataOrGivenFiles) {
  const std::string state = fixture("interop_luong_general_feed");
  CommandResult r = run_heed("import --from-pytorch " + state + " --out " + dir_.path("m1"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_OUTPUT_HAS(r, "imported");

  // The same state without relying on its metadata: config and vocabularies as files.
  const SafeTensorsFile f = load_safetensors(state);
  const std::string config = dir_.file("c.yaml", f.metadata.at(interop_keys::kConfig));
  const std::string sv = dir_.file("s.vocab", f.metadata.at(interop_keys::kSrcVocab));
  const std::string tv = dir_.file("t.vocab", f.metadata.at(interop_keys::kTgtVocab));
  r = run_heed("import --from-pytorch " + state + " --config " + config + " --src-vocab " + sv +
               " --tgt-vocab " + tv + " --out " + dir_.path("m2"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string in = input();
  const CommandResult a = translate(dir_.path("m1"), in), b = translate(dir_.path("m2"), in);
  ASSERT_EQ(a.exit_code, 0) << a.output;
  EXPECT_EQ(a.output, b.output);
  EXPECT_EQ(read(dir_.path("m1/best.safetensors")), read(dir_.path("m2/best.safetensors")));

  // One --vocab for both sides: the source embedding has 11 rows, the target vocabulary 13.
  r = run_heed("import --from-pytorch " + state + " --vocab " + tv + " --out " +
               dir_.path("m3"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_OUTPUT_HAS(r, "wrong shape: src_emb.weight (11, 5) where the model has (13, 5)");
  EXPECT_FALSE(std::filesystem::exists(dir_.path("m3")));

  // Into a directory that holds something: refused, nothing touched.
  r = run_heed("import --from-pytorch " + state + " --out " + dir_.path("m1"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_OUTPUT_HAS(r, "m1: exists");
}

// The image kinds: a ram and an image2seq model trained on the quadrant images go out and
// back in without any source vocabulary, and heed eval, info and show --images read the
// imported directories and say what they said of the trained ones.
TEST_F(InteropCli, ImageModelsExportAndImportBack) {
  Rng rng(3);
  testing::write_quadrants(dir_, "train", 64, rng);
  testing::write_quadrants(dir_, "test", 12, rng);
  const std::string images = dir_.path("test-images-idx3-ubyte.gz");
  const std::string data = "data:\n  train_images: " + dir_.path("train-images-idx3-ubyte.gz") +
                           "\n  train_target: " + dir_.path("train.tgt") + "\n";
  const std::string training =
      "training:\n  max_sentences: 16\n  max_epochs: 0\n  max_steps: 4\n  threads: 1\n";
  struct Case {
    std::string kind, model, eval_flag;
    int tensors;
  };
  const Case cases[] = {
      {"ram", "  glimpses: 3\n  glimpse_size: 4\n  scales: 2\n  glimpse_hidden: 8\n"
              "  location_hidden: 4\n  glimpse_dim: 8\n  core: lstm\n  core_hidden: 8\n",
       " --locations ", 18},
      {"image2seq", "  conv_layers: 2\n  conv_channels: 3\n  emb_dim: 4\n  dec_hidden: 6\n"
                    "  attn_dim: 5\n",
       " --attention ", 19}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.kind);
    const std::string trained = dir_.path(c.kind), back = dir_.path(c.kind + "_back");
    const std::string config = dir_.file(
        c.kind + ".yaml", data + "model:\n  kind: " + c.kind + "\n" + c.model + training +
                              "output: " + trained + "\n");
    CommandResult r = run_heed("train " + config);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::string out = dir_.path(c.kind + ".safetensors");
    r = run_heed("export --model " + trained + " --out " + out);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_OUTPUT_HAS(r, "exported " + std::to_string(c.tensors) + " tensors");
    const SafeTensorsFile f = load_safetensors(out);
    EXPECT_EQ(f.metadata.at(interop_keys::kKind), c.kind);
    EXPECT_EQ(f.metadata.count(interop_keys::kSrcVocab), 0u);
    EXPECT_EQ(f.metadata.at(interop_keys::kTgtVocab), read(trained + "/tgt.vocab"));

    // From the file's own metadata; and from a config and a class list given as files.
    r = run_heed("import --from-pytorch " + out + " --out " + back);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_FALSE(std::filesystem::exists(back + "/src.vocab"));
    const std::string back2 = dir_.path(c.kind + "_back2");
    r = run_heed("import --from-pytorch " + out + " --config " + trained + "/config.yaml" +
                 " --tgt-vocab " + trained + "/tgt.vocab --out " + back2);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(read(back + "/best.safetensors"), read(back2 + "/best.safetensors"));

    // The same file for both runs: the summary names it.
    const std::string jsonl = dir_.path(c.kind + ".jsonl");
    const CommandResult a =
        run_heed("eval --model " + trained + " --images " + images + c.eval_flag + jsonl);
    ASSERT_EQ(a.exit_code, 0) << a.output;
    const std::string a_lines = read(jsonl);
    const CommandResult b =
        run_heed("eval --model " + back + " --images " + images + c.eval_flag + jsonl);
    ASSERT_EQ(b.exit_code, 0) << b.output;
    EXPECT_EQ(a.output, b.output);
    EXPECT_EQ(a_lines, read(jsonl));
    EXPECT_NE(a_lines.find("\"image\":11,"), std::string::npos) << a_lines;  // 12 lines
    // A classifier's lines carry its class probabilities (what the round trip compares).
    if (c.kind == "ram") {
      EXPECT_NE(a_lines.find("\"probabilities\":[0."), std::string::npos) << a_lines;
    }
    r = run_heed("info --model " + back);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_OUTPUT_HAS(r, c.kind);
    r = run_heed("show -m " + back + " --images " + images + " --max-images 2 -o " +
                 dir_.path(c.kind + "_show"));
    EXPECT_EQ(r.exit_code, 0) << r.output;

    // No source side: --src-vocab (or --vocab) is refused, and nothing is written.
    r = run_heed("import --from-pytorch " + out + " --vocab " + trained + "/tgt.vocab --out " +
                 dir_.path("refused"));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_OUTPUT_HAS(r, "model.kind " + c.kind + " reads images and has no source vocabulary");
    EXPECT_FALSE(std::filesystem::exists(dir_.path("refused")));
  }
}

// The memory network: trained on the generated "where is X?" task, out and back in (from the
// file's metadata, and from the config and its one vocabulary given as files); heed eval
// answers every question as before with the same hops, and info and show read the import.
TEST_F(InteropCli, MemoryNetworkExportsAndImportsBack) {
  std::filesystem::create_directories(dir_.path("babi"));
  dir_.file("babi/qa1_moves_train.txt", testing::babi_moves_text(60, 21));
  dir_.file("babi/qa1_moves_test.txt", testing::babi_moves_text(10, 22));
  const std::string story = dir_.file("story.txt", testing::babi_moves_text(1, 23));
  const std::string trained = dir_.path("memn2n"), back = dir_.path("memn2n_back");
  const std::string config = dir_.file(
      "memn2n.yaml", "data:\n  babi: {dir: " + dir_.path("babi") + ", tasks: '1'}\n"
                     "model: {kind: memn2n, emb_dim: 8, hops: 2, memory_size: 6}\n"
                     "training: {max_sentences: 16, max_steps: 6, validate_every: 6, "
                     "threads: 1}\noutput: " + trained + "\n");
  CommandResult r = run_heed("train " + config);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string out = dir_.path("memn2n.safetensors");
  r = run_heed("export --model " + trained + " --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_OUTPUT_HAS(r, "exported 6 tensors");  // embeddings.0-2, temporal.0-2
  const SafeTensorsFile f = load_safetensors(out);
  EXPECT_EQ(f.metadata.at(interop_keys::kKind), "memn2n");
  EXPECT_EQ(f.metadata.at(interop_keys::kSrcVocab), read(trained + "/src.vocab"));
  EXPECT_EQ(f.metadata.at(interop_keys::kTgtVocab), read(trained + "/src.vocab"));

  r = run_heed("import --from-pytorch " + out + " --out " + back);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(read(back + "/src.vocab"), read(trained + "/src.vocab"));
  EXPECT_EQ(read(back + "/tgt.vocab"), read(trained + "/src.vocab"));
  const std::string back2 = dir_.path("memn2n_back2");
  r = run_heed("import --from-pytorch " + out + " --config " + trained + "/config.yaml" +
               " --vocab " + trained + "/src.vocab --out " + back2);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(read(back + "/best.safetensors"), read(back2 + "/best.safetensors"));

  // The same answers and hops; the first line names the model directory.
  const std::string jsonl = dir_.path("memn2n.jsonl");
  auto eval = [&](const std::string& m) {
    const CommandResult e = run_heed("eval --model " + m + " --attention " + jsonl);
    EXPECT_EQ(e.exit_code, 0) << e.output;
    EXPECT_OUTPUT_HAS(e, "mean error");
    return e.output.substr(e.output.find('\n') + 1) + read(jsonl);
  };
  const std::string a = eval(trained);
  EXPECT_NE(a.find("\"hops\":[["), std::string::npos) << a;
  EXPECT_EQ(eval(back), a);
  EXPECT_EQ(eval(back2), a);
  r = run_heed("info --model " + back);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_OUTPUT_HAS(r, "2 hops over the last 6 statements");
  r = run_heed("show -m " + back + " --input " + story + " -o " + dir_.path("memn2n_show"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(std::filesystem::exists(dir_.path("memn2n_show/question-0001.svg")));

  // One vocabulary: two that differ are refused, and nothing is written.
  const std::string other = dir_.file("other.vocab", read(trained + "/src.vocab") + "zz\n");
  r = run_heed("import --from-pytorch " + out + " --src-vocab " + trained + "/src.vocab" +
               " --tgt-vocab " + other + " --out " + dir_.path("refused"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_OUTPUT_HAS(r, "model.kind memn2n has one vocabulary");
  EXPECT_FALSE(std::filesystem::exists(dir_.path("refused")));
}

TEST_F(InteropCli, BadFilesAndCommandLines) {
  const std::string bad = dir_.file("bad.safetensors", "garbage");
  CommandResult r = run_heed("import --from-pytorch " + bad + " --out " + dir_.path("x"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_OUTPUT_HAS(r, "bad.safetensors");
  EXPECT_FALSE(std::filesystem::exists(dir_.path("x")));

  r = run_heed("export --model " + dir_.path("none") + " --out " + dir_.path("o.safetensors"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_OUTPUT_HAS(r, "none: no such model directory");

  EXPECT_EQ(run_heed("import --out " + dir_.path("x")).exit_code, 2);
  EXPECT_EQ(run_heed("export --model " + dir_.path("x")).exit_code, 2);
  r = run_heed("import --from-pytorch " + fixture("interop_noattn") + " --vocab a --src-vocab b" +
               " --out " + dir_.path("x"));
  EXPECT_EQ(r.exit_code, 2);
}

}  // namespace
}  // namespace heed
