#include "heed/tensor/safetensors.h"

#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/golden.h"

namespace heed {
namespace {

namespace fs = std::filesystem;

class SafetensorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("heed_safetensors_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string le64(std::uint64_t n) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[static_cast<std::size_t>(i)] = static_cast<char>(n >> (8 * i));
  return s;
}

// A file from a header text and a data buffer, with a correct length prefix.
std::string make_file(const std::string& header, const std::string& data) {
  return le64(header.size()) + header + data;
}

template <typename T>
std::string raw(std::initializer_list<T> values) {
  std::string s;
  for (T v : values) s.append(reinterpret_cast<const char*>(&v), sizeof(T));
  return s;
}

// Expects load_safetensors(path) to throw heed::Error whose message names the file and
// contains `problem`.
void expect_refused(const std::string& path, const std::string& problem) {
  try {
    load_safetensors(path);
    ADD_FAILURE() << "loaded a bad file; expected: " << problem;
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path), std::string::npos) << what;
    EXPECT_NE(what.find(problem), std::string::npos) << "'" << what << "' lacks '" << problem << "'";
  }
}

TEST_F(SafetensorsTest, RoundTripKeepsValuesOrderDtypesAndMetadata) {
  Tensor a = Tensor::from({2, 3}, {1, 2, 3, 4, 5, 6}, DType::f32);
  Tensor b = Tensor::from({3}, {1.0 / 3, -2.5e-300, 7}, DType::f64);
  Tensor c = Tensor::from({2, 3}, {1, 2, 3, 4, 5, 6}, DType::f64).transpose(0, 1);  // strided
  Tensor empty = Tensor::zeros({0, 4}, DType::f32);
  Tensor d = Tensor::from({1, 2, 1, 2}, {9, 8, 7, 6}, DType::f32);
  save_safetensors(path("w.safetensors"),
                   {{"z.first", a}, {"b", b}, {"c", c}, {"empty", empty}, {"d4", d}},
                   {{"format", "pt"}, {"note", "héllo"}});
  SafeTensorsFile f = load_safetensors(path("w.safetensors"));
  ASSERT_EQ(f.tensors.size(), 5u);
  EXPECT_EQ(f.tensors[0].first, "z.first");
  EXPECT_EQ(f.tensors[1].first, "b");
  EXPECT_EQ(f.tensors[2].first, "c");
  EXPECT_EQ(f.get("z.first").dtype(), DType::f32);
  EXPECT_EQ(f.get("b").dtype(), DType::f64);
  EXPECT_EQ(f.get("z.first").to_vector(), a.to_vector());
  EXPECT_EQ(f.get("b").to_vector(), b.to_vector());
  EXPECT_EQ(f.get("c").shape(), Shape({3, 2}));
  EXPECT_EQ(f.get("c").to_vector(), (std::vector<double>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(f.get("empty").shape(), Shape({0, 4}));
  EXPECT_EQ(f.get("d4").shape(), Shape({1, 2, 1, 2}));
  EXPECT_EQ(f.metadata.at("format"), "pt");
  EXPECT_EQ(f.metadata.at("note"), "héllo");
  EXPECT_TRUE(f.contains("b"));
  EXPECT_FALSE(f.contains("nope"));
  try {
    f.get("nope");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("nope"), std::string::npos);
  }
}

TEST_F(SafetensorsTest, WrittenLayoutFollowsTheSpecification) {
  save_safetensors(path("w.safetensors"),
                   {{"a", Tensor::from({2}, {1, 2}, DType::f32)},
                    {"b", Tensor::from({1}, {3}, DType::f64)}},
                   {{"k", "v"}});
  const std::string bytes = read_bytes(path("w.safetensors"));
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
  EXPECT_EQ(n % 8, 0u);
  ASSERT_EQ(bytes.size(), 8 + n + 8 + 8);
  auto header = nlohmann::json::parse(bytes.substr(8, n));
  EXPECT_EQ(header["__metadata__"]["k"], "v");
  EXPECT_EQ(header["a"]["dtype"], "F32");
  EXPECT_EQ(header["a"]["shape"], nlohmann::json::array({2}));
  EXPECT_EQ(header["a"]["data_offsets"], nlohmann::json::array({0, 8}));
  EXPECT_EQ(header["b"]["dtype"], "F64");
  EXPECT_EQ(header["b"]["data_offsets"], nlohmann::json::array({8, 16}));
  float a1;
  std::memcpy(&a1, bytes.data() + 8 + n + 4, 4);
  EXPECT_EQ(a1, 2.0f);
  EXPECT_FALSE(fs::exists(path("w.safetensors") + ".tmp." + std::to_string(::getpid())));
}

TEST_F(SafetensorsTest, EmptyFileOfNoTensorsRoundTrips) {
  save_safetensors(path("e.safetensors"), {});
  EXPECT_TRUE(load_safetensors(path("e.safetensors")).tensors.empty());
}

TEST_F(SafetensorsTest, ReadsFilesWrittenByThePythonGenerator) {
  SafeTensorsFile g = testing::load_golden("gru");
  EXPECT_EQ(g.metadata.at("case"), "gru");
  EXPECT_EQ(g.get("param.weight_ih_l0").shape(), Shape({12, 3}));
  EXPECT_EQ(g.get("param.weight_ih_l0").dtype(), DType::f64);
  EXPECT_EQ(testing::golden_group(g, "param.").size(), 4u);
}

TEST_F(SafetensorsTest, ConvertsHalfBfloatAndIntegers) {
  // F16: 1.0 = 0x3c00, -2.0 = 0xc000, smallest subnormal 0x0001 = 2^-24, inf 0x7c00.
  // BF16: 1.0 = 0x3f80, -0.5 = 0xbf00.
  const std::string data = raw<std::uint16_t>({0x3c00, 0xc000, 0x0001, 0x7c00}) +
                           raw<std::uint16_t>({0x3f80, 0xbf00}) + raw<std::int32_t>({-7, 1 << 30}) +
                           raw<std::int64_t>({-3, std::int64_t{1} << 40});
  const std::string header =
      R"({"h":{"dtype":"F16","shape":[4],"data_offsets":[0,8]},)"
      R"("bf":{"dtype":"BF16","shape":[2],"data_offsets":[8,12]},)"
      R"("i":{"dtype":"I32","shape":[2],"data_offsets":[12,20]},)"
      R"("l":{"dtype":"I64","shape":[2],"data_offsets":[20,36]}})";
  write_bytes(path("c.safetensors"), make_file(header, data));
  // The F16 infinity is refused by default (weights must be finite), read when allowed.
  expect_refused(path("c.safetensors"), "tensor 'h' holds +Inf at element 3");
  SafeTensorsFile f = load_safetensors(path("c.safetensors"), {.require_finite = false});
  const auto h = f.get("h").to_vector();
  EXPECT_EQ(f.get("h").dtype(), DType::f32);
  EXPECT_EQ(h[0], 1.0);
  EXPECT_EQ(h[1], -2.0);
  EXPECT_EQ(h[2], std::ldexp(1.0, -24));
  EXPECT_TRUE(std::isinf(h[3]));
  EXPECT_EQ(f.get("bf").to_vector(), (std::vector<double>{1.0, -0.5}));
  EXPECT_EQ(f.get("i").dtype(), DType::f64);
  EXPECT_EQ(f.get("i").to_vector(), (std::vector<double>{-7, 1 << 30}));
  EXPECT_EQ(f.get("l").to_vector(), (std::vector<double>{-3, std::ldexp(1.0, 40)}));
  // Tensor order follows the data offsets, not the JSON key order.
  EXPECT_EQ(f.tensors[0].first, "h");
  EXPECT_EQ(f.tensors[3].first, "l");
}

TEST_F(SafetensorsTest, RefusesI64NotExactlyRepresentable) {
  const std::string header = R"({"l":{"dtype":"I64","shape":[1],"data_offsets":[0,8]}})";
  write_bytes(path("l.safetensors"),
              make_file(header, raw<std::int64_t>({(std::int64_t{1} << 60) + 1})));
  expect_refused(path("l.safetensors"), "not exactly representable");
}

struct BadCase {
  const char* label;
  std::string header;
  std::string data;
  const char* problem;
};

TEST_F(SafetensorsTest, RefusesEveryKindOfCorruptHeader) {
  const std::string eight(8, '\0');
  const std::vector<BadCase> cases = {
      {"bad json", R"({"a":{"dtype":"F32",)", eight, "not valid JSON"},
      {"not an object", R"([1,2])", "", "not a JSON object"},
      {"entry not object", R"({"a":3})", "", "not an object"},
      {"no dtype", R"({"a":{"shape":[2],"data_offsets":[0,8]}})", eight, "no dtype"},
      {"unknown dtype", R"({"a":{"dtype":"F31","shape":[2],"data_offsets":[0,8]}})", eight,
       "unknown dtype 'F31'"},
      {"unsupported dtype", R"({"a":{"dtype":"BOOL","shape":[8],"data_offsets":[0,8]}})", eight,
       "does not read"},
      {"no shape", R"({"a":{"dtype":"F32","data_offsets":[0,8]}})", eight, "no shape"},
      {"negative dim", R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", eight,
       "non-negative"},
      {"fractional dim", R"({"a":{"dtype":"F32","shape":[2.5],"data_offsets":[0,8]}})", eight,
       "non-negative"},
      {"too many dims", R"({"a":{"dtype":"F32","shape":[1,1,1,1,2],"data_offsets":[0,8]}})",
       eight, "at most 4"},
      {"huge shape",
       R"({"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,8]}})", eight,
       "absurdly large"},
      {"no offsets", R"({"a":{"dtype":"F32","shape":[2]}})", eight, "data_offsets"},
      {"one offset", R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0]}})", eight,
       "data_offsets"},
      {"negative offset", R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[-8,0]}})", eight,
       "non-negative"},
      {"end before begin", R"({"a":{"dtype":"F32","shape":[0],"data_offsets":[8,0]}})", eight,
       "before begin"},
      {"shape vs bytes", R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", eight,
       "needs 12 bytes"},
      {"offsets past the end", R"({"a":{"dtype":"F64","shape":[2],"data_offsets":[0,16]}})",
       eight, "truncated"},
      {"overlap",
       R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
       eight, "overlap"},
      {"gap", R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", eight, "gap"},
      {"trailing bytes", R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", eight,
       "trailing bytes"},
      {"metadata not object", R"({"__metadata__":[1]})", "", "__metadata__"},
      {"metadata value not string", R"({"__metadata__":{"k":1}})", "", "not a string"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.label);
    write_bytes(path("bad.safetensors"), make_file(c.header, c.data));
    expect_refused(path("bad.safetensors"), c.problem);
  }
}

