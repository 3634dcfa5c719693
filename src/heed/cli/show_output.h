#pragma once
// What the views of `heed show` (show_view.h) share as they write: the output directory,
// progress on stderr, the pictures' names and pixels, and the gallery page of the image views.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "heed/data/idx_file.h"
#include "heed/viz/image_gallery_html.h"

namespace heed::cli {

// "drawing sentence 12 of 300" on stderr, about ten times per run (every line when it is
// short enough to read), so a long input shows that it moves.
class ShowProgress {
 public:
  explicit ShowProgress(std::size_t total);
  void say(const char* what, std::size_t done) const;

 private:
  std::size_t total_, every_;
};

// Creates --out with its parents; heed::Error when it cannot.
void make_show_dir(const std::string& out);

// "image-0007": the picture of image 7 of the images file, counted from 0 as in the
// `heed eval --locations` file (.svg and .png).
std::string image_picture_name(std::int64_t image);

// Image i of a set as the pictures take it: rows * cols values in [0, 1].
std::vector<float> pixels_of(const IdxImages& images, std::int64_t i);

// OUT/gallery.html of the n images drawn, and the line that says so with their error (an image
// is wrong when its label and prediction differ).
void write_gallery(const std::string& out, const viz::GalleryInfo& info,
                   const std::vector<viz::GalleryImage>& gallery, std::int64_t n);

}  // namespace heed::cli
