#pragma once
// The hot kernels compiled once per kernel set (instruction-set target), and the table of
// function pointers through which the public kernel functions reach the set chosen at run
// time (kernel_isa.h says how it is chosen).
//
// attention.cpp, softmax.cpp, cross_entropy.cpp, gru_cell.cpp, lstm_cell.cpp, int8_rows.cpp,
// bf16_rows.cpp and kernel_table.cpp are compiled by CMakeLists.txt once per set, each time with that set's
// -march and HEED_KERNEL_ISA naming a namespace of its own: avx2 (x86-64-v3) and avx512
// (x86-64-v4) in a portable build, native alone under -DHEED_NATIVE=ON. One source, so one
// definition of every kernel's mathematics; the namespaces keep the copies apart. The public
// functions (softmax_rows<T> and the others, declared in the kernels' own headers) are
// defined once, in kernel_isa.cpp, and call through the active table: one indirect call
// per kernel call, never per element.
//
// A set's objects must export nothing but its own namespace: an inline function or
// template instance they emitted under a shared name could be the copy the linker keeps for
// every caller, and run AVX-512 instructions on a CPU without them. CMakeLists.txt checks
// the objects' symbols after compiling them (kernel_symbols_check.cmake).
#include <cstdint>
#include <string_view>

#include "heed/kernels/attention.h"
#include "heed/kernels/gemm.h"

namespace heed::kernels {

// Every kernel of a set for one scalar type. The signatures are those of the public
// declarations (attention.h, softmax.h, cross_entropy.h, gru_cell.h, lstm_cell.h).
template <typename T>
struct KernelOps {
  void (*attention_forward)(const AttentionStep<T>&, T*, T*);
  void (*attention_backward)(const AttentionStep<T>&, const T*, const AttentionStepGrad<T>&);
  void (*softmax_rows)(const T*, T*, std::int64_t, std::int64_t, const std::uint8_t*,
                       std::int64_t);
  void (*log_softmax_rows)(const T*, T*, std::int64_t, std::int64_t, const std::uint8_t*,
                           std::int64_t);
  void (*argmax_log_prob_rows)(const T*, std::int64_t, std::int64_t, std::int32_t*, T*);
  void (*log_sum_exp_rows)(const T*, std::int64_t, std::int64_t, T*);
  void (*softmax_rows_backward)(const T*, const T*, T*, std::int64_t, std::int64_t);
  void (*log_softmax_rows_backward)(const T*, const T*, T*, std::int64_t, std::int64_t);
  void (*cross_entropy_forward)(const T*, std::int64_t, std::int64_t, const std::int32_t*,
                                std::int32_t, double, T*, double*);
  void (*cross_entropy_backward)(const T*, const T*, std::int64_t, std::int64_t,
                                 const std::int32_t*, std::int32_t, double, T, T*);
  void (*gru_step_forward)(const GemmOptions&, std::int64_t, std::int64_t, const T*,
                           std::int64_t, const T*, std::int64_t, const T*, const T*,
                           const std::uint8_t*, T*, std::int64_t, T*);
  void (*gru_gates_forward)(std::int64_t, std::int64_t, const T*, std::int64_t, const T*,
                            std::int64_t, const T*, std::int64_t, const T*,
                            const std::uint8_t*, T*, std::int64_t, T*);
  void (*gru_step_backward)(const GemmOptions&, std::int64_t, std::int64_t, const T*,
                            std::int64_t, const T*, const std::uint8_t*, const T*, T*,
                            std::int64_t, T*, std::int64_t, T*);
  void (*gru_gates_backward)(std::int64_t, std::int64_t, const T*, std::int64_t,
                             const std::uint8_t*, const T*, T*, std::int64_t, T*,
                             std::int64_t, T*, std::int64_t);
  void (*lstm_step_forward)(const GemmOptions&, std::int64_t, std::int64_t, const T*,
                            std::int64_t, const T*, std::int64_t, const T*, std::int64_t,
                            const T*, const T*, const std::uint8_t*, T*, std::int64_t, T*,
                            std::int64_t, T*);
  void (*lstm_step_backward)(const GemmOptions&, std::int64_t, std::int64_t, const T*,
                             std::int64_t, const T*, const std::uint8_t*, const T*, T*,
                             std::int64_t, T*, std::int64_t, T*, std::int64_t);
};

// The int8 products' per-call row work (int8_quantize.h), fp32 only.
struct Int8RowOps {
  void (*quantize_activation_rows)(const float*, std::int64_t, std::int64_t, std::int64_t,
                                   std::uint8_t*, float*, std::int32_t*);
  void (*dequantize_int8_rows)(const std::int32_t*, std::int64_t, std::int64_t, const float*,
                               const std::int32_t*, const float*, const std::int32_t*,
                               const float*, float, float*, std::int64_t);
};

// The bf16 products' rounding of each operand (onednn.h).
struct Bf16RowOps {
  void (*round_to_bf16)(const float*, std::int64_t, std::int64_t, std::int64_t, std::uint16_t*);
};

struct KernelTable {
  const char* name;             // "avx2", "avx512" or "native"
  const char* const* features;  // the CPU features its compiler targeted (cpu_has_feature
  int feature_count;            // names), all of which the CPU must have to run it
  KernelOps<float> f32;
  KernelOps<double> f64;
  Int8RowOps int8;
  Bf16RowOps bf16;
};

// The table of a set this build holds ("avx2", "avx512", "native"), or null: for the tests
// that run the sets side by side. Whether the CPU can run it is kernel_isa_features' answer.
const KernelTable* find_kernel_table(std::string_view name);

}  // namespace heed::kernels

