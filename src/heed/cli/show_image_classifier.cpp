// The view of `heed show --images` for an image classifier (model.kind ram, fc, cnn): per
// image the pixel saliency of the predicted class (models/pixel_saliency.h) and, for ram, the
// glimpse path it is beside; gallery.html of them all (docs/cli/show.md#images).
#include <algorithm>
#include <filesystem>
#include <numeric>
#include <string>
#include <vector>

#include "heed/base/atomic_file.h"
#include "heed/base/error.h"
#include "heed/cli/show_output.h"
#include "heed/cli/show_view.h"
#include "heed/data/image_classes.h"
#include "heed/models/image_classifier.h"
#include "heed/models/model_registry.h"
#include "heed/models/pixel_saliency.h"
#include "heed/store/model_dir.h"
#include "heed/tensor/arena.h"
#include "heed/viz/glimpse_path_picture.h"
#include "heed/viz/grid_attention_picture.h"

namespace heed::cli {
namespace {

namespace fs = std::filesystem;

// A saliency map as the grid picture's weights: scaled to sum to 1 (all zeros stay zeros).
std::vector<float> scaled_to_sum_one(std::vector<float> v) {
  double sum = 0;
  for (const float x : v) sum += x;
  if (sum > 0)
    for (float& x : v) x = static_cast<float>(x / sum);
  return v;
}

// Where the glimpses were taken, as heed eval says it.
std::string paths_text(const RamConfig& ram, std::int64_t paths) {
  if (ram.random_locations)
    return paths == 1 ? std::string("random locations (the ablation)")
                      : std::to_string(paths) + " random paths averaged, the first drawn in full";
  return paths == 1 ? std::string("the mean locations")
                    : std::to_string(paths) + " sampled paths averaged, the first drawn in full";
}

// For ram each image's glimpse path, and (unless --no-saliency) the pixel saliency of the
// predicted class beside it; for fc and cnn, which read the whole image, the saliency picture
// alone.
void show_image_classifier(const ShowOptions& o, const TrainConfig& config,
                           const std::vector<std::string>&) {
  const std::string dir = o.model.dirs.front();
  const ModelKind kind = config.model.kind;
  const bool glimpses = kind == ModelKind::ram;
  if (!glimpses && o.no_saliency)
    throw UsageError(dir + " holds a classifier that reads the whole image at once (model.kind " +
                     std::string(enum_name(kind)) +
                     "): its pictures are its saliency maps; drop --no-saliency");
  const LoadedImageModel m = load_image_model_dir(
      dir, o.model.weights.empty() ? o.model.checkpoint : o.model.weights.front());
  const std::string targets = o.targets.empty() ? default_targets_path(o.images) : o.targets;
  const ClassifiedImages set = read_classified_images(o.images, targets, m.classes);
  HEED_CHECK(set.images.count > 0, o.images, ": holds no images");
  const RamConfig& ram = m.config.model.ram;
  const std::int64_t paths = !glimpses ? 1 : o.paths > 0 ? o.paths : ram.sample_paths;
  const std::int64_t n = std::min<std::int64_t>(set.images.count, o.max_images);
  const std::int64_t C = m.model->classes(), T = ram.glimpses;
  make_show_dir(o.out);

  const fs::path out(o.out);
  const ShowProgress progress(static_cast<std::size_t>(n));
  std::vector<viz::GalleryImage> gallery;
  Rng rng(o.seed);
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
    Rng saliency_rng(o.seed);  // random-location ram: the saliency's own path
    const std::vector<std::vector<float>> saliency =
        o.no_saliency ? std::vector<std::vector<float>>{}
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
      const std::string title =
          "image " + std::to_string(i) + " of " + fs::path(o.images).filename().string();
      if (!o.no_saliency) {
        viz::GridAttentionPicture sal;
        sal.rows = sal.grid_rows = set.images.rows;
        sal.cols = sal.grid_cols = set.images.cols;
        sal.pixels = pixels_of(set.images, i);
        sal.words = {"saliency of " + prediction};
        sal.note =
            "pixel saliency: |d score / d pixel| of the predicted class (its logit), "
            "scaled to sum to 1; full colour at the largest";
        sal.weight_symbol = "share";
        sal.attention = {scaled_to_sum_one(saliency[static_cast<std::size_t>(b)])};
        sal.title = title + " \xC2\xB7 label " + label + " \xC2\xB7 predicted " + prediction +
                    (label == prediction ? "  \xE2\x9C\x93 right" : "  \xE2\x9C\x97 wrong");
        const std::string sal_name = glimpses ? name + "-saliency" : name;
        write_file_atomically((out / (sal_name + ".svg")).string(), viz::grid_attention_svg(sal));
        write_file_atomically((out / (sal_name + ".png")).string(),
                              viz::grid_attention_png(sal, o.png_scale));
      }
      if (!glimpses) {
        gallery.push_back(
            {"image " + std::to_string(i), name + ".png", name + ".svg", label, prediction});
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
      write_file_atomically((out / (name + ".png")).string(),
                            viz::glimpse_path_png(pic, o.png_scale));
      gallery.push_back(
          {"image " + std::to_string(i), name + ".png", name + ".svg", pic.label, pic.prediction});
      progress.say("drew image", static_cast<std::size_t>(i + 1));
    }
    arena.reset();
  }
  viz::GalleryInfo info;
  info.title = "heed show: " + o.images;
  const std::string kind_name(enum_name(m.config.model.kind));
  info.facts.push_back("model " + dir + " (" + m.weights_path + "): " + kind_name +
                       (glimpses ? ", " + std::to_string(T) + " glimpses, " +
                                       std::to_string(ram.scales) + " scales from " +
                                       std::to_string(ram.glimpse_size) + " px"
                                 : std::string(", reading the whole image")));
  info.facts.push_back(
      "the first " + std::to_string(n) + " of " + std::to_string(set.images.count) + " images of " +
      std::to_string(set.images.rows) + "x" + std::to_string(set.images.cols) + ", labels from " +
      targets + (glimpses ? "; " + paths_text(ram, paths) : std::string()));
  if (!o.no_saliency)
    info.facts.push_back(glimpses ? "beside each picture, image-NNNN-saliency.png: |d score / d "
                                    "pixel| of the predicted class along the mean locations"
                                  : "each picture: |d score / d pixel| of the predicted class "
                                    "(pixel saliency), brightest where the score moves most");
  write_gallery(o.out, info, gallery, n);
}

}  // namespace

extern const ShowView kShowImageClassifier{ShowInput::images, classifies_images,
                                           show_image_classifier};

}  // namespace heed::cli
