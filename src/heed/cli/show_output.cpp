#include "heed/cli/show_output.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <system_error>

#include "heed/base/atomic_file.h"
#include "heed/base/error.h"

namespace heed::cli {

namespace fs = std::filesystem;

ShowProgress::ShowProgress(std::size_t total)
    : total_(total), every_(std::max<std::size_t>(1, total / 10)) {}

void ShowProgress::say(const char* what, std::size_t done) const {
  if (total_ < 10) return;
  if (done % every_ != 0 && done != total_) return;
  std::cerr << "heed show: " << what << " " << done << " of " << total_ << "\n";
}

void make_show_dir(const std::string& out) {
  std::error_code ec;
  fs::create_directories(out, ec);
  HEED_CHECK(!ec && fs::is_directory(out), out, ": cannot create the output directory (",
             ec ? ec.message() : "a file of that name exists", ")");
}

std::string image_picture_name(std::int64_t image) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "image-%04lld", static_cast<long long>(image));
  return buf;
}

std::vector<float> pixels_of(const IdxImages& images, std::int64_t i) {
  const std::uint8_t* px = images.image(i);
  std::vector<float> v(px, px + images.image_size());
  for (float& x : v) x /= 255.0f;
  return v;
}

void write_gallery(const std::string& out, const viz::GalleryInfo& info,
                   const std::vector<viz::GalleryImage>& gallery, std::int64_t n) {
  const fs::path dir(out);
  const fs::path page = dir / "gallery.html";
  write_file_atomically(page.string(), viz::gallery_html(info, gallery));
  std::int64_t wrong = 0;
  for (const auto& g : gallery) wrong += g.label != g.prediction;
  char error[32];
  std::snprintf(error, sizeof error, "%.2f",
                100.0 * static_cast<double>(wrong) / static_cast<double>(n));
  std::cout << "wrote " << n << (n == 1 ? " picture" : " pictures") << " ("
            << (dir / "image-NNNN.svg").string() << ", .png) and " << page.string() << "; " << wrong
            << " of " << n << " wrong (error " << error << "%)\n";
}

}  // namespace heed::cli
