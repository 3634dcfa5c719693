#pragma once
// Quantised model directories (`heed quantize`, docs/cli/quantize.md): the weights file stores
// every 2-D float weight as int8 (safetensors dtype I8), quantised per row (per output
// channel, symmetric: kernels/int8_quantize.h), with its fp32 scales beside it under
// "<name>.int8_scale" (one per row); every other tensor (biases, layer norms) as it was. The
// metadata key heed.weights_format names the layout: a reader checks it, and refuses a value
// it does not know (a newer layout). A reader from before quantisation refuses the file at
// its first I8 tensor (it reads no I8), so no heed decodes int8 values as if they were floats.
//
// Loading (load_model_weights, store/model_weights.h) dequantises: W = q * scale per row, the
// fp32 weights the model computes with; decoding then runs at int8 by default, whose packed
// copy re-quantises each row to the same int8 values. Training, export, average and import
// read weights files without I8 and refuse a quantised one by name.
#include <cstdint>
#include <set>
#include <string>

#include "heed/tensor/safetensors.h"

namespace heed {

namespace quantized_keys {
inline constexpr const char* kFormat = "heed.weights_format";  // metadata key
inline constexpr const char* kInt8Rows = "int8-rows/1";        // its one value so far
inline constexpr const char* kScaleSuffix = ".int8_scale";     // "<weight>.int8_scale"
}  // namespace quantized_keys

// Whether a weights file's metadata says it is quantised (any heed.weights_format).
bool is_quantized(const Metadata& metadata);
// Whether the file at path is a readable quantised weights file (false for any other file,
// readable or not).
bool is_quantized_file(const std::string& path);

// The quantised form of fp32 weights: each 2-D f32 tensor W (rows x cols) becomes W's int8
// values (as f32 integers in [-127, 127], named in int8_names for save_safetensors) and
// "<name>.int8_scale" (rows); other tensors are copied. heed::Error for a name that already
// ends in the scale suffix.
NamedTensors quantize_tensors(const NamedTensors& tensors, std::set<std::string>& int8_names);

// A loaded quantised file back to fp32 weights in place: each int8 tensor times its rows'
// scales, the scale tensors removed. heed::Error naming the file for an unknown
// heed.weights_format, a scale without its weight, a weight whose values are not int8, a
// scale of the wrong shape, negative or not finite.
void dequantize_file(SafeTensorsFile& file);

struct QuantizeOptions {
  std::string model;             // a model directory
  std::string weights = "best";  // best | last | the path of a weights file
  std::string out;               // the model directory to write (new or empty)
};

struct QuantizeReport {
  std::int64_t int8_tensors = 0, other_tensors = 0;
  std::uintmax_t bytes_before = 0, bytes_after = 0;  // the weights files' sizes
};

// Writes out: the model directory's config.yaml, vocabularies and SentencePiece models as
// they are and its weights (options.weights) quantised as out/best.safetensors. out is
// written beside itself and renamed into place. heed::Error for a directory that is not a
// model directory, weights already quantised, an out that exists and is not empty.
QuantizeReport quantize_model_dir(const QuantizeOptions& options);

}  // namespace heed
