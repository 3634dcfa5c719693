#pragma once
// The gallery page of `heed show --images`: one self-contained HTML file (its style inline,
// no script, nothing fetched) beside the pictures it shows, in a grid: per image its picture
// (a link to its SVG), the label, the prediction and whether it is right, and above them the
// error over the images shown.
#include <cstddef>
#include <string>
#include <vector>

namespace heed::viz {

struct GalleryImage {
  std::string name;        // caption, e.g. "image 7"
  std::string png, svg;    // file names beside the page
  std::string label;       // the true class or sequence ("" unknown)
  std::string prediction;  // what the model gave
};

struct GalleryInfo {
  std::string title;               // the page's heading, e.g. "heed show: test-images-idx3-ubyte.gz"
  std::vector<std::string> facts;  // lines under the heading (model, images, paths)
};

// Right: the prediction equals the label. The heading line gives the error over the images
// with a label ("2 of 16 wrong: error 12.50%"). Every text is escaped.
std::string gallery_html(const GalleryInfo& info, const std::vector<GalleryImage>& images);

}  // namespace heed::viz
