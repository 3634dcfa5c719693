#pragma once
// Reading a weights file a user names: load_safetensors, after the two mistakes its own
// messages would only describe as damage (a folder where the file should be, which reads as
// an unreadable header; a PyTorch torch.save file, whose first bytes read as an absurd
// header length) are named for what they are.
#include <string>

#include "heed/tensor/safetensors.h"

namespace heed {

// heed::Error naming path when it is a directory or a torch.save file (zip or pickle);
// otherwise load_safetensors(path, options).
SafeTensorsFile load_weights_file(const std::string& path,
                                  const SafeTensorsLoadOptions& options = {});

}  // namespace heed
