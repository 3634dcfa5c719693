#pragma once
// MatmulPrecision: the precision of a product's inputs. fp32, or bf16 (inputs rounded to
// bfloat16, products summed in fp32, C fp32), or int8 (decoding only: a frozen weight's
// products with int8 weights and activations quantised per row, integer sums, C fp32;
// packed_weight.h, int8_quantize.h; products without a frozen weight stay fp32). It is a value: callers pass it to the products
// that should use it (kernels::GemmOptions, the autograd ops, RunMode); nothing sets it for
// the process.
#include <span>
#include <string_view>

#include "heed/base/enum_names.h"

namespace heed::kernels {

enum class MatmulPrecision { f32, bf16, int8 };
inline constexpr EnumName<MatmulPrecision> kMatmulPrecisionNames[] = {
    {MatmulPrecision::f32, "fp32"}, {MatmulPrecision::bf16, "bf16"}, {MatmulPrecision::int8, "int8"}};
constexpr std::span<const EnumName<MatmulPrecision>> enum_names(MatmulPrecision) {
  return kMatmulPrecisionNames;
}

// "fp32" | "bf16" | "int8" (heed::Error naming the choices otherwise), and back.
inline MatmulPrecision parse_matmul_precision(std::string_view name) {
  return parse_enum<MatmulPrecision>(name, "precision");
}
inline std::string_view matmul_precision_name(MatmulPrecision precision) {
  return enum_name(precision);
}

}  // namespace heed::kernels
