#include "heed/measure/record.h"

#include <cblas.h>
#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <ostream>

#include "heed/kernels/kernel_isa.h"

namespace heed::measure {

double round_to(double x, int digits) {
  const double f = std::pow(10.0, digits);
  return std::round(x * f) / f;
}

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return round_to(static_cast<double>(u.ru_maxrss) / 1024.0, 1);  // ru_maxrss is in KiB
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void emit(std::ostream& out, const Json& j) { out << j.dump() << std::endl; }

std::string cpu_capability() {
  const std::string& isa = kernels::kernel_isa();
  if (isa == "native") {
    const std::vector<std::string> f = kernels::kernel_isa_features("native");
    const bool avx512 = std::find(f.begin(), f.end(), "avx512f") != f.end();
    const bool avx2 = std::find(f.begin(), f.end(), "avx2") != f.end();
    return std::string(avx512 ? "AVX512" : avx2 ? "AVX2" : "DEFAULT") + " (-march=native)";
  }
  const std::string name = isa == "avx512" ? "AVX512" : "AVX2";
  const bool forced = kernels::kernel_isa_description().find("HEED_CPU=") != std::string::npos;
  return forced ? name + " (HEED_CPU=" + isa + ")" : name;
}

std::string blas_config() { return std::string(openblas_get_config()); }

}  // namespace heed::measure
