// The choice of kernel set (kernels/kernel_isa.h): HEED_CPU honoured, bad values refused
// with the choices listed, the AVX-512 set taken only where the CPU has it; the start-up
// refusal of the process itself; and every set this CPU runs computing what the active one
// computes (on an AVX-512 machine: the AVX2 and AVX-512 builds of the same kernels).
#include "heed/kernels/kernel_isa.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"
#include "heed/base/error.h"
#include "heed/base/random.h"
#include "heed/kernels/attention.h"
#include "heed/kernels/gemm.h"
#include "heed/kernels/kernel_table.h"
#include "heed/kernels/softmax.h"

namespace heed::kernels {
namespace {

const std::vector<std::string> kPortable = {"avx2", "avx512"};

auto runs_only(std::vector<std::string> names) {
  return [names](const std::string& isa) {
    for (const std::string& n : names)
      if (n == isa) return true;
    return false;
  };
}

std::string error_of(const char* value, const std::vector<std::string>& built,
                     const std::function<bool(const std::string&)>& runs) {
  try {
    const std::string chosen = choose_kernel_isa(value, built, runs);
    return "no error; chose " + chosen;
  } catch (const Error& e) {
    return e.what();
  }
}

TEST(KernelIsa, AutoTakesTheBestSetTheCpuRuns) {
  for (const char* automatic : {static_cast<const char*>(nullptr), "", "auto"}) {
    EXPECT_EQ(choose_kernel_isa(automatic, kPortable, runs_only({"avx2", "avx512"})), "avx512");
    EXPECT_EQ(choose_kernel_isa(automatic, kPortable, runs_only({"avx2"})), "avx2");
  }
  EXPECT_EQ(choose_kernel_isa(nullptr, {"native"}, runs_only({"native"})), "native");
}

TEST(KernelIsa, HeedCpuForcesASet) {
  EXPECT_EQ(choose_kernel_isa("avx2", kPortable, runs_only({"avx2", "avx512"})), "avx2");
  EXPECT_EQ(choose_kernel_isa("avx512", kPortable, runs_only({"avx2", "avx512"})), "avx512");
}

TEST(KernelIsa, Avx512OnACpuWithoutItIsRefused) {
  const std::string e = error_of("avx512", kPortable, runs_only({"avx2"}));
  EXPECT_NE(e.find("HEED_CPU=avx512: this CPU cannot run the avx512 kernels"), std::string::npos)
      << e;
  EXPECT_NE(e.find("the choices are auto, avx2, avx512"), std::string::npos) << e;
}

TEST(KernelIsa, UnknownValuesAreRefusedWithTheChoices) {
  for (const char* bad : {"avx", "AVX2", "sse", "avx2 ", "x86-64-v4"}) {
    const std::string e = error_of(bad, kPortable, runs_only({"avx2", "avx512"}));
    EXPECT_NE(e.find(std::string("HEED_CPU=") + bad + ": unknown kernel set"), std::string::npos)
        << e;
    EXPECT_NE(e.find("the choices are auto, avx2, avx512"), std::string::npos) << e;
  }
  // A set of the other kind of build is named as such.
  const std::string e = error_of("avx512", {"native"}, runs_only({"native"}));
  EXPECT_NE(e.find("this build does not hold that kernel set; the choices are auto, native"),
            std::string::npos)
      << e;
}

TEST(KernelIsa, ACpuThatRunsNoSetIsRefused) {
  const std::string e = error_of(nullptr, kPortable, runs_only({}));
  EXPECT_NE(e.find("this CPU cannot run this build of heed"), std::string::npos) << e;
  EXPECT_NE(e.find("AVX2, FMA"), std::string::npos) << e;
  const std::string n = error_of(nullptr, {"native"}, runs_only({}));
  EXPECT_NE(n.find("-DHEED_NATIVE=ON"), std::string::npos) << n;
}

// The sets this build holds, their features, and which one this process chose.
TEST(KernelIsa, ThisProcessChoseWhatTheCpuAndHeedCpuSay) {
  const std::vector<std::string> built = kernel_isas_built();
  ASSERT_FALSE(built.empty());
  if (built.size() == 1) {
    EXPECT_EQ(built[0], "native");
  } else {
    EXPECT_EQ(built, kPortable);
    const std::vector<std::string> f2 = kernel_isa_features("avx2");
    const std::vector<std::string> f5 = kernel_isa_features("avx512");
    for (const char* f : {"avx2", "fma", "bmi2"})
      EXPECT_NE(std::find(f2.begin(), f2.end(), f), f2.end()) << f;
    for (const char* f : {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"}) {
      EXPECT_NE(std::find(f5.begin(), f5.end(), f), f5.end()) << f;
      EXPECT_EQ(std::find(f2.begin(), f2.end(), f), f2.end()) << f;
    }
  }
  auto cpu_runs = [](const std::string& isa) {
    for (const std::string& f : kernel_isa_features(isa))
      if (!cpu_has_feature(f)) return false;
    return true;
  };
  const char* env = std::getenv("HEED_CPU");
  EXPECT_EQ(kernel_isa(), choose_kernel_isa(env, built, cpu_runs));
  if (env && std::string(env) == "avx2") {
    EXPECT_EQ(kernel_isa(), "avx2");
  }
  // The AVX-512 set exactly where the CPU has AVX-512 (and nothing forces another).
  if (built.size() == 2 && (!env || !*env || std::string(env) == "auto")) {
    const bool avx512 = cpu_has_feature("avx512f") && cpu_has_feature("avx512bw") &&
                        cpu_has_feature("avx512cd") && cpu_has_feature("avx512dq") &&
                        cpu_has_feature("avx512vl");
    EXPECT_EQ(kernel_isa() == "avx512", avx512) << kernel_isa_description();
  }
  EXPECT_EQ(kernel_isa_description().rfind(kernel_isa(), 0), 0u) << kernel_isa_description();
  EXPECT_TRUE(cpu_has_feature("sse2"));
  EXPECT_FALSE(cpu_has_feature("no-such-feature"));
  RecordProperty("kernel_isa", kernel_isa_description());
}

// The process itself, started with a HEED_CPU it cannot honour: refused before main, exit
// code 1, one line that says why.
TEST(KernelIsa, AProcessRefusesABadHeedCpuAtStartUp) {
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  if (self.find("/ld-linux") != std::string::npos)
    GTEST_SKIP() << "started through the dynamic loader: /proc/self/exe is " << self;
  const testing::CommandResult bad =
      testing::run_shell("HEED_CPU=bogus '" + self + "' --gtest_list_tests");
  EXPECT_EQ(bad.exit_code, 1) << bad.output;
  EXPECT_EQ(bad.output.rfind("heed: HEED_CPU=bogus: unknown kernel set; the choices are auto, ", 0),
            0u)
      << bad.output;
  const bool built_avx512 = find_kernel_table("avx512") != nullptr;
  const bool cpu_avx512 = built_avx512 && [] {
    for (const std::string& f : kernel_isa_features("avx512"))
      if (!cpu_has_feature(f)) return false;
    return true;
  }();
  const testing::CommandResult forced =
      testing::run_shell("HEED_CPU=avx512 '" + self + "' --gtest_list_tests");
  if (cpu_avx512) {
    EXPECT_EQ(forced.exit_code, 0) << forced.output;
  } else {
    EXPECT_EQ(forced.exit_code, 1) << forced.output;
    EXPECT_NE(forced.output.find(built_avx512 ? "heed: HEED_CPU=avx512: this CPU cannot run the "
                                                "avx512 kernels (it lacks avx512f"
                                              : "heed: HEED_CPU=avx512: this build does not hold"),
              std::string::npos)
        << forced.output;
  }
}

// ------------------------------------------------- every runnable set against the active one

std::vector<const KernelTable*> runnable_tables() {
  std::vector<const KernelTable*> tables;
  for (const std::string& isa : kernel_isas_built()) {
    bool ok = true;
    for (const std::string& f : kernel_isa_features(isa)) ok = ok && cpu_has_feature(f);
    if (ok) tables.push_back(find_kernel_table(isa));
  }
  return tables;
}

std::vector<float> random_floats(std::size_t n, std::uint64_t seed, float scale = 3.0f) {
  Rng rng(seed);
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(rng.normal()) * scale;
  return v;
}

void expect_close(const std::vector<float>& a, const std::vector<float>& b, const char* what,
                  const std::string& isa) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    ASSERT_NEAR(a[i], b[i], 2e-6 * (1 + std::abs(b[i]))) << what << " [" << i << "], " << isa;
}

// The int8 products' row kernels (int8_quantize.h) in every set the CPU runs, against the
// formulas written out here in scalar code: the same bytes and bits, not just close ones. Rows
// longer than a vector, odd tails, a row holding a NaN, one all zero, one all negative.
TEST(KernelIsa, EverySetComputesTheInt8RowsBitForBit) {
  const std::int64_t rows = 6, cols = 77, ld = 80;
  std::vector<float> a = random_floats(rows * ld, 21);
  for (std::int64_t j = 0; j < cols; ++j) {
    a[static_cast<std::size_t>(ld + j)] = 0.0f;
    a[static_cast<std::size_t>(2 * ld + j)] = -std::abs(a[static_cast<std::size_t>(2 * ld + j)]);
  }
  a[static_cast<std::size_t>(3 * ld + 40)] = std::nanf("");
  a[static_cast<std::size_t>(4 * ld + 3)] = 1e-30f;
  // The scalar reference.
  std::vector<std::uint8_t> q_ref(rows * cols);
  std::vector<float> s_ref(rows);
  std::vector<std::int32_t> z_ref(rows);
  auto round_clamp = [](float x) {
    float r = std::nearbyint(x);
    r = r > 0.0f ? r : 0.0f;
    return r < 127.0f ? r : 127.0f;
  };
  for (std::int64_t i = 0; i < rows; ++i) {
    float lo = 0, hi = 0;
    for (std::int64_t j = 0; j < cols; ++j) {
      const float v = a[static_cast<std::size_t>(i * ld + j)];
      lo = v < lo ? v : lo;
      hi = v > hi ? v : hi;
    }
    const float sc = (hi - lo) / 127.0f, inv = sc > 0 ? 1.0f / sc : 0.0f;
    const float z = round_clamp(-lo * inv);
    s_ref[i] = sc;
    z_ref[i] = static_cast<std::int32_t>(z);
    for (std::int64_t j = 0; j < cols; ++j)
      q_ref[static_cast<std::size_t>(i * cols + j)] = static_cast<std::uint8_t>(
          round_clamp(std::fma(a[static_cast<std::size_t>(i * ld + j)], inv, z)));
  }
  EXPECT_EQ(z_ref[1], 0);
  EXPECT_EQ(z_ref[2], 127);
  EXPECT_EQ(q_ref[static_cast<std::size_t>(3 * cols + 40)], 0);  // the NaN
  const std::int64_t N = 45;
  std::vector<std::int32_t> S(rows * N), w_sums(N);
  std::vector<float> w_scales(N), bias = random_floats(N, 22), C0 = random_floats(rows * (N + 3), 23);
  Rng rng(24);
  for (auto& v : S) v = static_cast<std::int32_t>(rng.uniform() * 200000) - 100000;
  for (std::int64_t j = 0; j < N; ++j) {
    w_sums[j] = static_cast<std::int32_t>(rng.uniform() * 2000) - 1000;
    w_scales[j] = static_cast<float>(rng.uniform()) * 0.01f;
  }
  auto dequantized = [&](bool with_bias, float beta) {
    std::vector<float> C = C0;
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < N; ++j) {
        const float sum = static_cast<float>(S[i * N + j] - z_ref[i] * w_sums[j]);
        const float scale = s_ref[i] * w_scales[j];
        float& c = C[static_cast<std::size_t>(i * (N + 3) + j)];
        if (with_bias)
          c = std::fma(scale, sum, bias[j]) + (beta != 0 ? c : 0.0f);
        else
          c = beta != 0 ? std::fma(scale, sum, c) : scale * sum;
      }
    return C;
  };
  for (const KernelTable* t : runnable_tables()) {
    std::vector<std::uint8_t> q(rows * cols);
    std::vector<float> sc(rows);
    std::vector<std::int32_t> z(rows);
    t->int8.quantize_activation_rows(a.data(), rows, cols, ld, q.data(), sc.data(), z.data());
    EXPECT_EQ(q, q_ref) << t->name;
    EXPECT_EQ(sc, s_ref) << t->name;
    EXPECT_EQ(z, z_ref) << t->name;
    for (const bool with_bias : {false, true})
      for (const float beta : {0.0f, 1.0f}) {
        std::vector<float> C = C0;
        t->int8.dequantize_int8_rows(S.data(), rows, N, s_ref.data(), z_ref.data(), w_scales.data(),
                                     w_sums.data(), with_bias ? bias.data() : nullptr, beta,
                                     C.data(), N + 3);
        EXPECT_EQ(C, dequantized(with_bias, beta)) << t->name << " bias " << with_bias << " beta " << beta;
      }
  }
}

// The bf16 products' rounding (bf16_rows.cpp) in every set the CPU runs, against round to
// nearest even written out here another way (the dropped half compared with 0x8000): the same
// bits for halfway cases both ways, signed zeros, subnormals, the largest floats (which round
// to infinity), infinities and NaNs (quiet, sign kept); odd tails, and a block large enough
// for the rows to be shared between 2 threads.
TEST(KernelIsa, EverySetRoundsToBf16BitForBit) {
  const std::int64_t rows = 240, cols = 301, ld = 310;
  std::vector<float> a = random_floats(rows * ld, 31);
  const std::uint32_t special[] = {0x00000000u, 0x80000000u, 0x00000001u, 0x807fffffu,
                                   0x3f808000u, 0x3f818000u, 0x3f80ffffu, 0xbf817fffu,
                                   0x7f7fffffu, 0xff7fffffu, 0x7f800000u, 0xff800000u,
                                   0x7fc00000u, 0xffc00001u, 0x7f800001u, 0xff812345u,
                                   0x7fff8000u, 0x3f7f8000u};
  for (std::size_t k = 0; k < sizeof special / sizeof special[0]; ++k)
    a[k * 7] = std::bit_cast<float>(special[k]);
  std::vector<std::uint16_t> ref(static_cast<std::size_t>(rows * cols));
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) {
      const std::uint32_t u = std::bit_cast<std::uint32_t>(a[static_cast<std::size_t>(i * ld + j)]);
      std::uint32_t hi = u >> 16;
      const std::uint32_t dropped = u & 0xffffu;
      if (std::isnan(std::bit_cast<float>(u)))
        hi |= 0x40u;
      else if (dropped > 0x8000u || (dropped == 0x8000u && (hi & 1u)))
        ++hi;
      ref[static_cast<std::size_t>(i * cols + j)] = static_cast<std::uint16_t>(hi);
    }
  EXPECT_EQ(ref[7 * 4], 0x3f80u);   // 1 + 2^-8: halfway, even kept
  EXPECT_EQ(ref[7 * 5], 0x3f82u);   // halfway above an odd one: up
  EXPECT_EQ(ref[7 * 8], 0x7f80u);   // the largest float: infinity
  EXPECT_EQ(ref[7 * 14], 0x7fc0u);  // a signalling NaN: quiet
  ScopedNumThreads two(2);
  for (const KernelTable* t : runnable_tables())
    for (const std::int64_t r : {std::int64_t{1}, std::int64_t{3}, rows}) {
      std::vector<std::uint16_t> out(static_cast<std::size_t>(r * cols), 0xdeadu);
      t->bf16.round_to_bf16(a.data(), r, cols, ld, out.data());
      EXPECT_TRUE(std::equal(out.begin(), out.end(), ref.begin())) << t->name << ", " << r << " rows";
    }
}

