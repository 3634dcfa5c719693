// The choice of kernel set (kernel_isa.h) and the public kernel functions, which call the
// chosen set's table (kernel_table.h).
//
// CMakeLists.txt compiles this file for plain x86-64 (no AVX): the start-up check below
// must be able to say what is missing on a CPU that cannot run the rest of the program.
// For the same reason the check's path is C-style code (fixed buffers, no containers):
// a library template shared with the rest of the program could be the AVX2 copy.
#include "heed/kernels/kernel_isa.h"

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "heed/base/error.h"
#include "heed/kernels/attention.h"
#include "heed/kernels/bf16_products.h"
#include "heed/kernels/cross_entropy.h"
#include "heed/kernels/gru_cell.h"
#include "heed/kernels/int8_quantize.h"
#include "heed/kernels/kernel_table.h"
#include "heed/kernels/lstm_cell.h"
#include "heed/kernels/softmax.h"

namespace heed::kernels {

#ifdef HEED_NATIVE_KERNELS
namespace native {
extern const KernelTable table;
}
#else
namespace avx2 {
extern const KernelTable table;
}
namespace avx512 {
extern const KernelTable table;
}
#endif

namespace {

#ifdef HEED_NATIVE_KERNELS
const KernelTable* const kBuilt[] = {&native::table};
#else
const KernelTable* const kBuilt[] = {&avx2::table, &avx512::table};  // portable to fastest
#endif
constexpr int kBuiltCount = static_cast<int>(sizeof kBuilt / sizeof kBuilt[0]);
// Every set name any build knows (a name of another build is "not in this build", not
// "unknown").
const char* const kKnown[] = {"avx2", "avx512", "native"};

bool has_feature(const char* name) {
  __builtin_cpu_init();
#define HEED_FEATURE(f) \
  if (std::strcmp(name, f) == 0) return __builtin_cpu_supports(f) != 0;
  HEED_FEATURE("sse2")
  HEED_FEATURE("avx")
  HEED_FEATURE("avx2")
  HEED_FEATURE("fma")
  HEED_FEATURE("bmi")
  HEED_FEATURE("bmi2")
#ifndef __clang__  // clang's __builtin_cpu_supports does not know these (kernel_table.cpp)
  HEED_FEATURE("f16c")
  HEED_FEATURE("lzcnt")
  HEED_FEATURE("movbe")
#endif
  HEED_FEATURE("avx512f")
  HEED_FEATURE("avx512bw")
  HEED_FEATURE("avx512cd")
  HEED_FEATURE("avx512dq")
  HEED_FEATURE("avx512vl")
  HEED_FEATURE("avx512bf16")
#undef HEED_FEATURE
  return false;
}

// Appends to a fixed buffer, truncating.
struct Text {
  char buf[512] = {};
  std::size_t len = 0;
  void add(const char* s) {
    for (; *s && len + 1 < sizeof buf; ++s) buf[len++] = *s;
    buf[len] = '\0';
  }
};

// Whether set i can run; when not, `why` gets what is missing (may stay empty).
using RunsFn = bool (*)(int i, Text& why, const void* ctx);

void add_choices(Text& t, const char* const* names, int n) {
  t.add("; the choices are auto");
  for (int i = 0; i < n; ++i) {
    t.add(", ");
    t.add(names[i]);
  }
}

// The index of the set to run for HEED_CPU = value, or -1 with the reason in `error`.
int choose(const char* value, const char* const* names, int n, RunsFn runs, const void* ctx,
           Text& error) {
  const bool automatic = !value || !*value || std::strcmp(value, "auto") == 0;
  if (automatic) {
    for (int i = n - 1; i >= 0; --i) {
      Text why;
      if (runs(i, why, ctx)) return i;
      if (i == 0) {  // the most portable set: this CPU cannot run the build at all
        error.add("this CPU cannot run this build of heed: its kernels (and, in a portable "
                  "build, all of its code) need ");
        error.add(n == 1 && std::strcmp(names[0], "native") == 0
                      ? "the CPU of the machine that built it (-DHEED_NATIVE=ON)"
                      : "an x86-64 CPU with AVX2, FMA, BMI1/BMI2 and F16C (x86-64-v3: Intel "
                        "Haswell, AMD Zen or later)");
        if (why.len) {
          error.add("; this one lacks ");
          error.add(why.buf);
        }
      }
    }
    return -1;
  }
  for (int i = 0; i < n; ++i) {
    if (std::strcmp(value, names[i]) != 0) continue;
    Text why;
    if (runs(i, why, ctx)) return i;
    error.add("HEED_CPU=");
    error.add(value);
    error.add(": this CPU cannot run the ");
    error.add(value);
    error.add(" kernels");
    if (why.len) {
      error.add(" (it lacks ");
      error.add(why.buf);
      error.add(")");
    }
    add_choices(error, names, n);
    return -1;
  }
  bool known = false;
  for (const char* k : kKnown) known = known || std::strcmp(value, k) == 0;
  error.add("HEED_CPU=");
  error.add(value);
  error.add(known ? ": this build does not hold that kernel set" : ": unknown kernel set");
  add_choices(error, names, n);
  return -1;
}

bool table_runs(int i, Text& why, const void*) {
  const KernelTable& t = *kBuilt[i];
  bool ok = true;
  for (int f = 0; f < t.feature_count; ++f) {
    if (has_feature(t.features[f])) continue;
    if (!ok) why.add(", ");
    why.add(t.features[f]);
    ok = false;
  }
  return ok;
}

struct Active {
  const KernelTable* table;
  bool forced;
};

// Chosen once; a choice that cannot be made ends the process (kernel_isa.h).
Active choose_or_exit() {
  const char* names[kBuiltCount];
  for (int i = 0; i < kBuiltCount; ++i) names[i] = kBuilt[i]->name;
  const char* value = std::getenv("HEED_CPU");
  Text error;
  const int i = choose(value, names, kBuiltCount, table_runs, nullptr, error);
  if (i < 0) {
    std::fputs("heed: ", stderr);
    std::fputs(error.buf, stderr);
    std::fputs("\n", stderr);
    std::fflush(stderr);
    std::_Exit(1);
  }
  const bool forced = value && *value && std::strcmp(value, "auto") != 0;
  return {kBuilt[i], forced};
}

const Active& active() {
  static const Active a = choose_or_exit();
  return a;
}

// At start-up, before the static initialisers of the rest of the program (compiled for
// x86-64-v3) and before main: refuse a CPU that cannot run the build, or a bad HEED_CPU.
__attribute__((constructor(101))) void choose_kernels_at_startup() { (void)active(); }

template <typename T>
const KernelOps<T>& ops() {
  if constexpr (std::is_same_v<T, float>)
    return active().table->f32;
  else
    return active().table->f64;
}

}  // namespace

const KernelTable* find_kernel_table(std::string_view name) {
  for (const KernelTable* t : kBuilt)
    if (name == t->name) return t;
  return nullptr;
}

const std::string& kernel_isa() {
  static const std::string name = active().table->name;
  return name;
}

const std::string& kernel_isa_description() {
  static const std::string text = [] {
    const Active& a = active();
    std::string s = a.table->name;
    if (a.forced) return s + " (HEED_CPU=" + std::getenv("HEED_CPU") + ")";
    if (kBuiltCount == 1) return s + " (-march=native build)";
    return s + " (the best this CPU runs)";
  }();
  return text;
}

std::vector<std::string> kernel_isas_built() {
  std::vector<std::string> names;
  for (const KernelTable* t : kBuilt) names.emplace_back(t->name);
  return names;
}

std::vector<std::string> kernel_isa_features(std::string_view isa) {
  const KernelTable* t = find_kernel_table(isa);
  HEED_CHECK(t, "kernel_isa_features: no kernel set '", isa, "' in this build");
  return {t->features, t->features + t->feature_count};
}

bool cpu_has_feature(std::string_view name) {
  const std::string s(name);
  return has_feature(s.c_str());
}

std::string choose_kernel_isa(const char* heed_cpu, const std::vector<std::string>& built,
                              const std::function<bool(const std::string&)>& cpu_runs) {
  std::vector<const char*> names;
  for (const std::string& b : built) names.push_back(b.c_str());
  struct Ctx {
    const std::vector<std::string>* built;
    const std::function<bool(const std::string&)>* runs;
  } ctx{&built, &cpu_runs};
  const RunsFn runs = [](int i, Text&, const void* c) {
    const Ctx& x = *static_cast<const Ctx*>(c);
    return (*x.runs)((*x.built)[static_cast<std::size_t>(i)]);
  };
  Text error;
  const int i = choose(heed_cpu, names.data(), static_cast<int>(names.size()), runs, &ctx, error);
  if (i < 0) throw Error(error.buf);
  return built[static_cast<std::size_t>(i)];
}

// ------------------------------------------------------------ the public kernel functions

template <typename T>
void attention_forward(const AttentionStep<T>& s, T* context, T* alpha) {
  ops<T>().attention_forward(s, context, alpha);
}
template <typename T>
void attention_backward(const AttentionStep<T>& s, const T* alpha, const AttentionStepGrad<T>& g) {
  ops<T>().attention_backward(s, alpha, g);
}

template <typename T>
void softmax_rows(const T* x, T* y, std::int64_t rows, std::int64_t cols, const std::uint8_t* mask,
                  std::int64_t mask_rows) {
  ops<T>().softmax_rows(x, y, rows, cols, mask, mask_rows);
}
template <typename T>
void log_softmax_rows(const T* x, T* y, std::int64_t rows, std::int64_t cols,
                      const std::uint8_t* mask, std::int64_t mask_rows) {
  ops<T>().log_softmax_rows(x, y, rows, cols, mask, mask_rows);
}
template <typename T>
void argmax_log_prob_rows(const T* x, std::int64_t rows, std::int64_t cols, std::int32_t* index,
                          T* log_prob) {
  ops<T>().argmax_log_prob_rows(x, rows, cols, index, log_prob);
}
template <typename T>
void log_sum_exp_rows(const T* x, std::int64_t rows, std::int64_t cols, T* lse) {
  ops<T>().log_sum_exp_rows(x, rows, cols, lse);
}
template <typename T>
void softmax_rows_backward(const T* y, const T* dy, T* dx, std::int64_t rows, std::int64_t cols) {
  ops<T>().softmax_rows_backward(y, dy, dx, rows, cols);
}
template <typename T>
void log_softmax_rows_backward(const T* y, const T* dy, T* dx, std::int64_t rows,
                               std::int64_t cols) {
  ops<T>().log_softmax_rows_backward(y, dy, dx, rows, cols);
}

template <typename T>
void cross_entropy_forward(const T* logits, std::int64_t rows, std::int64_t cols,
                           const std::int32_t* targets, std::int32_t ignore_index,
                           double label_smoothing, T* lse, double* row_loss) {
  ops<T>().cross_entropy_forward(logits, rows, cols, targets, ignore_index, label_smoothing, lse,
                                 row_loss);
}
template <typename T>
void cross_entropy_backward(const T* logits, const T* lse, std::int64_t rows, std::int64_t cols,
                            const std::int32_t* targets, std::int32_t ignore_index,
                            double label_smoothing, T scale, T* dlogits) {
  ops<T>().cross_entropy_backward(logits, lse, rows, cols, targets, ignore_index, label_smoothing,
                                  scale, dlogits);
}

template <typename T>
void gru_step_forward(const GemmOptions& options, std::int64_t rows, std::int64_t H, const T* gi,
                      std::int64_t ld_gi, const T* h, std::int64_t ld_h, const T* w_hh,
                      const T* b_hh, const std::uint8_t* mask, T* h_out, std::int64_t ld_out,
                      T* save) {
  ops<T>().gru_step_forward(options, rows, H, gi, ld_gi, h, ld_h, w_hh, b_hh, mask, h_out, ld_out,
                            save);
}
template <typename T>
void gru_gates_forward(std::int64_t rows, std::int64_t H, const T* gi, std::int64_t ld_gi,
                       const T* gh, std::int64_t ld_gh, const T* h, std::int64_t ld_h,
                       const T* b_hh, const std::uint8_t* mask, T* h_out, std::int64_t ld_out,
                       T* save) {
  ops<T>().gru_gates_forward(rows, H, gi, ld_gi, gh, ld_gh, h, ld_h, b_hh, mask, h_out, ld_out,
                             save);
}
template <typename T>
void gru_step_backward(const GemmOptions& options, std::int64_t rows, std::int64_t H, const T* h,
                       std::int64_t ld_h, const T* w_hh, const std::uint8_t* mask, const T* save,
                       T* dh, std::int64_t ld_dh, T* dgi, std::int64_t ld_dgi, T* dgh) {
  ops<T>().gru_step_backward(options, rows, H, h, ld_h, w_hh, mask, save, dh, ld_dh, dgi, ld_dgi,
                             dgh);
}
template <typename T>
void gru_gates_backward(std::int64_t rows, std::int64_t H, const T* h, std::int64_t ld_h,
                        const std::uint8_t* mask, const T* save, T* dh, std::int64_t ld_dh,
                        T* dgi, std::int64_t ld_dgi, T* dgh, std::int64_t ld_dgh) {
  ops<T>().gru_gates_backward(rows, H, h, ld_h, mask, save, dh, ld_dh, dgi, ld_dgi, dgh, ld_dgh);
}

template <typename T>
void lstm_step_forward(const GemmOptions& options, std::int64_t rows, std::int64_t H, const T* gi,
                       std::int64_t ld_gi, const T* h, std::int64_t ld_h, const T* c,
                       std::int64_t ld_c, const T* w_hh, const T* b_hh, const std::uint8_t* mask,
                       T* h_out, std::int64_t ld_h_out, T* c_out, std::int64_t ld_c_out, T* save) {
  ops<T>().lstm_step_forward(options, rows, H, gi, ld_gi, h, ld_h, c, ld_c, w_hh, b_hh, mask, h_out,
                             ld_h_out, c_out, ld_c_out, save);
}
template <typename T>
void lstm_step_backward(const GemmOptions& options, std::int64_t rows, std::int64_t H, const T* c,
                        std::int64_t ld_c, const T* w_hh, const std::uint8_t* mask, const T* save,
                        T* dh, std::int64_t ld_dh, T* dc, std::int64_t ld_dc, T* dgates,
                        std::int64_t ld_dgates) {
  ops<T>().lstm_step_backward(options, rows, H, c, ld_c, w_hh, mask, save, dh, ld_dh, dc, ld_dc,
                              dgates, ld_dgates);
}

void quantize_activation_rows(const float* a, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                              std::uint8_t* q, float* scales, std::int32_t* zero_points) {
  active().table->int8.quantize_activation_rows(a, rows, cols, ld, q, scales, zero_points);
}
void dequantize_int8_rows(const std::int32_t* S, std::int64_t M, std::int64_t N,
                          const float* a_scales, const std::int32_t* zero_points,
                          const float* w_scales, const std::int32_t* w_sums, const float* bias,
                          float beta, float* C, std::int64_t ldc) {
  active().table->int8.dequantize_int8_rows(S, M, N, a_scales, zero_points, w_scales, w_sums, bias,
                                            beta, C, ldc);
}

void round_to_bf16(const float* src, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                   std::uint16_t* dst) {
  active().table->bf16.round_to_bf16(src, rows, cols, ld, dst);
}

#define HEED_INSTANTIATE(T)                                                                        \
  template void attention_forward<T>(const AttentionStep<T>&, T*, T*);                             \
  template void attention_backward<T>(const AttentionStep<T>&, const T*,                           \
                                      const AttentionStepGrad<T>&);                                \
  template void softmax_rows<T>(const T*, T*, std::int64_t, std::int64_t, const std::uint8_t*,     \
                                std::int64_t);                                                     \
  template void log_softmax_rows<T>(const T*, T*, std::int64_t, std::int64_t, const std::uint8_t*, \
                                    std::int64_t);                                                 \
  template void argmax_log_prob_rows<T>(const T*, std::int64_t, std::int64_t, std::int32_t*, T*);  \
  template void log_sum_exp_rows<T>(const T*, std::int64_t, std::int64_t, T*);                     \
  template void softmax_rows_backward<T>(const T*, const T*, T*, std::int64_t, std::int64_t);      \
  template void log_softmax_rows_backward<T>(const T*, const T*, T*, std::int64_t, std::int64_t);  \
  template void cross_entropy_forward<T>(const T*, std::int64_t, std::int64_t,                     \
                                         const std::int32_t*, std::int32_t, double, T*, double*);  \
  template void cross_entropy_backward<T>(const T*, const T*, std::int64_t, std::int64_t,          \
                                          const std::int32_t*, std::int32_t, double, T, T*);       \
  template void gru_step_forward<T>(const GemmOptions&, std::int64_t, std::int64_t, const T*,      \
                                    std::int64_t, const T*, std::int64_t, const T*, const T*,      \
                                    const std::uint8_t*, T*, std::int64_t, T*);                    \
  template void gru_gates_forward<T>(std::int64_t, std::int64_t, const T*, std::int64_t, const T*, \
                                     std::int64_t, const T*, std::int64_t, const T*,               \
                                     const std::uint8_t*, T*, std::int64_t, T*);                   \
  template void gru_step_backward<T>(const GemmOptions&, std::int64_t, std::int64_t, const T*,     \
                                     std::int64_t, const T*, const std::uint8_t*, const T*, T*,    \
                                     std::int64_t, T*, std::int64_t, T*);                          \
  template void gru_gates_backward<T>(std::int64_t, std::int64_t, const T*, std::int64_t,          \
                                      const std::uint8_t*, const T*, T*, std::int64_t, T*,         \
                                      std::int64_t, T*, std::int64_t);                             \
  template void lstm_step_forward<T>(const GemmOptions&, std::int64_t, std::int64_t, const T*,     \
                                     std::int64_t, const T*, std::int64_t, const T*, std::int64_t, \
                                     const T*, const T*, const std::uint8_t*, T*, std::int64_t,    \
                                     T*, std::int64_t, T*);                                        \
  template void lstm_step_backward<T>(const GemmOptions&, std::int64_t, std::int64_t, const T*,    \
                                      std::int64_t, const T*, const std::uint8_t*, const T*, T*,   \
                                      std::int64_t, T*, std::int64_t, T*, std::int64_t);
HEED_INSTANTIATE(float)
HEED_INSTANTIATE(double)
#undef HEED_INSTANTIATE

}  // namespace heed::kernels
