// libFuzzer harness: the safetensors reader (tensor/safetensors.h). Any input must either
// load or be refused with heed::Error; a file that loads must save and load again to the
// same tensors and metadata (bit for bit).
#include <cstring>

#include "fuzz/fuzz_input.h"
#include "heed/base/error.h"
#include "heed/tensor/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace heed;
  const std::string path = fuzz::write_input("in.safetensors", data, size);
  SafeTensorsFile f;
  try {
    f = load_safetensors(path, {.require_finite = false});
  } catch (const Error&) {
    return 0;
  }
  // The finite check on top may refuse, never crash.
  try {
    load_safetensors(path);
  } catch (const Error&) {
  }
  const std::string again = fuzz::scratch_path("again.safetensors");
  save_safetensors(again, f.tensors, f.metadata);
  const SafeTensorsFile g = load_safetensors(again, {.require_finite = false});
  fuzz::require(g.metadata == f.metadata, "metadata survives a round trip");
  fuzz::require(g.tensors.size() == f.tensors.size(), "tensor count survives a round trip");
  for (std::size_t i = 0; i < f.tensors.size(); ++i) {
    const Tensor& a = f.tensors[i].second;
    const Tensor& b = g.tensors[i].second;
    fuzz::require(f.tensors[i].first == g.tensors[i].first, "names survive a round trip");
    fuzz::require(a.shape() == b.shape() && a.dtype() == b.dtype(), "shape and dtype survive");
    const std::size_t bytes = static_cast<std::size_t>(a.numel()) * dtype_size(a.dtype());
    fuzz::require(bytes == 0 || std::memcmp(a.raw(), b.raw(), bytes) == 0,
                  "values survive a round trip bit for bit");
  }
  return 0;
}
