// The gallery page of `heed show --images` (viz/image_gallery_html.h): every image is listed
// with its picture, label and prediction, the error over them heads the page, and text is
// escaped.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "heed/viz/image_gallery_html.h"

namespace heed::viz {
namespace {

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

TEST(ImageGallery, ListsEveryImageWithItsVerdictAndTheError) {
  std::vector<GalleryImage> images;
  for (int i = 0; i < 5; ++i) {
    const std::string name = "image-000" + std::to_string(i);
    images.push_back({"image " + std::to_string(i), name + ".png", name + ".svg", "Bag",
                      i % 2 == 0 ? "Bag" : "Sandal"});
  }
  GalleryInfo info;
  info.title = "heed show: test-images-idx3-ubyte.gz";
  info.facts = {"model runs/ram", "the first 5 of 10000 images"};
  const std::string html = gallery_html(info, images);
  for (int i = 0; i < 5; ++i) {
    const std::string name = "image-000" + std::to_string(i);
    EXPECT_NE(html.find("src=\"" + name + ".png\""), std::string::npos) << name;
    EXPECT_NE(html.find("href=\"" + name + ".svg\""), std::string::npos) << name;
    EXPECT_NE(html.find("<b>image " + std::to_string(i) + "</b>"), std::string::npos);
  }
  EXPECT_EQ(count(html, "<figure"), 5u);
  EXPECT_EQ(count(html, "class=\"wrong\""), 2u);
  EXPECT_EQ(count(html, "class=\"right\""), 3u);
  EXPECT_NE(html.find("2 of 5 wrong: error 40.00%"), std::string::npos);
  EXPECT_NE(html.find("the first 5 of 10000 images"), std::string::npos);
  EXPECT_EQ(html.find("http"), std::string::npos);  // nothing fetched
}

TEST(ImageGallery, EscapesTextAndCopesWithoutLabels) {
  std::vector<GalleryImage> images = {{"image <0>", "a&b.png", "", "", "T-shirt/top \"x\""}};
  GalleryInfo info;
  info.title = "<script>";
  const std::string html = gallery_html(info, images);
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;"), std::string::npos);
  EXPECT_NE(html.find("src=\"a&amp;b.png\""), std::string::npos);
  EXPECT_NE(html.find("href=\"a&amp;b.png\""), std::string::npos);  // no SVG: the PNG
  EXPECT_NE(html.find("T-shirt/top &quot;x&quot;"), std::string::npos);
  EXPECT_NE(html.find("no labels"), std::string::npos);
  EXPECT_EQ(html.find("class=\"wrong\""), std::string::npos);
}

}  // namespace
}  // namespace heed::viz
