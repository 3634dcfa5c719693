#include "heed/data/image_classes.h"

#include "heed/base/error.h"
#include "heed/data/text_file.h"

namespace heed {

std::vector<std::string> read_class_names(const std::string& targets_path) {
  std::vector<std::string> lines = read_lines(targets_path);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string& line = lines[i];
    const auto first = line.find_first_not_of(" \t");
    const auto last = line.find_last_not_of(" \t");
    HEED_CHECK(first != std::string::npos, targets_path, ":", i + 1,
               ": empty line, expected the class name of image ", i + 1);
    line = line.substr(first, last - first + 1);
    HEED_CHECK(line.find_first_of(" \t") == std::string::npos, targets_path, ":", i + 1,
               ": '", line, "' names several items; an image classifier (model.kind ram, fc, "
               "cnn) reads one class per image (heed data images --kind translated or "
               "cluttered); several items per image are for model.kind image2seq");
  }
  return lines;
}

Vocabulary build_class_vocabulary(const std::vector<std::string>& names) {
  TokenCounter counter;
  for (const std::string& n : names) counter.add(n);
  return Vocabulary::build(counter);
}

std::string default_targets_path(const std::string& images) {
  const std::string suffix = "-images-idx3-ubyte.gz";
  HEED_CHECK(images.size() > suffix.size() &&
                 images.compare(images.size() - suffix.size(), suffix.size(), suffix) == 0,
             images, ": cannot tell its targets file (heed data images writes <split>-images-",
             "idx3-ubyte.gz beside <split>.tgt); give --targets FILE");
  return images.substr(0, images.size() - suffix.size()) + ".tgt";
}

ClassifiedImages read_classified_images(const std::string& images_path,
                                        const std::string& targets_path,
                                        const Vocabulary& classes) {
  ClassifiedImages set;
  set.images = read_idx_images(images_path);
  const std::vector<std::string> names = read_class_names(targets_path);
  HEED_CHECK(static_cast<std::int64_t>(names.size()) == set.images.count, targets_path, " holds ",
             names.size(), " class names, expected one per image of ", images_path, ": ",
             set.images.count);
  set.labels.reserve(names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::int32_t id = classes.id(names[i]);
    HEED_CHECK(id >= Vocabulary::kSpecials, targets_path, ":", i + 1, ": class '", names[i],
               "' does not occur in the training targets");
    set.labels.push_back(id);
  }
  return set;
}

Corpus image_corpus(const ClassifiedImages& set) {
  Corpus c;
  const std::size_t n = set.labels.size();
  c.src.reserve(n);
  c.tgt.reserve(n);
  c.index.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    c.src.push_back({set.labels[i]});
    c.tgt.push_back({set.labels[i]});
    c.index.push_back(i);
  }
  c.stats.read = c.stats.kept = n;
  return c;
}

}  // namespace heed
