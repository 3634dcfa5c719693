#include "heed/store/weights_file.h"

#include <filesystem>
#include <fstream>

#include "heed/base/error.h"

namespace fs = std::filesystem;

namespace heed {
namespace {

// torch.save writes a zip archive (PyTorch 1.6 and later; "PK\x03\x04") or, with
// _use_new_zipfile_serialization=False, a pickle stream (protocol 2 to 5: 0x80 0x02..0x05).
// Those bytes can also start a safetensors file (its little-endian header length), but
// then byte 8 opens the JSON header with '{', which neither a zip entry nor a pickle has
// there.
bool torch_save_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[9] = {};
  in.read(head, sizeof head);
  const auto n = in.gcount();
  if (n < 4 || (n == 9 && head[8] == '{')) return false;
  const bool zip = head[0] == 'P' && head[1] == 'K' && head[2] == 3 && head[3] == 4;
  const bool pickle = static_cast<unsigned char>(head[0]) == 0x80 && head[1] >= 2 && head[1] <= 5;
  return zip || pickle;
}

}  // namespace

SafeTensorsFile load_weights_file(const std::string& path, const SafeTensorsLoadOptions& options) {
  std::error_code ec;
  HEED_CHECK(!fs::is_directory(path, ec), path,
             ": is a directory, expected a weights file (.safetensors)");
  HEED_CHECK(!torch_save_file(path), path,
             ": is a PyTorch torch.save file (pickle), not safetensors; save the state dict as "
             "safetensors: safetensors.torch.save_file(model.state_dict(), "
             "'model.safetensors') (docs/INTEROP.md)");
  return load_safetensors(path, options);
}

}  // namespace heed