TEST_F(SafetensorsTest, RefusesBadLengthPrefixes) {
  write_bytes(path("short.safetensors"), "abc");
  expect_refused(path("short.safetensors"), "shorter than the 8-byte header length");
  write_bytes(path("absurd.safetensors"), le64(std::uint64_t{1} << 40) + "{}");
  expect_refused(path("absurd.safetensors"), "absurd");
  write_bytes(path("long.safetensors"), le64(64) + "{}      ");
  expect_refused(path("long.safetensors"), "truncated");
  expect_refused(path("missing.safetensors"), "cannot open");
}

TEST_F(SafetensorsTest, EveryTruncationOfAValidFileIsRefused) {
  save_safetensors(path("w.safetensors"), {{"a", Tensor::from({2, 2}, {1, 2, 3, 4})},
                                          {"b", Tensor::from({3}, {5, 6, 7}, DType::f64)}},
                   {{"k", "v"}});
  const std::string bytes = read_bytes(path("w.safetensors"));
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    SCOPED_TRACE(n);
    write_bytes(path("t.safetensors"), bytes.substr(0, n));
    EXPECT_THROW(load_safetensors(path("t.safetensors")), Error);
  }
}

TEST_F(SafetensorsTest, ByteFlipsNeverCrash) {
  save_safetensors(path("w.safetensors"), {{"a", Tensor::from({2, 2}, {1, 2, 3, 4})},
                                          {"b", Tensor::from({3}, {5, 6, 7}, DType::f64)}});
  const std::string bytes = read_bytes(path("w.safetensors"));
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
  // Every byte of the length prefix and the header, replaced by a few values: each result
  // must either load or be refused with heed::Error.
  for (std::size_t i = 0; i < 8 + n; ++i) {
    for (unsigned char v : {0x00, 0x01, 0x22, 0x39, 0x7b, 0xff}) {
      std::string b = bytes;
      b[i] = static_cast<char>(v);
      write_bytes(path("f.safetensors"), b);
      try {
        load_safetensors(path("f.safetensors"));
      } catch (const Error&) {
      }
    }
  }
}

