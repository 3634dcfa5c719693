#pragma once
// Which compiled set of heed's own hot kernels runs (kernel_table.h lists them: attention,
// softmax, cross-entropy, the GRU and LSTM cells), chosen once per process from the CPU and
// the HEED_CPU environment variable.
//
// A portable build (the default) compiles the whole program for x86-64-v3 (AVX2, FMA, BMI,
// F16C: Intel Haswell, AMD Zen or later) and the hot kernels twice more: "avx2" (x86-64-v3)
// and "avx512" (x86-64-v4: AVX-512 F, BW, CD, DQ, VL). HEED_CPU unset, empty or "auto" runs
// the best set the CPU has; HEED_CPU=avx2 forces the AVX2 set (the tests run once so);
// HEED_CPU=avx512 on a CPU without AVX-512 is an error, as is any other value. A build with
// -DHEED_NATIVE=ON compiles everything for the build machine (-march=native) and holds one
// set, "native"; there HEED_CPU accepts "auto" and "native" only. oneDNN and OpenBLAS pick
// their own kernels from the CPU.
//
// Every binary that uses the kernels makes its choice at start-up, before main, and a CPU
// that cannot run the build (no AVX2 or FMA for a portable build), or a HEED_CPU it cannot
// honour, ends the process there with exit code 1 and one line on stderr that says why,
// rather than an illegal instruction later.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace heed::kernels {

// The active set: "avx2", "avx512" or "native".
const std::string& kernel_isa();
// The active set and why, e.g. "avx512 (the best this CPU runs)", "avx2 (HEED_CPU=avx2)".
const std::string& kernel_isa_description();
// The sets this build holds, from the most portable to the fastest.
std::vector<std::string> kernel_isas_built();
// The CPU features a set of this build needs (names as cpu_has_feature takes them).
std::vector<std::string> kernel_isa_features(std::string_view isa);
// Whether this CPU (and its operating system) supports a feature named as GCC's
// __builtin_cpu_supports names it ("avx2", "fma", "avx512f", ...); false for a name it
// does not know.
bool cpu_has_feature(std::string_view name);

// The choice, apart from the process (for the tests): the set to run for the value of
// HEED_CPU (null, empty or "auto": the last of `built` that cpu_runs accepts). Throws
// heed::Error for an unknown value (the message lists the choices), for a set this build
// does not hold, for a set the CPU cannot run, and when the CPU runs none of them.
std::string choose_kernel_isa(const char* heed_cpu, const std::vector<std::string>& built,
                              const std::function<bool(const std::string&)>& cpu_runs);

}  // namespace heed::kernels
