#include "heed/tensor/safetensors.h"

#include "heed/base/atomic_file.h"
#include "heed/base/checksum.h"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "heed/tensor/arena.h"

namespace heed {

static_assert(std::endian::native == std::endian::little,
              "safetensors data is little-endian; heed reads it in place");

namespace {

// The reference implementation refuses headers above 100 MB; so do we, before allocating.
constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;

enum class FileDType { f32, f64, f16, bf16, i32, i64, i8 };

struct Entry {
  std::string name;
  FileDType dtype;
  Shape shape;
  std::uint64_t begin = 0, end = 0;
};

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw Error("safetensors file '" + path + "': " + what);
}

std::size_t file_dtype_size(FileDType t) {
  switch (t) {
    case FileDType::i8: return 1;
    case FileDType::f16:
    case FileDType::bf16: return 2;
    case FileDType::f32:
    case FileDType::i32: return 4;
    case FileDType::f64:
    case FileDType::i64: return 8;
  }
  return 0;
}

FileDType parse_dtype(const std::string& path, const std::string& name, const std::string& s,
                      bool read_int8) {
  if (s == "I8" && read_int8) return FileDType::i8;
  if (s == "I8")
    fail(path, "tensor '" + name + "' has dtype I8: int8 weights, as heed quantize writes "
                   "them; they are read only where a model directory is loaded for decoding "
                   "(translate, serve, eval, ...), and this needs fp32 weights: use the model "
                   "directory heed quantize read");
  if (s == "F32") return FileDType::f32;
  if (s == "F64") return FileDType::f64;
  if (s == "F16") return FileDType::f16;
  if (s == "BF16") return FileDType::bf16;
  if (s == "I32") return FileDType::i32;
  if (s == "I64") return FileDType::i64;
  static const std::set<std::string> known = {"BOOL", "U8",  "I8",  "U16",    "I16",
                                              "U32",  "U64", "F8_E4M3", "F8_E5M2"};
  if (known.count(s))
    fail(path, "tensor '" + name + "' has dtype " + s +
                   ", which heed does not read (it reads F32, F64, F16, BF16, I32, I64)");
  fail(path, "tensor '" + name + "' has unknown dtype '" + s + "'");
}

DType memory_dtype(FileDType t) {
  return (t == FileDType::f64 || t == FileDType::i32 || t == FileDType::i64) ? DType::f64
                                                                               : DType::f32;
}

float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1fu;
  const std::uint32_t mant = h & 0x3ffu;
  if (exp == 0) {  // zero or subnormal: mant * 2^-24
    float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  }
  std::uint32_t bits;
  if (exp == 31)
    bits = sign | 0x7f800000u | (mant << 13);  // inf or nan
  else
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  return std::bit_cast<float>(bits);
}

std::uint64_t json_offset(const std::string& path, const std::string& name,
                          const nlohmann::json& v) {
  if (!v.is_number_unsigned())
    fail(path, "tensor '" + name + "': data_offsets must be non-negative integers");
  return v.get<std::uint64_t>();
}

Entry parse_entry(const std::string& path, const std::string& name, const nlohmann::json& info,
                  bool read_int8) {
  Entry e;
  e.name = name;
  if (!info.is_object()) fail(path, "tensor '" + name + "': header entry is not an object");
  auto dt = info.find("dtype");
  if (dt == info.end() || !dt->is_string()) fail(path, "tensor '" + name + "': no dtype string");
  e.dtype = parse_dtype(path, name, dt->get<std::string>(), read_int8);

  auto sh = info.find("shape");
  if (sh == info.end() || !sh->is_array()) fail(path, "tensor '" + name + "': no shape array");
  if (sh->size() > static_cast<std::size_t>(kMaxDims))
    fail(path, "tensor '" + name + "' has " + std::to_string(sh->size()) +
                   " dimensions; heed tensors have at most " + std::to_string(kMaxDims));
  std::uint64_t numel = 1;
  for (const auto& d : *sh) {
    if (!d.is_number_unsigned())
      fail(path, "tensor '" + name + "': shape entries must be non-negative integers");
    const auto n = d.get<std::uint64_t>();
    if (n > (std::uint64_t{1} << 48) || __builtin_mul_overflow(numel, n, &numel) ||
        numel > (std::uint64_t{1} << 48))
      fail(path, "tensor '" + name + "': shape is absurdly large");
    e.shape.push_back(static_cast<std::int64_t>(n));
  }

  auto off = info.find("data_offsets");
  if (off == info.end() || !off->is_array() || off->size() != 2)
    fail(path, "tensor '" + name + "': data_offsets must be [begin, end]");
  e.begin = json_offset(path, name, (*off)[0]);
  e.end = json_offset(path, name, (*off)[1]);
  if (e.end < e.begin)
    fail(path, "tensor '" + name + "': data_offsets end " + std::to_string(e.end) +
                   " before begin " + std::to_string(e.begin));
  const std::uint64_t expected = numel * file_dtype_size(e.dtype);
  if (e.end - e.begin != expected)
    fail(path, "tensor '" + name + "': shape " + e.shape.str() + " of " +
                   dt->get<std::string>() + " needs " + std::to_string(expected) +
                   " bytes, data_offsets give " + std::to_string(e.end - e.begin));
  return e;
}