TEST(KernelIsa, EverySetTheCpuRunsAgreesWithTheActiveOne) {
  const KernelTable* active = find_kernel_table(kernel_isa());
  ASSERT_NE(active, nullptr);
  const std::vector<const KernelTable*> tables = runnable_tables();
  ASSERT_FALSE(tables.empty());
  const std::int64_t rows = 5, cols = 203, H = 37;
  const std::vector<float> x = random_floats(rows * cols, 1);
  std::vector<std::uint8_t> mask(cols);
  for (std::int64_t c = 0; c < cols; ++c) mask[c] = c % 7 != 3;
  std::vector<std::int32_t> targets = {0, 5, 202, -100, 17};
  // GRU gates: gi (3H), gh (3H), h (H) per row.
  const std::vector<float> gi = random_floats(rows * 3 * H, 2), gh = random_floats(rows * 3 * H, 3),
                           h = random_floats(rows * H, 4, 1.0f), b = random_floats(3 * H, 5);
  // Additive attention over m positions.
  const std::int64_t m = 9, kd = 19, dv = 23;
  const std::vector<float> K = random_floats(rows * m * kd, 6), Hv = random_floats(rows * m * dv, 7),
                           wq = random_floats(rows * kd, 8), v = random_floats(kd, 9, 1.0f);
  const std::vector<std::int64_t> lengths = {9, 1, 4, 9, 6};

  auto run = [&](const KernelTable& t) {
    std::vector<std::vector<float>> out;
    std::vector<float> y(rows * cols);
    t.f32.softmax_rows(x.data(), y.data(), rows, cols, mask.data(), 1);
    out.push_back(y);
    t.f32.log_softmax_rows(x.data(), y.data(), rows, cols, nullptr, 1);
    out.push_back(y);
    std::vector<float> lse(rows);
    std::vector<double> loss(rows);
    t.f32.cross_entropy_forward(x.data(), rows, cols, targets.data(), -100, 0.1, lse.data(),
                                loss.data());
    out.push_back(lse);
    out.emplace_back(loss.begin(), loss.end());
    std::vector<float> d(rows * cols, 0.5f);
    t.f32.cross_entropy_backward(x.data(), lse.data(), rows, cols, targets.data(), -100, 0.1,
                                 0.25f, d.data());
    out.push_back(d);
    std::vector<float> ho(rows * H), save(rows * 4 * H);
    t.f32.gru_gates_forward(rows, H, gi.data(), 3 * H, gh.data(), 3 * H, h.data(), H, b.data(),
                            nullptr, ho.data(), H, save.data());
    out.push_back(ho);
    out.push_back(save);
    AttentionStep<float> s;
    s.kind = ScoreKind::tanh;
    s.batch = rows;
    s.m = m;
    s.key_dim = kd;
    s.value_dim = dv;
    s.lengths = lengths.data();
    s.K = K.data();
    s.H = Hv.data();
    s.wq = wq.data();
    s.v = v.data();
    std::vector<float> context(rows * dv), alpha(rows * m);
    t.f32.attention_forward(s, context.data(), alpha.data());
    out.push_back(context);
    out.push_back(alpha);
    return out;
  };
  const char* names[] = {"softmax",   "log_softmax", "lse",   "ce_loss", "ce_grad",
                         "gru_h",     "gru_save",    "context", "alpha"};
  const auto reference = run(*active);
  for (const KernelTable* t : tables) {
    const auto got = run(*t);
    for (std::size_t i = 0; i < got.size(); ++i) expect_close(got[i], reference[i], names[i], t->name);
  }
  // The public functions go to the active set.
  std::vector<float> y1(rows * cols), y2(rows * cols);
  softmax_rows(x.data(), y1.data(), rows, cols, mask.data(), 1);
  active->f32.softmax_rows(x.data(), y2.data(), rows, cols, mask.data(), 1);
  EXPECT_EQ(y1, y2);
}

}  // namespace
}  // namespace heed::kernels
