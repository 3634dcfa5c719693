#include "heed/cli/show_command.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <numeric>
#include <string>
#include <vector>

#include "heed/base/atomic_file.h"
#include "heed/base/error.h"
#include "heed/cli/model_options.h"
#include "heed/cli/stdin_lines.h"
#include "heed/cli/validators.h"
#include "heed/data/image_classes.h"
#include "heed/data/image_sequences.h"
#include "heed/data/text_file.h"
#include "heed/kernels/gemm.h"
#include "heed/models/image_classifier.h"
#include "heed/models/model_registry.h"
#include "heed/models/pixel_saliency.h"
#include "heed/store/model_dir.h"
#include "heed/tensor/arena.h"
#include "heed/translate/best_saliency.h"
#include "heed/translate/image_decoding.h"
#include "heed/translate/line_translator.h"
#include "heed/viz/attention_picture.h"
#include "heed/viz/glimpse_path_picture.h"
#include "heed/viz/grid_attention_picture.h"
#include "heed/viz/image_gallery_html.h"
#include "heed/viz/report_html.h"

namespace heed::cli {
namespace {

namespace fs = std::filesystem;

// "sentence-0007": the picture of input line 7 (.svg and .png).
std::string picture_name(std::size_t line) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "sentence-%04zu", line);
  return buf;
}

// "image-0007": the picture of image 7 of the images file, counted from 0 as in the
// `heed eval --locations` file (.svg and .png).
std::string image_picture_name(std::int64_t image) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "image-%04lld", static_cast<long long>(image));
  return buf;
}

// Image i of a set as the pictures take it: rows * cols values in [0, 1].
std::vector<float> pixels_of(const IdxImages& images, std::int64_t i) {
  const std::uint8_t* px = images.image(i);
  std::vector<float> v(px, px + images.image_size());
  for (float& x : v) x /= 255.0f;
  return v;
}

// The most words `heed show --images` decodes per image (heed eval's --max-len default).
constexpr std::int64_t kImageMaxWords = 20;

std::string score_text(double score) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", score);
  return buf;
}

// "drawing sentence 12 of 300" on stderr, about ten times per run (every line when it is
// short enough to read), so a long input shows that it moves.
class Progress {
 public:
  explicit Progress(std::size_t total) : total_(total), every_(std::max<std::size_t>(1, total / 10)) {}
  void say(const char* what, std::size_t done) const {
    if (total_ < 10) return;
    if (done % every_ != 0 && done != total_) return;
    std::cerr << "heed show: " << what << " " << done << " of " << total_ << "\n";
  }

 private:
  std::size_t total_, every_;
};

class ShowCommand : public Command {
 public:
  std::string name() const override { return "show"; }
  std::string description() const override {
    return "Show what a model attends to: for a text model, sentence by sentence, attention and "
           "saliency maps side by side (SVG and PNG) and an HTML report with the n-best lists; "
           "for an image model (ram), where each glimpse looked, image by image (SVG and PNG), "
           "and a gallery page";
  }

