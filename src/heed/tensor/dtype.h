#pragma once
// Element types. float32 is the working type; float64 exists so that every kernel,
// op and module can be gradient-checked in double precision (kernels are templates).
#include <cstddef>
#include <span>
#include <string_view>
#include <type_traits>

#include "heed/base/enum_names.h"
#include "heed/base/error.h"

namespace heed {

enum class DType { f32, f64 };

inline std::size_t dtype_size(DType t) { return t == DType::f32 ? 4 : 8; }
// The safetensors name ("F32", "F64").
inline std::string_view dtype_name(DType t) { return t == DType::f32 ? "F32" : "F64"; }
// The config's names (training.dtype: f32 | f64).
inline constexpr EnumName<DType> kDTypeNames[] = {{DType::f32, "f32"}, {DType::f64, "f64"}};
constexpr std::span<const EnumName<DType>> enum_names(DType) { return kDTypeNames; }

template <typename T>
constexpr DType dtype_of() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "float or double");
  return std::is_same_v<T, float> ? DType::f32 : DType::f64;
}

// Calls fn.template operator()<T>() with T = float or double according to t:
//   dispatch(t, [&]<typename T>() { kernel<T>(...); });
template <typename Fn>
decltype(auto) dispatch(DType t, Fn&& fn) {
  if (t == DType::f32) return fn.template operator()<float>();
  return fn.template operator()<double>();
}

}  // namespace heed
