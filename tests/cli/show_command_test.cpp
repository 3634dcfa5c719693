// End-to-end tests of `heed show`: tiny models (with attention and without; and a recurrent
// attention model on the quadrant task for `heed show --images`, docs/cli/show.md#images)
// are trained by `heed train` once per suite, then shown through the heed binary; and the
// bad inputs, each named.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"
#include "cli/quadrant_images.h"
#include "heed/base/random.h"
#include "heed/data/text_file.h"

namespace heed {
namespace {

namespace fs = std::filesystem;
using testing::CommandResult;
using testing::run_heed;
using testing::ScratchDir;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

class ShowCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new ScratchDir("heed_cli_show");
    Rng rng(5);
    const auto [src, tgt] = testing::reversal_lines(rng, 200, 3, 5, 6);
    dir_->file("train.src", src);
    dir_->file("train.tgt", tgt);
    config_ = dir_->file("config.yaml",
                         "data:\n"
                         "  train_source: " + dir_->path("train.src") + "\n"
                         "  train_target: " + dir_->path("train.tgt") + "\n"
                         "model:\n"
                         "  kind: bahdanau\n"
                         "  emb_dim: 8\n"
                         "  enc_hidden: 8\n"
                         "  dec_hidden: 8\n"
                         "training:\n"
                         "  lr: 0.02\n"
                         "  max_tokens: 200\n"
                         "  max_steps: 10\n"
                         "  validate_every: 10\n"
                         "  threads: 1\n"
                         "output: " + dir_->path("model") + "\n");
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static std::string model(const std::string& kind) {
    const std::string out = dir_->path(kind);
    if (!fs::exists(out + "/best.safetensors")) {
      const CommandResult r =
          run_heed("train " + config_ + " --set output=" + out + " --set model.kind=" + kind);
      EXPECT_EQ(r.exit_code, 0) << r.output;
    }
    return out;
  }
  static ScratchDir* dir_;
  static std::string config_;
};

ScratchDir* ShowCli::dir_ = nullptr;
std::string ShowCli::config_;

TEST_F(ShowCli, WritesPicturesAndReport) {
  const std::string in = dir_->file("in.txt", "abcd\n\nfedcba\ncaf\xC3\xA9\n");
  const std::string out = dir_->path("out");
  const CommandResult r = run_heed("show -m " + model("bahdanau") + " -i " + in + " -o " + out +
                                   " --beam 3");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("wrote 3 pictures"), std::string::npos) << r.output;
  for (const char* name : {"sentence-0001", "sentence-0003", "sentence-0004"}) {
    const std::string png = read_file(out + "/" + name + ".png");
    EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8)) << name;
    EXPECT_NE(read_file(out + "/" + name + ".svg").find("<svg"), std::string::npos) << name;
  }
  EXPECT_FALSE(fs::exists(out + "/sentence-0002.png"));  // the empty line
  const std::string html = read_file(out + "/report.html");
  EXPECT_NE(html.find("\"input\":\"fedcba\""), std::string::npos);
  EXPECT_NE(html.find("\"note\":\"empty line\""), std::string::npos);
  EXPECT_NE(html.find("\"input\":\"caf\xC3\xA9\""), std::string::npos);
  EXPECT_EQ(html.find("http"), std::string::npos);
  // Three hypotheses (--nbest defaults to --beam), each with its score.
  const std::size_t first = html.find("\"line\":1,");
  ASSERT_NE(first, std::string::npos);
  const std::string line1 = html.substr(first, html.find("\"line\":2,") - first);
  std::size_t scores = 0;
  for (std::size_t at = line1.find("\"score\":"); at != std::string::npos; at = line1.find("\"score\":", at + 1))
    ++scores;
  EXPECT_EQ(scores, 3u);
  EXPECT_NE(line1.find("\"saliency\":[["), std::string::npos);
}

