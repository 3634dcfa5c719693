#include "heed/tensor/shape.h"

#include <sstream>

namespace heed {

Shape::Shape(std::initializer_list<std::int64_t> dims) {
  for (auto d : dims) push_back(d);
}

void Shape::push_back(std::int64_t d) {
  HEED_CHECK(ndim_ < kMaxDims, "a tensor has at most ", kMaxDims, " dimensions");
  HEED_CHECK(d >= -1, "negative dimension ", d);  // -1: inferred by reshape
  dims_[static_cast<std::size_t>(ndim_++)] = d;
}

std::int64_t Shape::numel() const {
  std::int64_t n = 1;
  for (int i = 0; i < ndim_; ++i) n *= (*this)[i];
  return n;
}

bool Shape::operator==(const Shape& o) const {
  if (ndim_ != o.ndim_) return false;
  for (int i = 0; i < ndim_; ++i)
    if ((*this)[i] != o[i]) return false;
  return true;
}

std::string Shape::str() const {
  std::ostringstream os;
  os << '(';
  for (int i = 0; i < ndim_; ++i) os << (i ? ", " : "") << (*this)[i];
  os << ')';
  return os.str();
}

}  // namespace heed
