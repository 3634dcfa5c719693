#include "heed/store/weights_file.h"

#include <filesystem>
#include <fstream>

#include "heed/base/error.h"

namespace fs = std::filesystem;

namespace heed {
namespace {

// torch.save writes a zip archive (PyTorch 1.6 and later) or, with
// _use_new_zipfile_serialization=False, a pickle stream (protocol 2: 0x80 0x02). A
// safetensors file starts with its header length, little-endian: a 0x80 0x02 or "PK" start
// would be a header of more than 2^40 bytes, which no safetensors file has.
bool torch_save_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[4] = {};
  in.read(head, sizeof head);
  if (in.gcount() < 2) return false;
  const bool zip = head[0] == 'P' && head[1] == 'K' && in.gcount() == 4 && head[2] == 3 &&
                   head[3] == 4;
  const bool pickle = static_cast<unsigned char>(head[0]) == 0x80 && head[1] >= 2 && head[1] <= 5;
  return zip || pickle;
}

}  // namespace

SafeTensorsFile load_weights_file(const std::string& path) {
  std::error_code ec;
  HEED_CHECK(!fs::is_directory(path, ec), path,
             ": is a directory, expected a weights file (.safetensors)");
  HEED_CHECK(!torch_save_file(path), path,
             ": is a PyTorch torch.save file (pickle), not safetensors; save the state dict as "
             "safetensors: safetensors.torch.save_file(model.state_dict(), "
             "'model.safetensors') (docs/INTEROP.md)");
  return load_safetensors(path);
}

}  // namespace heed