// Inside a kernel set's own translation units: the set's namespace, and in it the
// declarations of its kernels (defined by the sources listed above) and of its table.
#ifdef HEED_KERNEL_ISA
namespace heed::kernels::HEED_KERNEL_ISA {

template <typename T>
void attention_forward(const AttentionStep<T>& s, T* context, T* alpha);
template <typename T>
void attention_backward(const AttentionStep<T>& s, const T* alpha, const AttentionStepGrad<T>& g);

template <typename T>
void softmax_rows(const T* x, T* y, std::int64_t rows, std::int64_t cols, const std::uint8_t* mask,
                  std::int64_t mask_rows);
template <typename T>
void log_softmax_rows(const T* x, T* y, std::int64_t rows, std::int64_t cols,
                      const std::uint8_t* mask, std::int64_t mask_rows);
template <typename T>
void argmax_log_prob_rows(const T* x, std::int64_t rows, std::int64_t cols, std::int32_t* index,
                          T* log_prob);
template <typename T>
void log_sum_exp_rows(const T* x, std::int64_t rows, std::int64_t cols, T* lse);
template <typename T>
void softmax_rows_backward(const T* y, const T* dy, T* dx, std::int64_t rows, std::int64_t cols);
template <typename T>
void log_softmax_rows_backward(const T* y, const T* dy, T* dx, std::int64_t rows,
                               std::int64_t cols);

template <typename T>
void cross_entropy_forward(const T* logits, std::int64_t rows, std::int64_t cols,
                           const std::int32_t* targets, std::int32_t ignore_index,
                           double label_smoothing, T* lse, double* row_loss);
template <typename T>
void cross_entropy_backward(const T* logits, const T* lse, std::int64_t rows, std::int64_t cols,
                            const std::int32_t* targets, std::int32_t ignore_index,
                            double label_smoothing, T scale, T* dlogits);

template <typename T>
void gru_step_forward(const GemmOptions& options, std::int64_t rows, std::int64_t H, const T* gi,
                      std::int64_t ld_gi, const T* h, std::int64_t ld_h, const T* w_hh,
                      const T* b_hh, const std::uint8_t* mask, T* h_out, std::int64_t ld_out,
                      T* save);
template <typename T>
void gru_gates_forward(std::int64_t rows, std::int64_t H, const T* gi, std::int64_t ld_gi,
                       const T* gh, std::int64_t ld_gh, const T* h, std::int64_t ld_h,
                       const T* b_hh, const std::uint8_t* mask, T* h_out, std::int64_t ld_out,
                       T* save);
template <typename T>
void gru_step_backward(const GemmOptions& options, std::int64_t rows, std::int64_t H, const T* h,
                       std::int64_t ld_h, const T* w_hh, const std::uint8_t* mask, const T* save,
                       T* dh, std::int64_t ld_dh, T* dgi, std::int64_t ld_dgi, T* dgh);
template <typename T>
void gru_gates_backward(std::int64_t rows, std::int64_t H, const T* h, std::int64_t ld_h,
                        const std::uint8_t* mask, const T* save, T* dh, std::int64_t ld_dh,
                        T* dgi, std::int64_t ld_dgi, T* dgh, std::int64_t ld_dgh);

template <typename T>
void lstm_step_forward(const GemmOptions& options, std::int64_t rows, std::int64_t H, const T* gi,
                       std::int64_t ld_gi, const T* h, std::int64_t ld_h, const T* c,
                       std::int64_t ld_c, const T* w_hh, const T* b_hh, const std::uint8_t* mask,
                       T* h_out, std::int64_t ld_h_out, T* c_out, std::int64_t ld_c_out, T* save);
template <typename T>
void lstm_step_backward(const GemmOptions& options, std::int64_t rows, std::int64_t H, const T* c,
                        std::int64_t ld_c, const T* w_hh, const std::uint8_t* mask, const T* save,
                        T* dh, std::int64_t ld_dh, T* dc, std::int64_t ld_dc, T* dgates,
                        std::int64_t ld_dgates);

extern const KernelTable table;

void quantize_activation_rows(const float* a, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                              std::uint8_t* q, float* scales, std::int32_t* zero_points);
void dequantize_int8_rows(const std::int32_t* S, std::int64_t M, std::int64_t N,
                          const float* a_scales, const std::int32_t* zero_points,
                          const float* w_scales, const std::int32_t* w_sums, const float* bias,
                          float beta, float* C, std::int64_t ldc);

void round_to_bf16(const float* src, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                   std::uint16_t* dst);

}  // namespace heed::kernels::HEED_KERNEL_ISA
#endif
