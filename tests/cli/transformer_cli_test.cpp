// model.kind transformer end to end through the heed binary: heed train learns the
// word-reversal task in seconds and resumes; heed translate (greedy, beam, n-best, the
// attention JSON, hard alignments), heed info, heed export and heed import (a round trip that
// translates the same) and heed show read the model like any text model; with
// model.share_embeddings, one embedding table over a joint vocabulary does all of that too.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/cli_test_util.h"
#include "heed/tensor/safetensors.h"

namespace heed {
namespace {
using testing::CommandResult;
using testing::run_heed;
using testing::ScratchDir;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class TransformerCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new ScratchDir("heed_cli_transformer");
    Rng rng(7);  // 2000 training pairs of 3-6 letters from a-f (the model must generalise)
    for (const char* split : {"train", "dev"}) {
      const auto [src, tgt] =
          testing::reversal_lines(rng, std::string(split) == "train" ? 2000 : 20, 3, 4, 6);
      dir_->file(std::string(split) + ".src", src);
      dir_->file(std::string(split) + ".tgt", tgt);
    }
    const std::string data = "data:\n  train_source: " + dir_->path("train.src") +
                             "\n  train_target: " + dir_->path("train.tgt") +
                             "\n  dev_source: " + dir_->path("dev.src") +
                             "\n  dev_target: " + dir_->path("dev.tgt") + "\n";
    config_ = dir_->file("config.yaml", data +
                                            "model:\n"
                                            "  kind: transformer\n"
                                            "  d_model: 32\n"
                                            "  heads: 4\n"
                                            "  ff_dim: 64\n"
                                            "  enc_layers: 1\n"
                                            "  dec_layers: 1\n"
                                            "training:\n"
                                            "  lr: 0.003\n"
                                            "  schedule: warmup\n"
                                            "  warmup_steps: 40\n"
                                            "  max_tokens: 300\n"
                                            "  max_steps: 1000\n"
                                            "  max_epochs: 0\n"
                                            "  validate_every: 500\n"
                                            "  threads: 1\n"
                                            "output: " + dir_->path("model") + "\n");
    trained_ = run_heed("train " + config_);
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static std::string model() { return dir_->path("model"); }
  static std::string dev(const char* ext) { return dir_->path(std::string("dev.") + ext); }