  void setup(CLI::App& app) override {
    add_model_options(app, model_);
    auto* input = app.add_option("--input,-i", input_,
                                 "text model: input file, one sentence per line; - reads stdin");
    auto* images = app.add_option("--images", images_,
                                  "image model (model.kind ram): gzipped IDX images (heed data "
                                  "images); draws the first --max-images of them");
    input->excludes(images);
    app.add_option("--out,-o", out_,
                   "directory for the pictures and report.html (text) or gallery.html (images); "
                   "created if missing")
        ->required();
    // The text form.
    const std::vector<CLI::Option*> text = {
        app.add_option("--beam,-k", beam_, "text: beam width; 1 = greedy decoding")
            ->capture_default_str()
            ->check(int_range(1, 1000)),
        app.add_option("--nbest,-n", nbest_,
                       "text: hypotheses listed per sentence, at most --beam (default: --beam, at "
                       "most 10)")
            ->check(int_range(1, 1000)),
        app.add_option("--max-sentences", max_sentences_,
                       "text: only the first N lines of the input (0: all)")
            ->capture_default_str()
            ->check(int_range(0, 100000000)),
        app.add_option("--batch-size,-b", batch_size_, "text: sentences per batch")
            ->capture_default_str()
            ->check(int_range(1, 100000))};
    // The image form, named as in heed eval.
    const std::vector<CLI::Option*> image = {
        app.add_option("--targets,-t", targets_,
                       "images: class name per image (default: <split>.tgt beside "
                       "<split>-images-idx3-ubyte.gz)"),
        app.add_option("--max-images", max_images_, "images: draw the first N images")
            ->capture_default_str()
            ->check(int_range(1, 100000)),
        app.add_option("--paths", paths_,
                       "images: test-time paths: 1 follows the mean locations, M > 1 averages M "
                       "sampled paths and draws the first in full, the others faintly (default: "
                       "the model's model.sample_paths)")
            ->check(int_range(1, 1000)),
        app.add_option("--seed", seed_, "images: seed of the sampled paths")->capture_default_str()};
    app.add_flag("--no-saliency", no_saliency_,
                 "skip the saliency maps (text: one backward pass per output token; images: the "
                 "pixel saliency of a recurrent attention model beside its glimpses)");
    for (CLI::Option* o : text) o->excludes(images);
    for (CLI::Option* o : image) o->excludes(input);
    app.add_option("--png-scale", png_scale_, "PNG pixels per SVG pixel")
        ->capture_default_str()
        ->check(real_range(0.25, 8));
    app.footer(
        "Text (--input): writes OUT/sentence-NNNN.svg and .png for input line NNNN (1-based):\n"
        "the best output's attention map (rows: output tokens, columns: source tokens) and its\n"
        "saliency map side by side; and OUT/report.html, one file with every line, its n-best\n"
        "list with scores and both maps. A model without attention gets the saliency map alone.\n"
        "Images (--images, model.kind ram): writes OUT/image-NNNN.svg and .png for image NNNN\n"
        "(0-based, as heed eval --locations counts): the image with each glimpse's squares,\n"
        "numbered, the path joining them, the label and the prediction, and beside it\n"
        "OUT/image-NNNN-saliency.svg and .png, the pixel saliency of the predicted class; for\n"
        "model.kind fc and cnn the saliency picture is image-NNNN itself; image2seq: each word's\n"
        "attention over the grid. OUT/gallery.html: every picture with its label and prediction\n"
        "and the error over them.\n"
        "Exit codes: 0 done, 1 runtime error, 2 bad command line.");
  }

  int run() override {
    if (input_.empty() && images_.empty())
      throw UsageError("give --input FILE (a text model's sentences) or --images FILE (an image "
                       "model's images)");
    if (fs::exists(out_) && !fs::is_directory(out_))
      throw UsageError("--out " + out_ + ": is a file; --out names a directory to write into");
    return images_.empty() ? run_text() : run_images();
  }