TEST_F(ShowCli, StdinNbestMaxSentencesAndNoSaliency) {
  const std::string out = dir_->path("out-stdin");
  const CommandResult r =
      run_heed("show -m " + model("bahdanau") + " -i - -o " + out +
               " --beam 4 --nbest 2 --max-sentences 2 --no-saliency < " +
               dir_->file("in2.txt", "abc\ncba\nfff\n"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(out + "/sentence-0002.svg"));
  EXPECT_FALSE(fs::exists(out + "/sentence-0003.svg"));
  const std::string html = read_file(out + "/report.html");
  EXPECT_NE(html.find("heed show: &lt;stdin&gt;"), std::string::npos);
  EXPECT_NE(html.find("saliency not computed"), std::string::npos);
}

// Whether a picture has the coverage strip: its light grey background, which nothing else
// of a model without copy attention draws.
bool has_strip(const std::string& svg) { return svg.find("fill:rgb(96%,96%,96%)") != std::string::npos; }

TEST_F(ShowCli, CoverageStripForACoverageModelOrOnRequest) {
  const std::string in = dir_->file("in-cov.txt", "abcd\n");
  int runs = 0;
  const auto svg = [&](const std::string& model, const std::string& extra) {
    const std::string out = dir_->path("out-cov" + std::to_string(++runs));
    const CommandResult r = run_heed("show -m " + model + " -i " + in + " -o " + out +
                                     " --no-saliency" + extra);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return read_file(out + "/sentence-0001.svg");
  };
  EXPECT_FALSE(has_strip(svg(model("bahdanau"), "")));
  EXPECT_TRUE(has_strip(svg(model("bahdanau"), " --coverage")));
  const std::string covered = dir_->path("coverage-model");
  const CommandResult r = run_heed("train " + config_ + " --set output=" + covered +
                                   " --set model.coverage=true");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(has_strip(svg(covered, "")));  // drawn without asking
}

TEST_F(ShowCli, ModelWithoutAttentionShowsSaliency) {
  const std::string out = dir_->path("out-noattn");
  const CommandResult r = run_heed("show -m " + model("noattn") + " -i " +
                                   dir_->file("in3.txt", "abcd\n") + " -o " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(out + "/sentence-0001.png"));
  const std::string html = read_file(out + "/report.html");
  EXPECT_NE(html.find("no attention: saliency only"), std::string::npos);
  EXPECT_NE(html.find("\"saliency\":[["), std::string::npos);
  const CommandResult none = run_heed("show -m " + model("noattn") + " -i " +
                                      dir_->path("in3.txt") + " -o " + out + " --no-saliency");
  EXPECT_EQ(none.exit_code, 2) << none.output;
  EXPECT_NE(none.output.find("has no attention"), std::string::npos) << none.output;
}

TEST_F(ShowCli, BadInputsAreNamed) {
  const std::string m = model("bahdanau");
  const std::string in = dir_->file("in4.txt", "abc\n");
  CommandResult r = run_heed("show -m " + dir_->path("no-such-model") + " -i " + in + " -o " +
                             dir_->path("o1"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("no such model directory"), std::string::npos) << r.output;

  r = run_heed("show -m " + m + " -i " + dir_->file("empty.txt", "") + " -o " + dir_->path("o2"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("empty.txt: file is empty"), std::string::npos) << r.output;

  r = run_heed("show -m " + m + " -i " + dir_->file("blank.txt", "\n  \n") + " -o " + dir_->path("o2"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("blank.txt: no sentence to show"), std::string::npos) << r.output;

  r = run_heed("show -m " + m + " -i " + in + " -o " + in);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--out " + in + ": is a file"), std::string::npos) << r.output;

  r = run_heed("show -m " + m + " -i " + dir_->path("missing.txt") + " -o " + dir_->path("o3"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("missing.txt: no such file"), std::string::npos) << r.output;

  r = run_heed("show -m " + m + " -i " + in + " -o " + dir_->path("o3") + " --beam 2 --nbest 3");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--nbest 3 is larger than --beam 2"), std::string::npos) << r.output;

  // --audio draws speech models only, and names the form this one reads.
  r = run_heed("show -m " + m + " --audio " + in + " -o " + dir_->path("o3"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("holds a text model (model.kind bahdanau): give --input FILE, not "
                          "--audio (heed show --audio draws the speech models: las)"),
            std::string::npos)
      << r.output;
  r = run_heed("show -m " + m + " --audio " + dir_->path("missing.wav") + " -o " + dir_->path("o3"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--audio " + dir_->path("missing.wav") + ": no such file"),
            std::string::npos)
      << r.output;

  r = run_heed("show -m " + m + " -i " + dir_->file("bad.txt", "ab\n\xFF\n") + " -o " + dir_->path("o4"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("bad.txt:2:1: invalid UTF-8"), std::string::npos) << r.output;

  r = run_heed("show -i " + in + " -o " + dir_->path("o5"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--model"), std::string::npos) << r.output;
}

class ShowImages : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new ScratchDir("heed_cli_show_images");
    Rng rng(11);
    testing::write_quadrants(*dir_, "train", 400, rng);
    testing::write_quadrants(*dir_, "test", 40, rng);
    const std::string config = dir_->file(
        "ram.yaml", "data:\n  train_images: " + dir_->path("train-images-idx3-ubyte.gz") +
                        "\n  train_target: " + dir_->path("train.tgt") + R"(
model:
  kind: ram
  glimpses: 3
  glimpse_size: 4
  scales: 2
  glimpse_hidden: 16
  location_hidden: 8
  glimpse_dim: 16
  core_hidden: 16
training:
  lr: 0.003
  max_sentences: 32
  max_epochs: 0
  max_steps: 40
  threads: 1
output: )" + dir_->path("ram") + "\n");
    const CommandResult r = run_heed("train " + config);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    // An image-to-sequence model on the same images: each target a sequence of one name.
    const std::string i2s = dir_->file(
        "i2s.yaml", "data:\n  train_images: " + dir_->path("train-images-idx3-ubyte.gz") +
                        "\n  train_target: " + dir_->path("train.tgt") + R"(
model:
  kind: image2seq
  conv_layers: 2
  conv_channels: 4
  emb_dim: 8
  dec_hidden: 16
  attn_dim: 8
training:
  lr: 0.003
  max_sentences: 32
  max_epochs: 0
  max_steps: 20
  threads: 1
output: )" + dir_->path("image2seq") + "\n");
    const CommandResult t = run_heed("train " + i2s);
    ASSERT_EQ(t.exit_code, 0) << t.output;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static std::string images() { return dir_->path("test-images-idx3-ubyte.gz"); }
  static ScratchDir* dir_;
};

ScratchDir* ShowImages::dir_ = nullptr;

TEST_F(ShowImages, DrawsEachImagesGlimpsesAndAGallery) {
  const std::string out = dir_->path("out");
  const CommandResult r =
      run_heed("show -m " + dir_->path("ram") + " --images " + images() + " -o " + out +
               " --max-images 5 --png-scale 1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("wrote 5 pictures"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("gallery.html"), std::string::npos) << r.output;
  const std::vector<std::string> labels = read_lines(dir_->path("test.tgt"));
  for (int i = 0; i < 5; ++i) {
    const std::string name = "image-000" + std::to_string(i);
    const std::string png = read_file(out + "/" + name + ".png");
    EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8)) << name;
    const std::string svg = read_file(out + "/" + name + ".svg");
    EXPECT_NE(svg.find("<title>image " + std::to_string(i) + " of test-images-idx3-ubyte.gz</title>"),
              std::string::npos)
        << name;
    EXPECT_NE(svg.find("label: " + labels[static_cast<std::size_t>(i)]), std::string::npos) << name;
    // Three glimpses, the first at the centre.
    const std::size_t at = svg.find("glimpse locations (row, col): (0.000, 0.000) (");
    EXPECT_NE(at, std::string::npos) << name;
  }
  EXPECT_FALSE(fs::exists(out + "/image-0005.svg"));
  // Beside each glimpse picture, the pixel saliency of the predicted class: one panel over the
  // image's own pixels.
  for (int i = 0; i < 5; ++i) {
    const std::string name = "image-000" + std::to_string(i) + "-saliency";
    EXPECT_EQ(read_file(out + "/" + name + ".png").substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
    const std::string svg = read_file(out + "/" + name + ".svg");
    EXPECT_NE(svg.find("saliency of "), std::string::npos) << name;
    EXPECT_NE(svg.find("label " + labels[static_cast<std::size_t>(i)]), std::string::npos) << name;
  }
  const std::string html = read_file(out + "/gallery.html");
  EXPECT_EQ(count(html, "<figure"), 5u);
  for (int i = 0; i < 5; ++i)
    EXPECT_NE(html.find("src=\"image-000" + std::to_string(i) + ".png\""), std::string::npos);
  EXPECT_NE(html.find(" of 5 wrong: error "), std::string::npos);
  EXPECT_NE(html.find("the mean locations"), std::string::npos);
}

TEST_F(ShowImages, AClassifierThatReadsTheWholeImageShowsItsPixelSaliency) {
  const std::string model = dir_->path("cnn");
  const std::string config = dir_->file(
      "cnn.yaml", "data:\n  train_images: " + dir_->path("train-images-idx3-ubyte.gz") +
                      "\n  train_target: " + dir_->path("train.tgt") +
                      "\nmodel:\n  kind: cnn\n  conv_layers: 2\n  conv_channels: 4\ntraining:\n"
                      "  lr: 0.003\n  max_sentences: 32\n  max_epochs: 0\n  max_steps: 30\n"
                      "  threads: 1\noutput: " + model + "\n");
  ASSERT_EQ(run_heed("train " + config).exit_code, 0);
  const std::string out = dir_->path("out-cnn");
  const CommandResult r = run_heed("show -m " + model + " --images " + images() + " -o " + out +
                                   " --max-images 3 --png-scale 1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("wrote 3 pictures"), std::string::npos) << r.output;
  for (int i = 0; i < 3; ++i) {
    const std::string name = out + "/image-000" + std::to_string(i);
    EXPECT_EQ(read_file(name + ".png").substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
    EXPECT_NE(read_file(name + ".svg").find("words: saliency of "), std::string::npos) << name;
    EXPECT_FALSE(fs::exists(name + "-saliency.svg")) << "the saliency is the picture itself";
  }
  const std::string html = read_file(out + "/gallery.html");
  EXPECT_EQ(count(html, "<figure"), 3u);
  EXPECT_NE(html.find("cnn, reading the whole image"), std::string::npos);
  EXPECT_NE(html.find("pixel saliency"), std::string::npos);
}

TEST_F(ShowImages, DrawsTheGridAttentionOfEachWordOfAnImageToSequenceModel) {
  const std::string out = dir_->path("out-i2s");
  const CommandResult r = run_heed("show -m " + dir_->path("image2seq") + " --images " + images() +
                                   " -o " + out + " --max-images 3 --png-scale 1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("wrote 3 pictures"), std::string::npos) << r.output;
  const std::vector<std::string> labels = read_lines(dir_->path("test.tgt"));
  for (int i = 0; i < 3; ++i) {
    const std::string name = "image-000" + std::to_string(i);
    EXPECT_EQ(read_file(out + "/" + name + ".png").substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
    const std::string svg = read_file(out + "/" + name + ".svg");
    EXPECT_NE(svg.find("<title>image " + std::to_string(i) + " of test-images-idx3-ubyte.gz \xC2\xB7 target " +
                       labels[static_cast<std::size_t>(i)] + " \xC2\xB7 output "),
              std::string::npos)
        << name;
    // The image alone, then one panel per emitted word.
    const std::size_t words_at = svg.find("<desc>words:");
    ASSERT_NE(words_at, std::string::npos);
    const std::string words = svg.substr(words_at + 12, svg.find("</desc>", words_at) - words_at - 12);
    EXPECT_EQ(count(svg, "<image "), 1 + count(words, " ")) << name << ": " << words;
  }
  const std::string html = read_file(out + "/gallery.html");
  EXPECT_EQ(count(html, "<figure"), 3u);
  EXPECT_NE(html.find("image2seq, soft attention over a "), std::string::npos);
}

TEST_F(ShowImages, SampledPathsAndTheDefaultCount) {
  const std::string out = dir_->path("out-paths");
  const CommandResult r = run_heed("show -m " + dir_->path("ram") + " --images " + images() +
                                   " --targets " + dir_->path("test.tgt") + " -o " + out +
                                   " --paths 3 --seed 5 --png-scale 0.5");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("wrote 16 pictures"), std::string::npos) << r.output;  // the default
  EXPECT_TRUE(fs::exists(out + "/image-0015.png"));
  EXPECT_FALSE(fs::exists(out + "/image-0016.png"));
  EXPECT_NE(read_file(out + "/gallery.html").find("3 sampled paths averaged"), std::string::npos);
}

TEST_F(ShowImages, BadInputsAreNamed) {
  const std::string ram = dir_->path("ram");
  CommandResult r = run_heed("show -m " + ram + " --images " + dir_->path("nothing.gz") + " -o " +
                             dir_->path("o1"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--images " + dir_->path("nothing.gz") + ": no such file"), std::string::npos)
      << r.output;

  r = run_heed("show -m " + ram + " --images " + images() + " --targets " + dir_->path("no.tgt") +
               " -o " + dir_->path("o1"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--targets " + dir_->path("no.tgt") + ": no such file"), std::string::npos)
      << r.output;

  // An images file not named as heed data images names it, and no targets were given.
  fs::copy_file(images(), dir_->path("pictures.gz"), fs::copy_options::overwrite_existing);
  r = run_heed("show -m " + ram + " --images " + dir_->path("pictures.gz") + " -o " + dir_->path("o1"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(dir_->path("pictures.gz") + ": cannot tell its targets file"),
            std::string::npos)
      << r.output;

  // A text file given as images.
  r = run_heed("show -m " + ram + " --images " + dir_->path("test.tgt") + " --targets " +
               dir_->path("test.tgt") + " -o " + dir_->path("o1"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(dir_->path("test.tgt")), std::string::npos) << r.output;

  // The image model read as a text model, and the reverse.
  const std::string in = dir_->file("in.txt", "abc\n");
  r = run_heed("show -m " + ram + " -i " + in + " -o " + dir_->path("o2"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(ram + " holds an image model (model.kind ram): give --images FILE, not --input"),
            std::string::npos)
      << r.output;

  Rng rng(5);
  const auto [src, tgt] = testing::reversal_lines(rng, 50, 3, 3, 4);
  dir_->file("train.src", src);
  dir_->file("train.txt", tgt);
  const std::string text_config = dir_->file(
      "text.yaml", "data:\n  train_source: " + dir_->path("train.src") +
                       "\n  train_target: " + dir_->path("train.txt") +
                       "\nmodel:\n  kind: bahdanau\n  emb_dim: 4\n  enc_hidden: 4\n  dec_hidden: 4\n"
                       "training:\n  max_steps: 2\n  threads: 1\noutput: " + dir_->path("text") + "\n");
  ASSERT_EQ(run_heed("train " + text_config).exit_code, 0);
  r = run_heed("show -m " + dir_->path("text") + " --images " + images() + " -o " + dir_->path("o3"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(dir_->path("text") + " holds a text model (model.kind bahdanau): give "
                                               "--input FILE, not --images"),
            std::string::npos)
      << r.output;

  // A classifier that sees the whole image: its pictures are its saliency maps, so
  // --no-saliency leaves nothing to draw (the directory's config is all heed show reads
  // before refusing).
  fs::create_directories(dir_->path("fc"));
  dir_->file("fc/config.yaml", "data:\n  train_images: " + images() + "\n  train_target: " +
                                   dir_->path("test.tgt") + "\nmodel:\n  kind: fc\ntraining:\n"
                                   "  max_steps: 1\noutput: " + dir_->path("fc") + "\n");
  r = run_heed("show -m " + dir_->path("fc") + " --images " + images() + " -o " +
               dir_->path("o5") + " --no-saliency");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(dir_->path("fc") + " holds a classifier that reads the whole image at "
                                             "once (model.kind fc): its pictures are its saliency "
                                             "maps; drop --no-saliency"),
            std::string::npos)
      << r.output;
  // The image-to-sequence model with --input.
  r = run_heed("show -m " + dir_->path("image2seq") + " -i " + in + " -o " + dir_->path("o5"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("holds an image model (model.kind image2seq): give --images FILE"),
            std::string::npos)
      << r.output;

  // Options of the other form, both forms, neither.
  r = run_heed("show -m " + ram + " --images " + images() + " -o " + dir_->path("o4") + " --beam 3");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--beam"), std::string::npos) << r.output;
  r = run_heed("show -m " + ram + " -i " + in + " -o " + dir_->path("o4") + " --max-images 3");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--max-images"), std::string::npos) << r.output;
  r = run_heed("show -m " + ram + " -i " + in + " --images " + images() + " -o " + dir_->path("o4"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = run_heed("show -m " + ram + " -o " + dir_->path("o4"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("give --input FILE"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_->path("o4")));
}

}  // namespace
}  // namespace heed