  static ScratchDir* dir_;
  static std::string config_;
  static CommandResult trained_;
};
ScratchDir* TransformerCli::dir_ = nullptr;
std::string TransformerCli::config_;
CommandResult TransformerCli::trained_;

TEST_F(TransformerCli, TrainsAndTranslatesTheReversal) {
  ASSERT_EQ(trained_.exit_code, 0) << trained_.output;
  EXPECT_NE(trained_.output.find("transformer model with"), std::string::npos) << trained_.output;
  const CommandResult greedy = run_heed("translate --model " + model() + " -i " + dev("src"));
  ASSERT_EQ(greedy.exit_code, 0) << greedy.output;
  const std::vector<std::string> got = lines_of(greedy.output), want = lines_of(read_file(dev("tgt")));
  ASSERT_EQ(got.size(), want.size());
  int exact = 0;
  for (std::size_t i = 0; i < got.size(); ++i) exact += got[i] == want[i];
  std::printf("transformer: %d of %zu dev words reversed exactly\n", exact, got.size());
  EXPECT_GE(exact, 15) << greedy.output;  // chance is none
  const CommandResult beam =
      run_heed("translate --model " + model() + " --beam 4 --nbest 2 -i " + dev("src"));
  ASSERT_EQ(beam.exit_code, 0) << beam.output;
  EXPECT_EQ(lines_of(beam.output).size(), 2 * want.size());
  EXPECT_NE(beam.output.find("19 ||| "), std::string::npos) << beam.output;  // n-best lines
  // bf16 decoding (every product on bfloat16 copies of the weights): the same words, greedy
  // and with a beam, where the CPU has bf16 products.
  const CommandResult bf16 =
      run_heed("translate --precision bf16 --model " + model() + " -i " + dev("src"));
  if (bf16.exit_code == 0) {
    EXPECT_EQ(bf16.output, greedy.output);
    const CommandResult bf16_beam = run_heed("translate --precision bf16 --model " + model() +
                                             " --beam 4 --nbest 2 -i " + dev("src"));
    ASSERT_EQ(bf16_beam.exit_code, 0) << bf16_beam.output;
    // The n-best lines' words (their scores differ in the last digits).
    const auto words = [](const std::string& text) {
      std::string out;
      for (const std::string& l : lines_of(text)) out += l.substr(0, l.rfind(" ||| ")) + "\n";
      return out;
    };
    EXPECT_EQ(words(bf16_beam.output), words(beam.output));
  } else {
    EXPECT_NE(bf16.output.find("bf16"), std::string::npos) << bf16.output;  // refused: no kernel
  }
}

TEST_F(TransformerCli, Int8TranslationsAreThoseOfFp32) {
  // --precision int8: every projection of the layers and the output layer on int8 weights
  // and inputs (tests/decode/int8_decoding_test.cpp proves each runs int8); on the trained
  // model the dev words come out as in fp32, with at most one exception.
  ASSERT_EQ(trained_.exit_code, 0) << trained_.output;
  const CommandResult fp32 = run_heed("translate --model " + model() + " -i " + dev("src"));
  const CommandResult int8 =
      run_heed("translate --model " + model() + " --precision int8 -i " + dev("src"));
  ASSERT_EQ(fp32.exit_code, 0) << fp32.output;
  ASSERT_EQ(int8.exit_code, 0) << int8.output;
  const std::vector<std::string> a = lines_of(fp32.output), b = lines_of(int8.output);
  ASSERT_EQ(a.size(), b.size());
  int same = 0;
  for (std::size_t i = 0; i < a.size(); ++i) same += a[i] == b[i];
  std::printf("transformer: %d of %zu dev words decoded alike at fp32 and int8\n", same, a.size());
  EXPECT_GE(same, static_cast<int>(a.size()) - 1) << fp32.output << "\n---\n" << int8.output;
}

TEST_F(TransformerCli, QuantizedDirectoryTranslatesAsTheOriginalAtInt8) {
  ASSERT_EQ(trained_.exit_code, 0) << trained_.output;
  const std::string q = dir_->path("quantized");
  const CommandResult made = run_heed("quantize --model " + model() + " --out " + q);
  ASSERT_EQ(made.exit_code, 0) << made.output;
  EXPECT_NE(made.output.find("weight matrices int8"), std::string::npos) << made.output;
  // One byte a weight instead of four, plus a scale a row (4 bytes for 32 weights at
  // d_model 32, a quarter of the int8 bytes; less for wider rows) and the fp32 biases and
  // norms.
  const double ratio = double(std::filesystem::file_size(q + "/best.safetensors")) /
                       double(std::filesystem::file_size(model() + "/best.safetensors"));
  std::printf("transformer: quantised weights file %.3f of fp32's\n", ratio);
  EXPECT_GT(ratio, 0.25);
  EXPECT_LT(ratio, 0.37);
  // Decoded at int8 by default: the products' weights re-quantise to the stored int8
  // values, so it differs from the original at --precision int8 only by its embeddings
  // (looked up, not multiplied: int8-rounded here, fp32 there). The same best words.
  const std::string args = " --beam 3 -i " + dev("src");
  const CommandResult original = run_heed("translate --model " + model() + " --precision int8" + args);
  const CommandResult quantized = run_heed("translate --model " + q + args);
  ASSERT_EQ(original.exit_code, 0) << original.output;
  ASSERT_EQ(quantized.exit_code, 0) << quantized.output;
  EXPECT_EQ(quantized.output, original.output);
  // --precision fp32 decodes the dequantised weights in fp32: the words of fp32's output.
  const CommandResult fp32 = run_heed("translate --model " + model() + " -i " + dev("src"));
  const CommandResult dequantized =
      run_heed("translate --model " + q + " --precision fp32 -i " + dev("src"));
  ASSERT_EQ(dequantized.exit_code, 0) << dequantized.output;
  const std::vector<std::string> a = lines_of(fp32.output), b = lines_of(dequantized.output);
  ASSERT_EQ(a.size(), b.size());
  int same = 0;
  for (std::size_t i = 0; i < a.size(); ++i) same += a[i] == b[i];
  EXPECT_GE(same, static_cast<int>(a.size()) - 1);
  // heed info reads it; training into it is refused by name.
  EXPECT_EQ(run_heed("info --model " + q).exit_code, 0);
  const CommandResult train = run_heed("train " + config_ + " --set output=" + q);
  EXPECT_EQ(train.exit_code, 1) << train.output;
  EXPECT_NE(train.output.find("holds a quantised model"), std::string::npos) << train.output;
}

TEST_F(TransformerCli, AttentionAndAlignmentsComeFromTheEncoderDecoderAttention) {
  ASSERT_EQ(trained_.exit_code, 0) << trained_.output;
  const std::string att = dir_->path("att.jsonl");
  const CommandResult r = run_heed("translate --model " + model() + " --attention " + att +
                                   " --alignment hard -i " + dev("src"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(" ||| "), std::string::npos) << r.output;  // alignments printed
  const std::string json = read_file(att);
  EXPECT_NE(json.find("\"attention\":[["), std::string::npos) << json.substr(0, 300);
  const CommandResult show = run_heed("show --model " + model() + " --input " + dev("src") +
                                      " --out " + dir_->path("show"));
  ASSERT_EQ(show.exit_code, 0) << show.output;
  EXPECT_TRUE(std::filesystem::exists(dir_->path("show/report.html")));
  // Besides the attention and saliency of each sentence, every layer's heads.
  EXPECT_TRUE(std::filesystem::exists(dir_->path("show/sentence-0001.svg")));
  EXPECT_TRUE(std::filesystem::exists(dir_->path("show/sentence-0001-heads.svg")));
  EXPECT_TRUE(std::filesystem::exists(dir_->path("show/sentence-0020-heads.png")));
  EXPECT_TRUE(std::filesystem::exists(dir_->path("show/sentence-0001-encoder-heads.svg")));
  EXPECT_TRUE(std::filesystem::exists(dir_->path("show/sentence-0001-decoder-heads.png")));
  // The report links every picture of a sentence, the heads' too.
  const std::string report = read_file(dir_->path("show/report.html"));
  for (const char* name : {"sentence-0001-heads", "sentence-0001-encoder-heads",
                           "sentence-0020-decoder-heads"})
    EXPECT_NE(report.find(std::string("\"name\":\"") + name + "\""), std::string::npos) << name;
}

TEST_F(TransformerCli, InfoExportImportAndResume) {
  ASSERT_EQ(trained_.exit_code, 0) << trained_.output;
  const CommandResult info = run_heed("info --model " + model());
  ASSERT_EQ(info.exit_code, 0) << info.output;
  EXPECT_NE(info.output.find("d_model 32, 4 heads, ff_dim 64, 1 encoder and 1 decoder layers, "
                             "pre-norm, sinusoidal positions"),
            std::string::npos)
      << info.output;
  const std::string pt = dir_->path("x.safetensors"), imported = dir_->path("imported");
  ASSERT_EQ(run_heed("export --model " + model() + " --out " + pt).exit_code, 0);
  const CommandResult imp = run_heed("import --from-pytorch " + pt + " --out " + imported);
  ASSERT_EQ(imp.exit_code, 0) << imp.output;
  EXPECT_EQ(run_heed("translate --model " + imported + " -i " + dev("src")).output,
            run_heed("translate --model " + model() + " -i " + dev("src")).output);
  // The same command with more steps resumes from the last save.
  const CommandResult more = run_heed("train " + config_ + " --set training.max_steps=1100");
  ASSERT_EQ(more.exit_code, 0) << more.output;
  EXPECT_NE(more.output.find("resum"), std::string::npos) << more.output;
  EXPECT_NE(more.output.find(" to step 1100"), std::string::npos) << more.output;
}

// model.share_embeddings with tie_embeddings: one table for the source, the target and the
// output layer, over one vocabulary built from both sides (written as src.vocab and
// tgt.vocab). It learns the reversal, heed info says so, export writes the table once (as
// src_emb.weight) and import of that file translates the same, and training resumes.
TEST_F(TransformerCli, SharedEmbeddingsTrainTranslateExportImportAndResume) {
  const std::string out = dir_->path("shared");
  const std::string shared = config_ + " --set model.share_embeddings=true"
                                       " --set model.tie_embeddings=true"
                                       " --set training.validate_every=200 --set output=" + out;
  const CommandResult r = run_heed("train " + shared + " --set training.max_steps=400");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string vocab = read_file(out + "/src.vocab");
  EXPECT_EQ(read_file(out + "/tgt.vocab"), vocab);
  EXPECT_EQ(lines_of(vocab).size(), 4u + 6u);  // the specials and the letters a-f
  const CommandResult t = run_heed("translate --model " + out + " -i " + dev("src"));
  ASSERT_EQ(t.exit_code, 0) << t.output;
  const std::vector<std::string> got = lines_of(t.output), want = lines_of(read_file(dev("tgt")));
  ASSERT_EQ(got.size(), want.size());
  int exact = 0;
  for (std::size_t i = 0; i < got.size(); ++i) exact += got[i] == want[i];
  std::printf("transformer, shared embeddings: %d of %zu dev words reversed exactly\n", exact,
              got.size());
  EXPECT_GE(exact, 10) << t.output;

  const CommandResult info = run_heed("info --model " + out);
  ASSERT_EQ(info.exit_code, 0) << info.output;
  EXPECT_NE(info.output.find("one embedding table shared by source and target"),
            std::string::npos) << info.output;
  EXPECT_NE(info.output.find("tied embeddings"), std::string::npos) << info.output;

  const std::string pt = dir_->path("shared.safetensors"), imported = dir_->path("shared_imported");
  ASSERT_EQ(run_heed("export --model " + out + " --out " + pt).exit_code, 0);
  const SafeTensorsFile exported = load_safetensors(pt);
  EXPECT_TRUE(exported.contains("src_emb.weight"));
  EXPECT_FALSE(exported.contains("tgt_emb.weight"));
  EXPECT_FALSE(exported.contains("W_s.weight"));
  const CommandResult imp = run_heed("import --from-pytorch " + pt + " --out " + imported);
  ASSERT_EQ(imp.exit_code, 0) << imp.output;
  EXPECT_EQ(run_heed("translate --model " + imported + " -i " + dev("src")).output, t.output);

  const CommandResult more = run_heed("train " + shared + " --set training.max_steps=450");
  ASSERT_EQ(more.exit_code, 0) << more.output;
  EXPECT_NE(more.output.find("resum"), std::string::npos) << more.output;
  EXPECT_NE(more.output.find(" to step 450"), std::string::npos) << more.output;
  EXPECT_EQ(read_file(out + "/src.vocab"), vocab);
  EXPECT_EQ(read_file(out + "/tgt.vocab"), vocab);
}

// The one vocabulary holds both sides' tokens (here the source's letters a-c and the
// target's v-z, which no side has both of), within data.source's vocab_max_size
// (data.target's is not read).
TEST_F(TransformerCli, SharedEmbeddingsReadOneVocabularyOfBothSides) {
  std::string src, tgt;
  for (int i = 0; i < 60; ++i) {
    src += std::string{char('a' + i % 3), char('a' + i / 3 % 3)} + "\n";
    tgt += std::string{char('v' + i % 5), char('v' + i / 5 % 5), 'z'} + "\n";
  }
  const std::string config = dir_->file("joint.yaml",
      "data:\n  train_source: " + dir_->file("joint.src", src) + "\n  train_target: " +
      dir_->file("joint.tgt", tgt) + "\nmodel:\n  kind: transformer\n  d_model: 8\n  heads: 2\n"
      "  ff_dim: 8\n  share_embeddings: true\ntraining:\n  max_steps: 2\n  max_epochs: 0\n"
      "  threads: 1\n");
  const std::string out = dir_->path("joint");
  const CommandResult r = run_heed("train " + config + " --set output=" + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::vector<std::string> vocab = lines_of(read_file(out + "/src.vocab"));
  EXPECT_EQ(read_file(out + "/tgt.vocab"), read_file(out + "/src.vocab"));
  EXPECT_EQ(vocab.size(), 4u + 3u + 5u);
  for (const char* token : {"a", "c", "v", "z"})
    EXPECT_NE(std::find(vocab.begin(), vocab.end(), token), vocab.end()) << token;
  // data.source's limit bounds it: the 4 specials and the 4 most frequent tokens, z (60
  // times as the targets' last letter) among them.
  const CommandResult small = run_heed("train " + config + " --set output=" + out + "_small" +
                                       " --set data.source.vocab_max_size=8" +
                                       " --set data.target.vocab_max_size=100");
  ASSERT_EQ(small.exit_code, 0) << small.output;
  const std::vector<std::string> bounded = lines_of(read_file(out + "_small/tgt.vocab"));
  EXPECT_EQ(bounded.size(), 8u);
  EXPECT_EQ(bounded[4], "z");
}

// One vocabulary needs both sides tokenised alike: refused, naming the keys, before the
// output directory is made.
TEST_F(TransformerCli, SharedEmbeddingsRefuseSidesTokenisedDifferently) {
  const std::string out = dir_->path("shared_refused");
  const CommandResult r = run_heed("train " + config_ + " --set model.share_embeddings=true"
                                   " --set data.target.tokenizer=whitespace --set output=" + out);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  for (const char* key : {"model.share_embeddings", "data.source.tokenizer",
                          "data.target.tokenizer", "got char and whitespace"})
    EXPECT_NE(r.output.find(key), std::string::npos) << key << " in: " << r.output;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST_F(TransformerCli, LearnedPositionsLeaveOutWhatTheyCannotPlace) {
  // Six learned positions: words of 6 letters (7 tokens with EOS) cannot be placed, so
  // training leaves them out (train and dev alike) instead of stopping at the first one;
  // translation skips a longer source and stops a decode at the sixth step.
  const std::string out = dir_->path("learned");
  const CommandResult r = run_heed("train " + config_ +
                                   " --set model.positions=learned --set model.max_positions=6"
                                   " --set training.max_steps=40 --set training.validate_every=20"
                                   " --set output=" + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("0 empty, "), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("0 empty, 0 too long"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("validation at step 40"), std::string::npos) << r.output;
  const std::string in = dir_->file("learned.src", "abc\nabcdefabc\n");
  const std::string hyp = dir_->path("learned.hyp");
  const CommandResult t =
      run_heed("translate --model " + out + " -i " + in + " -o " + hyp);
  ASSERT_EQ(t.exit_code, 0) << t.output;
  EXPECT_NE(t.output.find("skipped 1 of 2 input lines longer than 6 tokens"), std::string::npos)
      << t.output;
  const std::vector<std::string> lines = lines_of(read_file(hyp));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_LE(lines[0].size(), 6u) << lines[0];  // at most 6 steps: 6 letters, or 5 and the EOS
  EXPECT_EQ(lines[1], "");
}

TEST_F(TransformerCli, AveragedCheckpointsAndAMixedEnsembleTranslate) {
  ASSERT_EQ(trained_.exit_code, 0) << trained_.output;
  // heed average over the Transformer's step checkpoints (steps 500 and 1000).
  const std::string avg = dir_->path("avg.safetensors");
  const CommandResult a = run_heed("average --model " + model() + " --last 2 --out " + avg);
  ASSERT_EQ(a.exit_code, 0) << a.output;
  const CommandResult t = run_heed("translate --model " + model() + " --weights " + avg +
                                   " -i " + dev("src"));
  ASSERT_EQ(t.exit_code, 0) << t.output;
  EXPECT_EQ(lines_of(t.output).size(), lines_of(read_file(dev("src"))).size()) << t.output;
  // A Bahdanau model on the same data (the same vocabularies), ensembled with the Transformer
  // through heed translate: every line translated.
  const std::string rnn = dir_->path("rnn"), rnn_config = dir_->file("rnn.yaml",
      "data:\n  train_source: " + dir_->path("train.src") + "\n  train_target: " +
      dir_->path("train.tgt") + "\nmodel:\n  kind: bahdanau\n  emb_dim: 16\n  enc_hidden: 16\n"
      "  dec_hidden: 16\n  attn_dim: 16\ntraining:\n  max_steps: 60\n  max_epochs: 0\n"
      "  max_tokens: 300\n  threads: 1\noutput: " + rnn + "\n");
  const CommandResult rt = run_heed("train " + rnn_config);
  ASSERT_EQ(rt.exit_code, 0) << rt.output;
  const CommandResult e = run_heed("translate --model " + model() + " --model " + rnn +
                                   " --beam 3 -i " + dev("src"));
  ASSERT_EQ(e.exit_code, 0) << e.output;
  const std::vector<std::string> mixed = lines_of(e.output);
  ASSERT_EQ(mixed.size(), lines_of(read_file(dev("src"))).size()) << e.output;
  // The trained Transformer reverses most dev words; the barely trained Bahdanau model pulls
  // the mixture away from some of them, so the mixture is neither member alone.
  const CommandResult alone = run_heed("translate --model " + model() + " --beam 3 -i " + dev("src"));
  ASSERT_EQ(alone.exit_code, 0) << alone.output;
  EXPECT_NE(e.output, alone.output);
}

}  // namespace
}  // namespace heed