 private:
  int run_text() {
    if (nbest_ > beam_)
      throw UsageError(detail::concat("--nbest ", nbest_, " is larger than --beam ", beam_,
                                      "; a beam of k keeps at most k hypotheses"));
    const std::int64_t nbest = nbest_ > 0 ? nbest_ : std::min<std::int64_t>(beam_, 10);
    if (input_ != "-" && !fs::exists(input_)) throw UsageError("--input " + input_ + ": no such file");
    if (input_ != "-" && fs::is_directory(input_))
      throw UsageError("--input " + input_ + ": is a directory, expected a file");
    if (model_.specs().size() > 1 && !no_saliency_)
      throw UsageError("saliency maps need a single model; give one --model, or --no-saliency");

    const std::string input_name = input_ == "-" ? "<stdin>" : input_;
    std::vector<std::string> lines = input_ == "-" ? read_stdin_lines() : read_lines(input_);
    if (max_sentences_ > 0 && lines.size() > static_cast<std::size_t>(max_sentences_))
      lines.resize(static_cast<std::size_t>(max_sentences_));
    HEED_CHECK(std::any_of(lines.begin(), lines.end(),
                           [](const std::string& l) {
                             return l.find_first_not_of(" \t") != std::string::npos;
                           }),
               input_name, ": no sentence to show (", lines.empty() ? "no lines" : "every line is blank",
               ")");

    const TrainConfig config = load_model_config(model_.dirs.front());
    if (takes_images(config.model.kind))
      throw UsageError(model_.dirs.front() + " holds an image model (model.kind " +
                       std::string(enum_name(config.model.kind)) +
                       "): give --images FILE, not --input");
    kernels::set_num_threads(1);  // parallel work is whole batches (TranslateOptions::threads)
    const LineTranslator translator = LineTranslator::load(model_.specs());
    const bool attention = translator.has_attention();
    if (!attention && no_saliency_)
      throw UsageError(model_.label() + " has no attention; without the saliency maps there is "
                       "nothing to draw (leave out --no-saliency)");

    make_out_dir();

    TranslateOptions options;
    options.decode.beam = static_cast<std::size_t>(beam_);
    options.decode.n_best = static_cast<std::size_t>(nbest);
    options.batch_size = batch_size_;
    options.keep_attention = attention;
    options.threads = 0;
    options.max_input_tokens = 1000;
    const std::size_t n = lines.size();
    const Progress progress(n);
    std::vector<Translation> result = translator.translate(
        lines, options, [&](std::size_t done, std::size_t) { progress.say("translated sentence", done); });
    std::vector<std::vector<float>> saliency(n);
    if (!no_saliency_) {
      saliency = best_hypothesis_saliency(translator, result, batch_size_,
                                          [&](std::size_t done, std::size_t total) {
                                            if (done == total) progress.say("saliency of sentence", n);
                                          });
    }

    const fs::path dir(out_);
    std::vector<viz::ReportSentence> report;
    std::size_t pictures = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const Translation& t = result[i];
      viz::ReportSentence s;
      s.line = static_cast<std::int64_t>(i + 1);
      s.input = lines[i];
      s.source = t.source;
      s.saliency = saliency[i];
      for (const auto& h : t.nbest) s.nbest.push_back({h.text, h.score, h.output, h.attention});
      if (t.skipped) {
        s.note = "not translated: " + std::to_string(t.source_tokens) + " tokens, more than the " +
                 "longest source the model accepts";
      } else if (t.nbest.empty()) {
        s.note = "empty line";
      } else if (t.nbest.front().output.empty()) {
        s.note = "empty output";
      } else if (!attention && s.saliency.empty()) {
        s.note = "no saliency map (the source changes when its pieces are tokenised again)";
      } else {
        s.picture = picture_name(i + 1);
        draw(dir, s, t);
        ++pictures;
      }
      report.push_back(std::move(s));
      progress.say("drew sentence", i + 1);
    }
    viz::ReportInfo info;
    info.input = input_name;
    info.model = model_.label();
    info.beam = static_cast<std::size_t>(beam_);
    info.attention = attention;
    info.saliency = !no_saliency_;
    const fs::path page = dir / "report.html";
    write_file_atomically(page.string(), viz::report_html(info, report));
    std::cout << "wrote " << pictures << (pictures == 1 ? " picture" : " pictures") << " ("
              << (dir / "sentence-NNNN.svg").string() << ", .png) and " << page.string() << "\n";
    return 0;
  }

  void make_out_dir() const {
    std::error_code ec;
    fs::create_directories(out_, ec);
    HEED_CHECK(!ec && fs::is_directory(out_), out_, ": cannot create the output directory (",
               ec ? ec.message() : "a file of that name exists", ")");
  }

  int run_images() {
    if (!fs::exists(images_)) throw UsageError("--images " + images_ + ": no such file");
    if (fs::is_directory(images_))
      throw UsageError("--images " + images_ + ": is a directory, expected a file");
    if (!targets_.empty() && !fs::exists(targets_))
      throw UsageError("--targets " + targets_ + ": no such file");
    if (model_.dirs.size() != 1 || model_.weights.size() > 1)
      throw UsageError("--images draws one model: give one --model (and at most one --weights)");
    const std::string dir = model_.dirs.front();
    const TrainConfig config = load_model_config(dir);
    const ModelKind kind = config.model.kind;
    const std::string kind_name(enum_name(kind));
    if (reads_image_sources(kind)) {
      show_grid_attention(dir);
      return 0;
    }
    if (!reads_images(kind))
      throw UsageError(dir + " holds a text model (model.kind " + kind_name + "): give --input "
                       "FILE, not --images (heed show --images draws the image models: ram, fc, "
                       "cnn and image2seq)");
    if (kind != ModelKind::ram && no_saliency_)
      throw UsageError(dir + " holds a classifier that reads the whole image at once (model.kind " +
                       kind_name + "): its pictures are its saliency maps; drop --no-saliency");
    show_classifier(dir, kind == ModelKind::ram);
    return 0;
  }

  // An image classifier: for ram each image's glimpse path, and (unless --no-saliency) the
  // pixel saliency of the predicted class (models/pixel_saliency.h) beside it; for fc and cnn,
  // which read the whole image, the saliency picture alone.
  void show_classifier(const std::string& dir, bool glimpses) {
    const LoadedImageModel m =
        load_image_model_dir(dir, model_.weights.empty() ? model_.checkpoint : model_.weights.front());
    const std::string targets = targets_.empty() ? default_targets_path(images_) : targets_;
    const ClassifiedImages set = read_classified_images(images_, targets, m.classes);
    HEED_CHECK(set.images.count > 0, images_, ": holds no images");
    const RamConfig& ram = m.config.model.ram;
    const std::int64_t paths = !glimpses ? 1 : paths_ > 0 ? paths_ : ram.sample_paths;
    const std::int64_t n = std::min<std::int64_t>(set.images.count, max_images_);
    const std::int64_t C = m.model->classes(), T = ram.glimpses;
    make_out_dir();

    const fs::path out(out_);
    const Progress progress(static_cast<std::size_t>(n));
    std::vector<viz::GalleryImage> gallery;
    Rng rng(seed_);
    Arena arena;
    constexpr std::int64_t kBatch = 64;
    for (std::int64_t start = 0; start < n; start += kBatch) {
      std::vector<std::size_t> members(static_cast<std::size_t>(std::min(n, start + kBatch) - start));
      std::iota(members.begin(), members.end(), static_cast<std::size_t>(start));
      const auto B = static_cast<std::int64_t>(members.size());
      ArenaScope scope(&arena);
      const Tensor batch = classifier_images(set.images, members, m.config.training.dtype);
      const ClassPrediction p = m.model->predict(Var(batch), paths, rng);
      const std::vector<double> probs = p.probabilities.to_vector();
      std::vector<std::int32_t> guesses(static_cast<std::size_t>(B));
      for (std::int64_t b = 0; b < B; ++b) {
        const double* row = probs.data() + b * C;
        guesses[static_cast<std::size_t>(b)] =
            static_cast<std::int32_t>(std::max_element(row, row + C) - row);
      }
      Rng saliency_rng(seed_);  // random-location ram: the saliency's own path
      const std::vector<std::vector<float>> saliency =
          no_saliency_ ? std::vector<std::vector<float>>{}
                       : pixel_saliency(*m.model, batch, guesses, saliency_rng);
      // where[path][(t B + b) 2 + {0, 1}]: l_t of image b, (row, col).
      std::vector<std::vector<double>> where;
      for (const auto& path : p.paths) {
        where.emplace_back();
        for (const Tensor& l : path) {
          const std::vector<double> v = l.to_vector();
          where.back().insert(where.back().end(), v.begin(), v.end());
        }
      }
      for (std::int64_t b = 0; b < B; ++b) {
        const std::int64_t i = start + b;
        const std::int32_t guess = guesses[static_cast<std::size_t>(b)];
        const std::string name = image_picture_name(i);
        const std::string label = m.classes.token(set.labels[static_cast<std::size_t>(i)]);
        const std::string prediction = m.classes.token(guess + Vocabulary::kSpecials);
        const std::string title = "image " + std::to_string(i) + " of " +
                                  fs::path(images_).filename().string();
        if (!no_saliency_) {
          viz::GridAttentionPicture sal;
          sal.rows = sal.grid_rows = set.images.rows;
          sal.cols = sal.grid_cols = set.images.cols;
          sal.pixels = pixels_of(set.images, i);
          sal.words = {"saliency of " + prediction};
          sal.note = "pixel saliency: |d score / d pixel| of the predicted class (its logit), "
                     "scaled to sum to 1; full colour at the largest";
          sal.weight_symbol = "share";
          sal.attention = {scaled_to_sum_one(saliency[static_cast<std::size_t>(b)])};
          sal.title = title + " \xC2\xB7 label " + label + " \xC2\xB7 predicted " + prediction +
                      (label == prediction ? "  \xE2\x9C\x93 right" : "  \xE2\x9C\x97 wrong");
          const std::string sal_name = glimpses ? name + "-saliency" : name;
          write_file_atomically((out / (sal_name + ".svg")).string(), viz::grid_attention_svg(sal));
          write_file_atomically((out / (sal_name + ".png")).string(),
                                viz::grid_attention_png(sal, png_scale_));
        }
        if (!glimpses) {
          gallery.push_back({"image " + std::to_string(i), name + ".png", name + ".svg", label,
                             prediction});
          progress.say("drew image", static_cast<std::size_t>(i + 1));
          continue;
        }
        viz::GlimpsePathPicture pic;
        pic.rows = set.images.rows;
        pic.cols = set.images.cols;
        pic.pixels = pixels_of(set.images, i);
        pic.glimpse_size = ram.glimpse_size;
        pic.scales = ram.scales;
        for (const auto& w : where) {
          pic.paths.emplace_back();
          for (std::int64_t t = 0; t < T; ++t)
            pic.paths.back().push_back({w[static_cast<std::size_t>((t * B + b) * 2)],
                                        w[static_cast<std::size_t>((t * B + b) * 2 + 1)]});
        }
        pic.title = title;
        pic.label = label;
        pic.prediction = prediction;
        pic.note = paths_text(ram, paths) + " \xC2\xB7 " + dir;
        write_file_atomically((out / (name + ".svg")).string(), viz::glimpse_path_svg(pic));
        write_file_atomically((out / (name + ".png")).string(), viz::glimpse_path_png(pic, png_scale_));
        gallery.push_back({"image " + std::to_string(i), name + ".png", name + ".svg", pic.label,
                           pic.prediction});
        progress.say("drew image", static_cast<std::size_t>(i + 1));
      }
      arena.reset();
    }
    viz::GalleryInfo info;
    info.title = "heed show: " + images_;
    const std::string kind(enum_name(m.config.model.kind));
    info.facts.push_back("model " + dir + " (" + m.weights_path + "): " + kind +
                         (glimpses ? ", " + std::to_string(T) + " glimpses, " +
                                         std::to_string(ram.scales) + " scales from " +
                                         std::to_string(ram.glimpse_size) + " px"
                                   : std::string(", reading the whole image")));
    info.facts.push_back("the first " + std::to_string(n) + " of " +
                         std::to_string(set.images.count) + " images of " +
                         std::to_string(set.images.rows) + "x" + std::to_string(set.images.cols) +
                         ", labels from " + targets +
                         (glimpses ? "; " + paths_text(ram, paths) : std::string()));
    if (!no_saliency_)
      info.facts.push_back(glimpses ? "beside each picture, image-NNNN-saliency.png: |d score / d "
                                      "pixel| of the predicted class along the mean locations"
                                    : "each picture: |d score / d pixel| of the predicted class "
                                      "(pixel saliency), brightest where the score moves most");
    write_gallery(info, gallery, n);
  }

  // A saliency map as the grid picture's weights: scaled to sum to 1 (all zeros stay zeros).
  static std::vector<float> scaled_to_sum_one(std::vector<float> v) {
    double sum = 0;
    for (const float x : v) sum += x;
    if (sum > 0)
      for (float& x : v) x = static_cast<float>(x / sum);
    return v;
  }

  // model.kind image2seq: each image decoded greedily, as heed eval does by default, and each
  // emitted word's attention over the encoder's grid laid over the image.
  void show_grid_attention(const std::string& dir) {
    const LoadedModel m = load_image_sequence_model_dir(
        dir, model_.weights.empty() ? model_.checkpoint : model_.weights.front());
    HEED_CHECK(m.config.model.attention_mode != AttentionMode::none, dir,
               " holds an image2seq model without attention (model.attention.mode none): there "
               "is no attention to draw");
    const std::string targets = targets_.empty() ? default_targets_path(images_) : targets_;
    const ImageSequences set = read_image_sequences(images_, targets, m.tgt_vocab);
    HEED_CHECK(set.images.count > 0, images_, ": holds no images");
    const std::int64_t n = std::min<std::int64_t>(set.images.count, max_images_);
    DecodeOptions decode;
    decode.beam = 1;
    decode.max_len = kImageMaxWords;
    make_out_dir();

    const fs::path out(out_);
    const Progress progress(static_cast<std::size_t>(n));
    std::vector<viz::GalleryImage> gallery;
    std::int64_t gh = 0, gw = 0;
    Arena arena;
    constexpr std::int64_t kBatch = 64;
    for (std::int64_t start = 0; start < n; start += kBatch) {
      std::vector<std::size_t> members(static_cast<std::size_t>(std::min(n, start + kBatch) - start));
      std::iota(members.begin(), members.end(), static_cast<std::size_t>(start));
      ArenaScope scope(&arena);
      const std::vector<DecodedImage> decoded = decode_images(
          *m.model, m.tgt_vocab, classifier_images(set.images, members, m.config.training.dtype),
          decode);
      for (std::size_t b = 0; b < members.size(); ++b) {
        const auto i = static_cast<std::int64_t>(members[b]);
        const DecodedImage& d = decoded[b];
        viz::GridAttentionPicture pic;
        pic.rows = set.images.rows;
        pic.cols = set.images.cols;
        pic.pixels = pixels_of(set.images, i);
        pic.grid_rows = gh = d.grid_rows;
        pic.grid_cols = gw = d.grid_cols;
        pic.words = d.words;
        pic.attention = d.attention;
        const std::string label = joined(set.names[static_cast<std::size_t>(i)]);
        const std::string output = joined(d.words);
        pic.title = "image " + std::to_string(i) + " of " + fs::path(images_).filename().string() +
                    " \xC2\xB7 target " + label + " \xC2\xB7 output " +
                    (output.empty() ? std::string("(nothing)") : output) +
                    (output == label ? "  \xE2\x9C\x93 right" : "  \xE2\x9C\x97 wrong");
        const std::string name = image_picture_name(i);
        write_file_atomically((out / (name + ".svg")).string(), viz::grid_attention_svg(pic));
        write_file_atomically((out / (name + ".png")).string(),
                              viz::grid_attention_png(pic, png_scale_));
        gallery.push_back({"image " + std::to_string(i), name + ".png", name + ".svg", label, output});
        progress.say("drew image", static_cast<std::size_t>(i + 1));
      }
      arena.reset();
    }
    viz::GalleryInfo info;
    info.title = "heed show: " + images_;
    info.facts.push_back("model " + dir + " (" + m.weights_path + "): image2seq, " +
                         std::string(enum_name(m.config.model.attention_mode)) +
                         " attention over a " + std::to_string(gh) + "x" + std::to_string(gw) +
                         " grid; greedy decoding, at most " + std::to_string(kImageMaxWords) +
                         " words");
    info.facts.push_back("the first " + std::to_string(n) + " of " +
                         std::to_string(set.images.count) + " images of " +
                         std::to_string(set.images.rows) + "x" + std::to_string(set.images.cols) +
                         ", targets from " + targets + "; right: the output equals the target");
    write_gallery(info, gallery, n);
  }

  void write_gallery(const viz::GalleryInfo& info, const std::vector<viz::GalleryImage>& gallery,
                     std::int64_t n) const {
    const fs::path out(out_);
    const fs::path page = out / "gallery.html";
    write_file_atomically(page.string(), viz::gallery_html(info, gallery));
    std::int64_t wrong = 0;
    for (const auto& g : gallery) wrong += g.label != g.prediction;
    char error[32];
    std::snprintf(error, sizeof error, "%.2f", 100.0 * static_cast<double>(wrong) / static_cast<double>(n));
    std::cout << "wrote " << n << (n == 1 ? " picture" : " pictures") << " ("
              << (out / "image-NNNN.svg").string() << ", .png) and " << page.string() << "; "
              << wrong << " of " << n << " wrong (error " << error << "%)\n";
  }

  static std::string joined(const std::vector<std::string>& words) {
    std::string s;
    for (const auto& w : words) (s += s.empty() ? "" : " ") += w;
    return s;
  }

  // Where the glimpses were taken, as heed eval says it.
  static std::string paths_text(const RamConfig& ram, std::int64_t paths) {
    if (ram.random_locations)
      return paths == 1 ? std::string("random locations (the ablation)")
                        : std::to_string(paths) + " random paths averaged, the first drawn in full";
    return paths == 1 ? std::string("the mean locations")
                      : std::to_string(paths) + " sampled paths averaged, the first drawn in full";
  }

  void draw(const fs::path& dir, const viz::ReportSentence& s, const Translation& t) const {
    const TranslatedHypothesis& best = t.nbest.front();
    viz::AttentionPicture p;
    p.title = "Line " + std::to_string(s.line) + " \xC2\xB7 score " + score_text(best.score) +
              " \xC2\xB7 " + model_.label();
    p.subtitle = s.input + "  \xE2\x86\x92  " + best.text;
    p.source = t.source;
    p.output = best.output;
    p.attention = best.attention;
    p.saliency = s.saliency;
    write_file_atomically((dir / (s.picture + ".svg")).string(), viz::picture_svg(p));
    write_file_atomically((dir / (s.picture + ".png")).string(), viz::picture_png(p, png_scale_));
  }

  ModelFlags model_;
  std::string input_, images_, targets_, out_;
  std::int64_t beam_ = 5, nbest_ = 0, max_sentences_ = 0, max_images_ = 16, paths_ = 0;
  std::uint64_t seed_ = 1234;
  double png_scale_ = 2.0;
  std::size_t batch_size_ = 32;
  bool no_saliency_ = false;
};

}  // namespace

std::unique_ptr<Command> make_show_command() { return std::make_unique<ShowCommand>(); }

}  // namespace heed::cli