TEST_F(SafetensorsTest, SaveRefusesBadNamesAndLeavesNoFile) {
  const Tensor t = Tensor::zeros({2});
  EXPECT_THROW(save_safetensors(path("d.safetensors"), {{"a", t}, {"a", t}}), Error);
  EXPECT_THROW(save_safetensors(path("d.safetensors"), {{"__metadata__", t}}), Error);
  EXPECT_THROW(save_safetensors(path("d.safetensors"), {{"", t}}), Error);
  EXPECT_THROW(save_safetensors(path("d.safetensors"), {{"u", Tensor()}}), Error);
  EXPECT_FALSE(fs::exists(path("d.safetensors")));
  EXPECT_THROW(save_safetensors(path("no/such/dir/x.safetensors"), {{"a", t}}), Error);
}

TEST_F(SafetensorsTest, SaveReplacesAnExistingFile) {
  save_safetensors(path("w.safetensors"), {{"a", Tensor::from({1}, {1})}});
  save_safetensors(path("w.safetensors"), {{"b", Tensor::from({1}, {2})}});
  SafeTensorsFile f = load_safetensors(path("w.safetensors"));
  ASSERT_EQ(f.tensors.size(), 1u);
  EXPECT_EQ(f.tensors[0].first, "b");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(SafetensorsTest, NonFiniteWeightsAreRefusedNamingTensorAndElement) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  Tensor w = Tensor::zeros({4, 5}, DType::f32);
  w.data<float>()[17] = nan;
  save_safetensors(path("w.safetensors"), {{"encoder.embedding", Tensor::zeros({3})},
                                          {"decoder.weight_hh", w}});
  expect_refused(path("w.safetensors"), "tensor 'decoder.weight_hh' holds NaN at element 17");
  Tensor d = Tensor::zeros({3}, DType::f64);
  d.data<double>()[0] = -inf;
  save_safetensors(path("d.safetensors"), {{"optimizer.state.0.exp_avg", d}});
  expect_refused(path("d.safetensors"), "tensor 'optimizer.state.0.exp_avg' holds -Inf at element 0");
  // Allowed on request (tests of the format itself).
  const SafeTensorsFile f = load_safetensors(path("w.safetensors"), {.require_finite = false});
  EXPECT_TRUE(std::isnan(f.get("decoder.weight_hh").to_vector()[17]));
}

