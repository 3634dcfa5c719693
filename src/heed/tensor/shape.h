#pragma once
// Shape of a tensor: up to 4 dimensions, row-major.
#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "heed/base/error.h"

namespace heed {

constexpr int kMaxDims = 4;

class Shape {
 public:
  Shape() = default;
  Shape(std::initializer_list<std::int64_t> dims);
  template <typename It>
  Shape(It first, It last) {
    for (; first != last; ++first) push_back(static_cast<std::int64_t>(*first));
  }

  int ndim() const { return ndim_; }
  std::int64_t operator[](int i) const { return dims_[static_cast<std::size_t>(i)]; }
  std::int64_t& operator[](int i) { return dims_[static_cast<std::size_t>(i)]; }
  std::int64_t numel() const;
  void push_back(std::int64_t d);
  const std::int64_t* begin() const { return dims_.data(); }
  const std::int64_t* end() const { return dims_.data() + ndim_; }
  bool operator==(const Shape& o) const;
  bool operator!=(const Shape& o) const { return !(*this == o); }
  std::string str() const;  // "(2, 3)"

 private:
  std::array<std::int64_t, kMaxDims> dims_{};
  int ndim_ = 0;
};

}  // namespace heed
