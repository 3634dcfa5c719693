#include "heed/store/quantized_weights.h"

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <map>

#include "heed/base/error.h"
#include "heed/kernels/int8_quantize.h"
#include "heed/store/model_dir.h"
#include "heed/store/weights_file.h"

namespace fs = std::filesystem;

namespace heed {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::uintmax_t file_size_or_zero(const std::string& path) {
  std::error_code ec;
  const auto n = fs::file_size(path, ec);
  return ec ? 0 : n;
}

}  // namespace

bool is_quantized(const Metadata& metadata) { return metadata.count(quantized_keys::kFormat) > 0; }

bool is_quantized_file(const std::string& path) {
  try {
    SafeTensorsLoadOptions read;
    read.read_int8 = true;
    return is_quantized(load_safetensors(path, read).metadata);
  } catch (const Error&) {
    return false;
  }
}

NamedTensors quantize_tensors(const NamedTensors& tensors, std::set<std::string>& int8_names) {
  NamedTensors out;
  for (const auto& [name, t] : tensors) {
    HEED_CHECK(!ends_with(name, quantized_keys::kScaleSuffix), "quantize: tensor '", name,
               "' already ends in ", quantized_keys::kScaleSuffix);
    if (t.dtype() != DType::f32 || t.ndim() != 2 || t.numel() == 0) {
      out.emplace_back(name, t);
      continue;
    }
    const Tensor w = t.contiguous();
    const std::int64_t rows = w.dim(0), cols = w.dim(1);
    std::vector<std::int8_t> q(static_cast<std::size_t>(rows * cols));
    Tensor scales = Tensor::empty({rows}, DType::f32);
    kernels::quantize_weight_rows(w.data<float>(), rows, cols, cols, q.data(),
                                  scales.data<float>());
    Tensor values = Tensor::empty({rows, cols}, DType::f32);
    float* v = values.data<float>();
    for (std::size_t i = 0; i < q.size(); ++i) v[i] = q[i];
    out.emplace_back(name, std::move(values));
    out.emplace_back(name + quantized_keys::kScaleSuffix, std::move(scales));
    int8_names.insert(name);
  }
  return out;
}

void dequantize_file(SafeTensorsFile& file) {
  const auto it = file.metadata.find(quantized_keys::kFormat);
  HEED_CHECK(it != file.metadata.end(), file.path, ": not a quantised weights file (no ",
             quantized_keys::kFormat, " metadata)");
  HEED_CHECK(it->second == quantized_keys::kInt8Rows, file.path, ": weights stored as '",
             it->second, "' (its ", quantized_keys::kFormat, " metadata); this heed reads '",
             quantized_keys::kInt8Rows, "' only: a newer heed wrote it");
  const std::string suffix = quantized_keys::kScaleSuffix;
  std::map<std::string, const Tensor*> by_name;
  for (const auto& [name, t] : file.tensors) by_name.emplace(name, &t);
  NamedTensors out;
  for (auto& [name, t] : file.tensors) {
    if (ends_with(name, suffix)) {
      const std::string weight = name.substr(0, name.size() - suffix.size());
      HEED_CHECK(by_name.count(weight), file.path, ": scale tensor '", name,
                 "' without its weight '", weight, "'");
      continue;
    }
    const auto s = by_name.find(name + suffix);
    if (s == by_name.end()) {
      out.emplace_back(name, std::move(t));
      continue;
    }
    const Tensor& scales = *s->second;
    HEED_CHECK(t.dtype() == DType::f32 && t.ndim() == 2, file.path, ": quantised weight '", name,
               "' is not a 2-D int8 tensor (shape ", t.shape().str(), ")");
    const std::int64_t rows = t.dim(0), cols = t.dim(1);
    HEED_CHECK(scales.dtype() == DType::f32 && scales.shape() == Shape{rows}, file.path,
               ": scale tensor '", s->first, "' has shape ", scales.shape().str(),
               ", expected (", rows, ") F32: one scale per row of '", name, "'");
    const float* sc = scales.data<float>();
    float* v = t.data<float>();
    for (std::int64_t r = 0; r < rows; ++r) {
      HEED_CHECK(std::isfinite(sc[r]) && sc[r] >= 0.0f, file.path, ": scale tensor '",
                 s->first, "' row ", r, " is ", sc[r], ", expected a finite scale >= 0");
      for (std::int64_t c = 0; c < cols; ++c) {
        float& x = v[r * cols + c];
        HEED_CHECK(x == std::nearbyint(x) && std::fabs(x) <= kernels::kInt8WeightMax, file.path,
                   ": quantised weight '", name, "' holds ", x, " at row ", r, ", column ", c,
                   ": expected int8 values in [-127, 127] (I8)");
        x *= sc[r];
      }
    }
    out.emplace_back(name, std::move(t));
  }
  file.tensors = std::move(out);
}

QuantizeReport quantize_model_dir(const QuantizeOptions& o) {
  load_model_config(o.model);  // a model directory, its config readable
  const std::string from = weights_file(o.model, o.weights);
  std::error_code ec;
  const bool empty_dir = fs::is_directory(o.out, ec) && fs::is_empty(o.out, ec);
  HEED_CHECK(!fs::exists(o.out, ec) || empty_dir, o.out,
             ": exists; heed quantize writes a new model directory (give a new or empty one)");
  SafeTensorsLoadOptions read;
  read.read_int8 = true;  // to say "already quantised" rather than "I8"
  SafeTensorsFile file = load_weights_file(from, read);
  HEED_CHECK(!is_quantized(file.metadata), from, ": is quantised already (",
             quantized_keys::kFormat, " ", file.metadata.at(quantized_keys::kFormat), ")");
  QuantizeReport report;
  std::set<std::string> int8_names;
  const NamedTensors tensors = quantize_tensors(file.tensors, int8_names);
  report.int8_tensors = static_cast<std::int64_t>(int8_names.size());
  report.other_tensors = static_cast<std::int64_t>(file.tensors.size() - int8_names.size());
  Metadata meta = file.metadata;  // kind, vocabulary checksums, ...
  meta[quantized_keys::kFormat] = quantized_keys::kInt8Rows;

  // Written beside out under a name of this process, then renamed into place.
  fs::path target = fs::absolute(o.out).lexically_normal();
  if (!target.has_filename()) target = target.parent_path();
  const std::string stage = target.string() + ".quantize.tmp." + std::to_string(::getpid());
  fs::remove_all(stage, ec);
  fs::create_directories(stage, ec);
  HEED_CHECK(!ec, stage, ": cannot create the directory (", ec.message(), ")");
  try {
    for (const char* name : {model_files::kConfig, model_files::kSrcVocab, model_files::kTgtVocab,
                             model_files::kSrcSpm, model_files::kTgtSpm}) {
      const std::string src = path_in(o.model, name);
      if (!fs::exists(src)) continue;
      fs::copy_file(src, path_in(stage, name), ec);
      HEED_CHECK(!ec, src, ": cannot copy into ", stage, " (", ec.message(), ")");
    }
    const std::string weights = path_in(stage, model_files::kBest);
    save_safetensors(weights, tensors, meta, int8_names);
    report.bytes_before = file_size_or_zero(from);
    report.bytes_after = file_size_or_zero(weights);
    if (empty_dir) fs::remove(target);
    fs::rename(stage, target, ec);
    HEED_CHECK(!ec, o.out, ": cannot move the quantised model into place (", ec.message(), ")");
  } catch (...) {
    fs::remove_all(stage, ec);
    throw;
  }
  return report;
}

}  // namespace heed