TEST_F(SafetensorsTest, WriterAddsAChecksumThatTheReaderVerifies) {
  save_safetensors(path("w.safetensors"),
                   {{"a", Tensor::from({2, 2}, {1, 2, 3, 4})},
                    {"b", Tensor::from({2, 3}, {1, 2, 3, 4, 5, 6}, DType::f64).transpose(0, 1)}},
                   {{"k", "v"}, {std::string(kChecksumKey), "stale value from another file"}});
  const std::string bytes = read_bytes(path("w.safetensors"));
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
  const auto header = nlohmann::json::parse(bytes.substr(8, n));
  const std::string stored = header["__metadata__"][kChecksumKey];
  EXPECT_EQ(stored.rfind("xxh3-64:", 0), 0u) << stored;
  EXPECT_EQ(stored.size(), 8u + 16u);
  // Verified, reported, and kept out of the metadata the caller sees.
  SafeTensorsFile f = load_safetensors(path("w.safetensors"));
  EXPECT_EQ(f.checksum, stored);
  EXPECT_EQ(f.metadata, (Metadata{{"k", "v"}}));
  // Saving what was loaded (metadata included) writes the same bytes.
  save_safetensors(path("again.safetensors"), f.tensors, f.metadata);
  EXPECT_EQ(read_bytes(path("again.safetensors")), bytes);

  // Every single flipped bit in the data is detected.
  for (std::size_t i = 8 + n; i < bytes.size(); ++i) {
    for (int bit : {0, 7}) {
      std::string b = bytes;
      b[i] = static_cast<char>(b[i] ^ (1 << bit));
      write_bytes(path("flipped.safetensors"), b);
      SCOPED_TRACE(i);
      expect_refused(path("flipped.safetensors"), "checksum mismatch");
    }
  }
  // A checksum that is not of the expected form.
  std::string b = bytes;
  b.replace(b.find("xxh3-64:"), 4, "crc3");
  write_bytes(path("form.safetensors"), b);
  expect_refused(path("form.safetensors"), "heed.checksum is 'crc3-64:");
}

TEST_F(SafetensorsTest, FilesWithoutAChecksumStillLoad) {
  // As PyTorch (and heed before checksums) write them.
  const std::string header =
      R"({"__metadata__":{"format":"pt"},"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  write_bytes(path("pt.safetensors"), make_file(header, raw<float>({1.5f, -2.0f})));
  const SafeTensorsFile f = load_safetensors(path("pt.safetensors"));
  EXPECT_TRUE(f.checksum.empty());
  EXPECT_EQ(f.get("w").to_vector(), (std::vector<double>{1.5, -2.0}));
  EXPECT_TRUE(testing::load_golden("gru").checksum.empty());  // the committed goldens
}

}  // namespace
}  // namespace heed
