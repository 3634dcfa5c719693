// One kernel set's table (kernel_table.h): compiled once per set, like the kernels it lists.
#include "heed/kernels/kernel_table.h"

#define HEED_STRINGIFY2(x) #x
#define HEED_STRINGIFY(x) HEED_STRINGIFY2(x)

namespace heed::kernels::HEED_KERNEL_ISA {
namespace {

// What this set's compiler was allowed to use, by the names kernel_isa.cpp's
// cpu_has_feature knows: the CPU must have all of them to run the set.
constexpr const char* kFeatures[] = {
#ifdef __AVX__
    "avx",
#endif
#ifdef __AVX2__
    "avx2",
#endif
#ifdef __FMA__
    "fma",
#endif
#ifdef __BMI__
    "bmi",
#endif
#ifdef __BMI2__
    "bmi2",
#endif
// clang's __builtin_cpu_supports does not know these three (kernel_isa.cpp's has_feature).
#if defined(__F16C__) && !defined(__clang__)
    "f16c",
#endif
#if defined(__LZCNT__) && !defined(__clang__)
    "lzcnt",
#endif
#if defined(__MOVBE__) && !defined(__clang__)
    "movbe",
#endif
#ifdef __AVX512F__
    "avx512f",
#endif
#ifdef __AVX512BW__
    "avx512bw",
#endif
#ifdef __AVX512CD__
    "avx512cd",
#endif
#ifdef __AVX512DQ__
    "avx512dq",
#endif
#ifdef __AVX512VL__
    "avx512vl",
#endif
#ifdef __AVX512BF16__
    "avx512bf16",
#endif
    "sse2",  // never empty
};

template <typename T>
constexpr KernelOps<T> ops() {
  return {&attention_forward<T>,
          &attention_backward<T>,
          &softmax_rows<T>,
          &log_softmax_rows<T>,
          &argmax_log_prob_rows<T>,
          &log_sum_exp_rows<T>,
          &softmax_rows_backward<T>,
          &log_softmax_rows_backward<T>,
          &cross_entropy_forward<T>,
          &cross_entropy_backward<T>,
          &gru_step_forward<T>,
          &gru_gates_forward<T>,
          &gru_step_backward<T>,
          &gru_gates_backward<T>,
          &lstm_step_forward<T>,
          &lstm_step_backward<T>};
}

}  // namespace

constinit const KernelTable table{HEED_STRINGIFY(HEED_KERNEL_ISA), kFeatures,
                                  static_cast<int>(sizeof kFeatures / sizeof kFeatures[0]),
                                  ops<float>(), ops<double>(),
                                  {&quantize_activation_rows, &dequantize_int8_rows},
                                  {&round_to_bf16}};

}  // namespace heed::kernels::HEED_KERNEL_ISA
