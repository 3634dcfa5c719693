// data.spm_joint end to end through the heed binary: one SentencePiece model trained on both
// sides' lines, saved as both sides' model, so that a word is cut into the same pieces on
// both sides (what copy attention needs: it copies source pieces into the target); and the
// configs it refuses.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/cli_test_util.h"
#include "heed/data/sentencepiece_tokenizer.h"
#include "heed/store/model_dir.h"

namespace heed {
namespace {
using testing::run_heed;
using testing::ScratchDir;

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class SpmJoint : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(testing::heed_binary()))
      GTEST_SKIP() << testing::heed_binary() << " not built (ninja heed_cli)";
    // "zebra" only in the sources, "über" only in the targets.
    const char* shared[] = {"gate", "river", "stone", "window", "garden", "little"};
    std::string src, tgt;
    for (int i = 0; i < 400; ++i) {
      const std::string a = shared[i % 6], b = shared[(i / 6) % 6];
      src += a + " zebra " + b + " zebra " + a + "\n";
      tgt += b + " über " + a + "\n";
    }
    dir_.file("train.src", src);
    dir_.file("train.tgt", tgt);
  }
  std::string config(const std::string& extra) {
    return dir_.file("c.yaml",
                     "data:\n  train_source: " + dir_.path("train.src") +
                         "\n  train_target: " + dir_.path("train.tgt") +
                         "\n  source: {tokenizer: sentencepiece, spm_vocab_size: 80, spm_model_type: bpe, lowercase: true}"
                         "\n  target: {tokenizer: sentencepiece, spm_model_type: bpe, lowercase: true}\n" + extra +
                         "model: {kind: bahdanau, emb_dim: 8, enc_hidden: 8, dec_hidden: 8, "
                         "attn_dim: 8}\n"
                         "training: {max_steps: 1, max_epochs: 0, threads: 1}\n"
                         "output: " + dir_.path("m") + "\n");
  }
  std::string spm(const char* file) const { return dir_.path("m/" + std::string(file)); }
  ScratchDir dir_{"heed_spm_joint"};
};

TEST_F(SpmJoint, BothSidesGetTheModelTrainedOnBoth) {
  auto r = run_heed("train " + config("  spm_joint: true\n"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string src = read_bytes(spm(model_files::kSrcSpm));
  ASSERT_FALSE(src.empty());
  EXPECT_EQ(src, read_bytes(spm(model_files::kTgtSpm)));
  const auto tok = SentencePieceTokenizer::load(spm(model_files::kTgtSpm), true);
  // Trained on both sides: a source-only word is one piece, as the source's own model would
  // make it, and so is a target-only word.
  EXPECT_EQ(tok.encode("zebra"), std::vector<std::string>{"\u2581zebra"});
  EXPECT_EQ(tok.encode("über"), std::vector<std::string>{"\u2581über"});
}

TEST_F(SpmJoint, SeparateModelsCutAWordDifferently) {
  // The reason for the key: without it, a word the source copies is cut one way in the
  // source and another in the target, so the target's pieces are not the source's.
  auto r = run_heed("train " + config(""));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string src = read_bytes(spm(model_files::kSrcSpm));
  EXPECT_NE(src, read_bytes(spm(model_files::kTgtSpm)));
  const auto source = SentencePieceTokenizer::load(spm(model_files::kSrcSpm), true);
  const auto target = SentencePieceTokenizer::load(spm(model_files::kTgtSpm), true);
  EXPECT_EQ(source.encode("zebra"), std::vector<std::string>{"\u2581zebra"});
  EXPECT_NE(target.encode("zebra"), source.encode("zebra"));
}

TEST_F(SpmJoint, RefusesSidesThatCannotShareAModel) {
  const auto refused = [&](const std::string& set, const std::string& why) {
    auto r = run_heed("train " + config("  spm_joint: true\n") + " " + set);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("data.spm_joint"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(why), std::string::npos) << r.output;
    EXPECT_FALSE(std::filesystem::exists(dir_.path("m")));
  };
  refused("--set data.target.tokenizer=char", "needs data.source.tokenizer and data.target.tokenizer sentencepiece");
  refused("--set data.target.lowercase=false", "lowercases both sides or neither");
  refused("--set data.target.spm_model=x.model", "remove data.target.spm_model");
}

}  // namespace
}  // namespace heed