void convert(const Entry& e, const std::vector<char>& bytes, Tensor& t, const std::string& path) {
  const std::size_t n = static_cast<std::size_t>(t.numel());
  switch (e.dtype) {
    case FileDType::f16: {
      float* out = t.data<float>();
      for (std::size_t i = 0; i < n; ++i) {
        std::uint16_t h;
        std::memcpy(&h, bytes.data() + 2 * i, 2);
        out[i] = half_to_float(h);
      }
      break;
    }
    case FileDType::bf16: {
      float* out = t.data<float>();
      for (std::size_t i = 0; i < n; ++i) {
        std::uint16_t h;
        std::memcpy(&h, bytes.data() + 2 * i, 2);
        out[i] = std::bit_cast<float>(static_cast<std::uint32_t>(h) << 16);
      }
      break;
    }
    case FileDType::i8: {
      float* out = t.data<float>();
      for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::int8_t>(bytes[i]);
      break;
    }
    case FileDType::i32: {
      double* out = t.data<double>();
      for (std::size_t i = 0; i < n; ++i) {
        std::int32_t v;
        std::memcpy(&v, bytes.data() + 4 * i, 4);
        out[i] = v;
      }
      break;
    }
    case FileDType::i64: {
      double* out = t.data<double>();
      for (std::size_t i = 0; i < n; ++i) {
        std::int64_t v;
        std::memcpy(&v, bytes.data() + 8 * i, 8);
        if (v > (std::int64_t{1} << 53) || v < -(std::int64_t{1} << 53))
          fail(path, "tensor '" + e.name + "': I64 value " + std::to_string(v) +
                         " is not exactly representable as a float64");
        out[i] = static_cast<double>(v);
      }
      break;
    }
    case FileDType::f32:
    case FileDType::f64: break;  // read in place
  }
}

// The first element of t that is NaN or infinite as "NaN at element 17", or "" if all are
// finite. Integers (I32/I64 files) widen to f64 and are always finite.
template <typename T>
std::string first_non_finite(const T* p, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    if (!std::isfinite(p[i]))
      return std::string(std::isnan(p[i]) ? "NaN" : p[i] > 0 ? "+Inf" : "-Inf") +
             " at element " + std::to_string(i);
  return {};
}

void check_finite(const std::string& path, const std::string& name, const Tensor& t) {
  const auto n = static_cast<std::size_t>(t.numel());
  const std::string bad = t.dtype() == DType::f32 ? first_non_finite(t.data<float>(), n)
                                                  : first_non_finite(t.data<double>(), n);
  if (!bad.empty())
    fail(path, "tensor '" + name + "' holds " + bad +
                   " (weights must be finite: the training that wrote them diverged, or the "
                   "file is damaged)");
}

// The stored checksum, checked for form; "" when the file has none.
std::string stored_checksum(const std::string& path, const Metadata& metadata) {
  const auto it = metadata.find(kChecksumKey);
  if (it == metadata.end()) return {};
  const std::string& v = it->second;
  const std::string prefix = std::string(Checksum::kAlgorithm) + ":";
  const bool hex = v.size() == prefix.size() + 16 &&
                   v.find_first_not_of("0123456789abcdef", prefix.size()) == std::string::npos;
  if (v.compare(0, prefix.size(), prefix) != 0 || !hex)
    fail(path, std::string(kChecksumKey) + " is '" + v + "', expected " + prefix +
                   "<16 hex digits>");
  return v;
}

}  // namespace

bool SafeTensorsFile::contains(const std::string& name) const {
  for (const auto& [n, _] : tensors)
    if (n == name) return true;
  return false;
}

