#pragma once
// What every `heed bench` measurement shares (bench/protocol.h, measure/ram_bench.h): its JSON
// line, the clock, rounding as the reference prints, medians, the process's peak memory and
// the kernel set in use.
#include <chrono>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace heed::measure {

using Json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

// Python's round(x, digits) closely enough for printing.
double round_to(double x, int digits);
double seconds_since(Clock::time_point t0);
// The process's peak resident memory so far in MiB (getrusage ru_maxrss).
double peak_rss_mb();
// The upper median, as the reference's ms_per_step_median; 0 for none.
double median(std::vector<double> v);
// One line of JSON, flushed.
void emit(std::ostream& out, const Json& j);

// The instruction set of heed's own kernels as chosen at start-up (kernels/kernel_isa.h), not
// as compiled: "AVX512" or "AVX2" in a portable build ("AVX2 (HEED_CPU=avx2)" when forced),
// "AVX512 (-march=native)" or "AVX2 (-march=native)" in a native one.
std::string cpu_capability();
// OpenBLAS's description of itself (openblas_get_config).
std::string blas_config();

}  // namespace heed::measure
