#pragma once
// safetensors: the weight-file format (our own reader and writer, no library).
//
// Layout: 8-byte little-endian header length N, N bytes of JSON
//   {"__metadata__": {str: str}, name: {"dtype": "F32", "shape": [..], "data_offsets": [b, e]}}
// then the byte buffer; offsets are relative to the buffer start, and the tensors tile the
// buffer exactly (contiguous, non-overlapping, no gaps). Any damaged or inconsistent file is
// refused with a heed::Error naming the file and the problem, never a crash.
//
// heed's writer adds the metadata key heed.checksum ("xxh3-64:<16 hex digits>", a hash of
// the data buffer) and its reader verifies it, so a flipped bit in the weights is an error,
// not a silently different model. Files without the key (older heed files, PyTorch's) load
// unverified. docs/FORMATS.md and docs/RELIABILITY.md describe both checks.
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "heed/tensor/tensor.h"

namespace heed {

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;
using Metadata = std::map<std::string, std::string>;

// The metadata key of the content checksum (see above).
inline constexpr const char* kChecksumKey = "heed.checksum";

struct SafeTensorsFile {
  std::string path;
  NamedTensors tensors;  // in the order of their bytes in the file
  Metadata metadata;     // without heed.checksum, which describes the file, not its content
  std::string checksum;  // the verified heed.checksum value; empty when the file had none

  bool contains(const std::string& name) const;
  // The tensor called name; throws heed::Error naming the file if absent.
  const Tensor& get(const std::string& name) const;
};

struct SafeTensorsLoadOptions {
  // Refuse a float tensor holding NaN or an infinity, naming the tensor and the element:
  // weights that are not finite give silently wrong output (empty translations, -inf
  // scores). Every file heed loads in use (weights, checkpoints with their optimizer state,
  // averages) must be finite; only tests of the format itself turn this off.
  bool require_finite = true;
  // Read I8 tensors (int8 weights, as heed quantize writes them) into f32 tensors holding the
  // integer values. Off, an I8 tensor is refused with a message naming heed quantize: only
  // the loader of a model directory turns this on (store/quantized_weights.h).
  bool read_int8 = false;
};

// Reads F32 and F64 as they are; F16 and BF16 (and I8, with read_int8) widen to f32; I32 and
// I64 become f64
// (refused if an I64 value is not exactly representable). Other dtypes are refused.
// Verifies heed.checksum when present, then (by default) that every value is finite.
// Tensors land on the heap, never in an active arena.
SafeTensorsFile load_safetensors(const std::string& path,
                                 const SafeTensorsLoadOptions& options = {});

// Writes F32/F64 tensors (any strides) in the given order, the header padded with spaces to
// a multiple of 8, with heed.checksum added to the metadata (a heed.checksum given in
// metadata is replaced: it described another file). Writes a temporary file beside path,
// then renames it over path, so a failure never leaves a half-written file. The tensors named
// in as_int8 are f32 holding integers in [-128, 127] (heed::Error otherwise), stored as I8.
void save_safetensors(const std::string& path, const NamedTensors& tensors,
                      const Metadata& metadata = {}, const std::set<std::string>& as_int8 = {});

}  // namespace heed