const Tensor& SafeTensorsFile::get(const std::string& name) const {
  for (const auto& [n, t] : tensors)
    if (n == name) return t;
  fail(path, "no tensor named '" + name + "'");
}

SafeTensorsFile load_safetensors(const std::string& path, const SafeTensorsLoadOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open for reading");
  in.seekg(0, std::ios::end);
  const auto file_size = static_cast<std::uint64_t>(in.tellg());
  in.seekg(0);
  if (file_size < 8) fail(path, "truncated: shorter than the 8-byte header length");

  unsigned char len_bytes[8];
  in.read(reinterpret_cast<char*>(len_bytes), 8);
  std::uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | len_bytes[i];
  if (header_len > kMaxHeaderBytes)
    fail(path, "header length " + std::to_string(header_len) + " is absurd (limit " +
                   std::to_string(kMaxHeaderBytes) + " bytes)");
  if (header_len > file_size - 8)
    fail(path, "truncated: header length " + std::to_string(header_len) + " but only " +
                   std::to_string(file_size - 8) + " bytes follow");

  std::string header(static_cast<std::size_t>(header_len), '\0');
  in.read(header.data(), static_cast<std::streamsize>(header_len));
  if (!in) fail(path, "cannot read the header");

  nlohmann::json root;
  try {
    root = nlohmann::json::parse(header);
  } catch (const nlohmann::json::exception& ex) {
    fail(path, std::string("header is not valid JSON: ") + ex.what());
  }
  if (!root.is_object()) fail(path, "header is not a JSON object");

  SafeTensorsFile out;
  out.path = path;
  std::vector<Entry> entries;
  for (const auto& [name, info] : root.items()) {
    if (name == "__metadata__") {
      if (!info.is_object()) fail(path, "__metadata__ is not an object");
      for (const auto& [k, v] : info.items()) {
        if (!v.is_string()) fail(path, "__metadata__ value of '" + k + "' is not a string");
        out.metadata[k] = v.get<std::string>();
      }
      continue;
    }
    entries.push_back(parse_entry(path, name, info, options.read_int8));
  }

  // The tensors must tile the buffer: sorted by offset, each starts where the last ended.
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  std::uint64_t cursor = 0;
  const Entry* prev = nullptr;
  for (const auto& e : entries) {
    if (e.begin < cursor)
      fail(path, "tensors '" + prev->name + "' and '" + e.name + "' overlap");
    if (e.begin > cursor)
      fail(path, "gap in the data buffer before tensor '" + e.name + "' (bytes " +
                     std::to_string(cursor) + ".." + std::to_string(e.begin) + " unused)");
    cursor = e.end;
    prev = &e;
  }
  const std::uint64_t buffer_size = file_size - 8 - header_len;
  if (cursor > buffer_size)
    fail(path, "truncated: tensor data needs " + std::to_string(cursor) +
                   " bytes, the file holds " + std::to_string(buffer_size));
  if (cursor < buffer_size)
    fail(path, std::to_string(buffer_size - cursor) +
                   " trailing bytes after the last tensor (data does not match the header)");

  const std::string expected_checksum = stored_checksum(path, out.metadata);
  out.metadata.erase(kChecksumKey);
  Checksum checksum;  // the entries tile the buffer in this order, so this hashes all of it
  ArenaScope heap(nullptr);
  std::vector<char> scratch;
  for (const auto& e : entries) {
    Tensor t = Tensor::empty(e.shape, memory_dtype(e.dtype));
    const auto bytes = static_cast<std::streamsize>(e.end - e.begin);
    in.seekg(static_cast<std::streamoff>(8 + header_len + e.begin));
    const bool in_place = e.dtype == FileDType::f32 || e.dtype == FileDType::f64;
    if (bytes > 0) {
      if (in_place) {
        in.read(static_cast<char*>(t.raw()), bytes);
      } else {
        scratch.resize(static_cast<std::size_t>(bytes));
        in.read(scratch.data(), bytes);
      }
      if (!in) fail(path, "cannot read the data of tensor '" + e.name + "'");
      if (in_place) {
        checksum.update(t.raw(), static_cast<std::size_t>(bytes));
      } else {
        checksum.update(scratch.data(), scratch.size());
        convert(e, scratch, t, path);
      }
    }
    out.tensors.emplace_back(e.name, std::move(t));
  }
  // The checksum first: a flipped bit that made a NaN is damage, not divergence.
  if (!expected_checksum.empty()) {
    const std::string actual = checksum.str();
    if (actual != expected_checksum)
      fail(path, "checksum mismatch: the data hashes to " + actual + " but " + kChecksumKey +
                     " says " + expected_checksum +
                     " (the file is damaged: a bad disk, copy or download)");
    out.checksum = expected_checksum;
  }
  if (options.require_finite)
    for (const auto& [name, t] : out.tensors) check_finite(path, name, t);
  return out;
}

