#pragma once
// The quadrant task of the image classifiers' end-to-end tests: n blank 16x16 canvases, each
// with a bright 4x4 square anywhere inside one uniformly drawn quadrant, written as
// <split>-images-idx3-ubyte.gz and <split>.tgt (the quadrant's name per image) in dir, as
// `heed data images` writes its sets.
#include <string>
#include <vector>

#include "cli/cli_test_util.h"
#include "heed/base/random.h"
#include "heed/data/idx_file.h"
#include "heed/data/text_file.h"

namespace heed::testing {

inline constexpr const char* kQuadrants[] = {"top-left", "top-right", "bottom-left",
                                             "bottom-right"};

inline void write_quadrants(const ScratchDir& dir, const std::string& split, std::int64_t n,
                            Rng& rng) {
  IdxImages im;
  im.count = n;
  im.rows = im.cols = 16;
  im.pixels.assign(static_cast<std::size_t>(n * 256), 0);
  std::vector<std::string> names;
  for (std::int64_t i = 0; i < n; ++i) {
    const auto q = static_cast<int>(rng.below(4));
    const auto row = static_cast<std::int64_t>((q / 2) * 8 + rng.below(5));
    const auto col = static_cast<std::int64_t>((q % 2) * 8 + rng.below(5));
    for (std::int64_t r = row; r < row + 4; ++r)
      for (std::int64_t c = col; c < col + 4; ++c) im.image(i)[r * 16 + c] = 255;
    names.push_back(kQuadrants[q]);
  }
  write_idx_images(dir.path(split + "-images-idx3-ubyte.gz"), im);
  write_lines(dir.path(split + ".tgt"), names);
}

}  // namespace heed::testing
