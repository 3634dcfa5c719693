#include "heed/data/image_sequences.h"

#include <algorithm>
#include <sstream>

#include "heed/base/error.h"
#include "heed/data/text_file.h"

namespace heed {

std::vector<std::vector<std::string>> read_name_sequences(const std::string& targets_path) {
  const std::vector<std::string> lines = read_lines(targets_path);
  std::vector<std::vector<std::string>> out(lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::istringstream words(lines[i]);
    for (std::string w; words >> w;) out[i].push_back(w);
    HEED_CHECK(!out[i].empty(), targets_path, ":", i + 1,
               ": empty line, expected the class names of image ", i + 1);
  }
  return out;
}

Vocabulary build_name_vocabulary(const std::vector<std::vector<std::string>>& lines) {
  TokenCounter counter;
  for (const auto& line : lines) counter.add(line);
  return Vocabulary::build(counter);
}

ImageSequences read_image_sequences(const std::string& images_path,
                                    const std::string& targets_path, const Vocabulary& names) {
  ImageSequences set;
  set.images = read_idx_images(images_path);
  set.names = read_name_sequences(targets_path);
  HEED_CHECK(static_cast<std::int64_t>(set.names.size()) == set.images.count, targets_path,
             " holds ", set.names.size(), " lines, expected one per image of ", images_path, ": ",
             set.images.count);
  set.targets.reserve(set.names.size());
  for (std::size_t i = 0; i < set.names.size(); ++i) {
    std::vector<std::int32_t> ids;
    for (const std::string& w : set.names[i]) {
      const std::int32_t id = names.id(w);
      HEED_CHECK(id >= Vocabulary::kSpecials, targets_path, ":", i + 1, ": class '", w,
                 "' does not occur in the training targets");
      ids.push_back(id);
    }
    ids.push_back(Vocabulary::kEos);
    set.targets.push_back(std::move(ids));
  }
  return set;
}

Corpus image_sequence_corpus(const ImageSequences& set, std::size_t limit) {
  Corpus c;
  const std::size_t n = limit > 0 ? std::min(limit, set.targets.size()) : set.targets.size();
  c.src.assign(n, std::vector<std::int32_t>{Vocabulary::kEos});
  c.tgt.assign(set.targets.begin(), set.targets.begin() + static_cast<std::ptrdiff_t>(n));
  c.index.resize(n);
  for (std::size_t i = 0; i < n; ++i) c.index[i] = i;
  c.stats.read = c.stats.kept = n;
  return c;
}

}  // namespace heed
