// The view of `heed show --images` for an image-to-sequence model (model.kind image2seq): each
// image decoded greedily, as heed eval does by default, and each emitted word's attention over
// the encoder's grid laid over the image; gallery.html of them all (docs/cli/show.md#images).
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
#include "heed/data/image_sequences.h"
#include "heed/models/image_classifier.h"
#include "heed/models/model_registry.h"
#include "heed/store/model_dir.h"
#include "heed/tensor/arena.h"
#include "heed/translate/image_decoding.h"
#include "heed/viz/grid_attention_picture.h"

namespace heed::cli {
namespace {

namespace fs = std::filesystem;

// The most words decoded per image (heed eval's --max-len default).
constexpr std::int64_t kImageMaxWords = 20;

std::string joined(const std::vector<std::string>& words) {
  std::string s;
  for (const auto& w : words) (s += s.empty() ? "" : " ") += w;
  return s;
}

void show_image2seq(const ShowOptions& o, const TrainConfig&, const std::vector<std::string>&) {
  const std::string dir = o.model.dirs.front();
  const LoadedModel m = load_image_sequence_model_dir(
      dir, o.model.weights.empty() ? o.model.checkpoint : o.model.weights.front());
  HEED_CHECK(m.config.model.attention_mode != AttentionMode::none, dir,
             " holds an image2seq model without attention (model.attention.mode none): there "
             "is no attention to draw");
  const std::string targets = o.targets.empty() ? default_targets_path(o.images) : o.targets;
  const ImageSequences set = read_image_sequences(o.images, targets, m.tgt_vocab);
  HEED_CHECK(set.images.count > 0, o.images, ": holds no images");
  const std::int64_t n = std::min<std::int64_t>(set.images.count, o.max_images);
  DecodeOptions decode;
  decode.beam = 1;
  decode.max_len = kImageMaxWords;
  make_show_dir(o.out);

  const fs::path out(o.out);
  const ShowProgress progress(static_cast<std::size_t>(n));
  std::vector<viz::GalleryImage> gallery;
  std::int64_t gh = 0, gw = 0;
  Arena arena;
  constexpr std::int64_t kBatch = 64;
  for (std::int64_t start = 0; start < n; start += kBatch) {
    std::vector<std::size_t> members(static_cast<std::size_t>(std::min(n, start + kBatch) - start));
    std::iota(members.begin(), members.end(), static_cast<std::size_t>(start));
    ArenaScope scope(&arena);
    const std::vector<DecodedImage> decoded =
        decode_images(*m.model, m.tgt_vocab,
                      classifier_images(set.images, members, m.config.training.dtype), decode);
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
      pic.title = "image " + std::to_string(i) + " of " + fs::path(o.images).filename().string() +
                  " \xC2\xB7 target " + label + " \xC2\xB7 output " +
                  (output.empty() ? std::string("(nothing)") : output) +
                  (output == label ? "  \xE2\x9C\x93 right" : "  \xE2\x9C\x97 wrong");
      const std::string name = image_picture_name(i);
      write_file_atomically((out / (name + ".svg")).string(), viz::grid_attention_svg(pic));
      write_file_atomically((out / (name + ".png")).string(),
                            viz::grid_attention_png(pic, o.png_scale));
      gallery.push_back(
          {"image " + std::to_string(i), name + ".png", name + ".svg", label, output});
      progress.say("drew image", static_cast<std::size_t>(i + 1));
    }
    arena.reset();
  }
  viz::GalleryInfo info;
  info.title = "heed show: " + o.images;
  info.facts.push_back("model " + dir + " (" + m.weights_path + "): image2seq, " +
                       std::string(enum_name(m.config.model.attention_mode)) +
                       " attention over a " + std::to_string(gh) + "x" + std::to_string(gw) +
                       " grid; greedy decoding, at most " + std::to_string(kImageMaxWords) +
                       " words");
  info.facts.push_back("the first " + std::to_string(n) + " of " +
                       std::to_string(set.images.count) + " images of " +
                       std::to_string(set.images.rows) + "x" + std::to_string(set.images.cols) +
                       ", targets from " + targets + "; right: the output equals the target");
  write_gallery(o.out, info, gallery, n);
}

}  // namespace

extern const ShowView kShowImage2Seq{ShowInput::images, is_image_to_sequence, show_image2seq};

}  // namespace heed::cli
