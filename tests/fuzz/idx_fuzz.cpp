// libFuzzer harness: the IDX reader (data/idx_file.h), plain and gzipped. Any input must
// either load or be refused with heed::Error; what loads as images must hold exactly
// count x rows x cols pixels, what loads as labels one byte per item, and both must write
// and read back to the same arrays.
#include "fuzz/fuzz_input.h"
#include "heed/base/error.h"
#include "heed/data/idx_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace heed;
  const std::string path = fuzz::write_input("in.idx", data, size);
  try {
    const IdxImages im = read_idx_images(path);
    fuzz::require(im.count >= 0 && im.rows >= 0 && im.cols >= 0, "non-negative sizes");
    fuzz::require(static_cast<std::uint64_t>(im.pixels.size()) ==
                      static_cast<std::uint64_t>(im.count) * static_cast<std::uint64_t>(im.rows) *
                          static_cast<std::uint64_t>(im.cols),
                  "pixels == count x rows x cols");
    const std::string again = fuzz::scratch_path("again-images.idx.gz");
    write_idx_images(again, im);
    const IdxImages back = read_idx_images(again);
    fuzz::require(back.count == im.count && back.rows == im.rows && back.cols == im.cols &&
                      back.pixels == im.pixels,
                  "images write and read back to themselves");
  } catch (const Error&) {
  }
  try {
    const std::vector<std::uint8_t> labels = read_idx_labels(path);
    const std::string again = fuzz::scratch_path("again-labels.idx.gz");
    write_idx_labels(again, labels);
    fuzz::require(read_idx_labels(again) == labels, "labels write and read back to themselves");
  } catch (const Error&) {
  }
  return 0;
}