void save_safetensors(const std::string& path, const NamedTensors& tensors,
                      const Metadata& metadata, const std::set<std::string>& as_int8) {
  // The data first (contiguous copies only of strided tensors; int8 bytes for the tensors
  // stored as I8), for the checksum the header carries.
  std::vector<Tensor> data;
  std::vector<std::vector<std::int8_t>> bytes8(tensors.size());
  Checksum checksum;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const auto& [name, t] = tensors[i];
    HEED_CHECK(t.defined(), "saving '", path, "': tensor '", name, "' is undefined");
    data.push_back(t.contiguous());
    if (as_int8.count(name)) {
      HEED_CHECK(t.dtype() == DType::f32, "saving '", path, "': tensor '", name,
                 "' is to be stored as I8 but is not f32");
      const float* v = data.back().data<float>();
      auto& b = bytes8[i];
      b.resize(static_cast<std::size_t>(t.numel()));
      for (std::size_t j = 0; j < b.size(); ++j) {
        HEED_CHECK(v[j] >= -128.0f && v[j] <= 127.0f && v[j] == std::nearbyint(v[j]), "saving '",
                   path, "': tensor '", name, "' is to be stored as I8 but element ", j, " is ",
                   v[j], ", not an integer in [-128, 127]");
        b[j] = static_cast<std::int8_t>(v[j]);
      }
      checksum.update(b.data(), b.size());
    } else {
      checksum.update(data.back().raw(),
                      static_cast<std::size_t>(data.back().numel()) * dtype_size(t.dtype()));
    }
  }
  for (const std::string& name : as_int8) {
    bool found = false;
    for (const auto& [n, t] : tensors) found = found || n == name;
    HEED_CHECK(found, "saving '", path, "': no tensor '", name, "' to store as I8");
  }
  Metadata meta_with_checksum = metadata;
  meta_with_checksum[kChecksumKey] = checksum.str();

  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  auto& meta = header["__metadata__"];
  meta = nlohmann::ordered_json::object();
  for (const auto& [k, v] : meta_with_checksum) meta[k] = v;
  std::set<std::string> names;
  std::uint64_t offset = 0;
  for (const auto& [name, t] : tensors) {
    HEED_CHECK(!name.empty(), "saving '", path, "': a tensor has an empty name");
    HEED_CHECK(name != "__metadata__", "saving '", path, "': '__metadata__' is reserved");
    HEED_CHECK(names.insert(name).second, "saving '", path, "': tensor name '", name,
               "' appears twice");
    const bool i8 = as_int8.count(name) > 0;
    const std::uint64_t bytes =
        static_cast<std::uint64_t>(t.numel()) * (i8 ? 1 : dtype_size(t.dtype()));
    auto& info = header[name];
    info["dtype"] = i8 ? std::string("I8") : std::string(dtype_name(t.dtype()));
    info["shape"] = nlohmann::ordered_json::array();
    for (auto d : t.shape()) info["shape"].push_back(d);
    info["data_offsets"] = {offset, offset + bytes};
    offset += bytes;
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');

  AtomicFile file(path);
  std::ostream& out = file.stream();
  unsigned char len_bytes[8];
  std::uint64_t n = text.size();
  for (int i = 0; i < 8; ++i) len_bytes[i] = static_cast<unsigned char>(n >> (8 * i));
  out.write(reinterpret_cast<const char*>(len_bytes), 8);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  for (std::size_t i = 0; i < data.size(); ++i) {
    const Tensor& c = data[i];
    if (as_int8.count(tensors[i].first))
      out.write(reinterpret_cast<const char*>(bytes8[i].data()),
                static_cast<std::streamsize>(bytes8[i].size()));
    else
      out.write(static_cast<const char*>(c.raw()),
                static_cast<std::streamsize>(c.numel()) *
                    static_cast<std::streamsize>(dtype_size(c.dtype())));
  }
  file.commit();
}

}  // namespace heed
