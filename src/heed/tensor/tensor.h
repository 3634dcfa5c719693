#pragma once
// Tensor: a typed, strided view (up to 4-D) of shared 64-byte aligned storage.
// Views, slices and transposes share storage and copy nothing; kernels take raw pointers
// of contiguous tensors (or explicit leading dimensions for GEMM).
#include <cstdint>
#include <memory>
#include <vector>

#include "heed/tensor/dtype.h"
#include "heed/tensor/shape.h"

namespace heed {

class Arena;

// Owned memory: heap (freed with the last reference) or arena (freed by Arena::reset).
class Storage {
 public:
  Storage(std::size_t bytes, Arena* arena);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
  void* data() const;
  std::size_t bytes() const { return bytes_; }

 private:
  void* data_;
  std::size_t bytes_;
  Arena* arena_;
  std::uint64_t generation_;
};

class Tensor {
 public:
  Tensor() = default;

  // New storage (from the current arena if one is active, else the heap).
  static Tensor empty(const Shape& shape, DType dtype = DType::f32);
  static Tensor zeros(const Shape& shape, DType dtype = DType::f32);
  static Tensor full(const Shape& shape, double value, DType dtype = DType::f32);
  static Tensor from(const Shape& shape, const std::vector<double>& values,
                     DType dtype = DType::f32);
  static Tensor empty_like(const Tensor& t) { return empty(t.shape(), t.dtype()); }
  static Tensor zeros_like(const Tensor& t) { return zeros(t.shape(), t.dtype()); }

  bool defined() const { return storage_ != nullptr; }
  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int ndim() const { return shape_.ndim(); }
  std::int64_t dim(int i) const;  // negative i counts from the end
  std::int64_t size(int i) const { return dim(i); }
  std::int64_t stride(int i) const;
  std::int64_t numel() const { return shape_.numel(); }
  bool is_contiguous() const;

  template <typename T>
  T* data() const {
    HEED_CHECK(dtype_of<T>() == dtype_, "tensor holds ", dtype_name(dtype_), ", asked for ",
               dtype_name(dtype_of<T>()));
    return static_cast<T*>(raw()) ;
  }
  void* raw() const;  // pointer to element 0 of this view

  // Views (no copy). reshape needs a contiguous tensor; -1 infers one dimension.
  Tensor reshape(const Shape& shape) const;
  Tensor slice(int dim, std::int64_t start, std::int64_t end) const;
  Tensor select(int dim, std::int64_t index) const;  // drops the dimension
  Tensor transpose(int d0, int d1) const;
  Tensor unsqueeze(int dim) const;

  // Copies.
  Tensor contiguous() const;  // this if already contiguous
  Tensor clone() const;
  Tensor to(DType dtype) const;
  void copy_from(const Tensor& src);  // same shape; any strides
  void fill(double value);
  void zero() { fill(0.0); }

  // Element access for tests and small tools (slow; converts through double).
  double at(std::initializer_list<std::int64_t> index) const;
  void set(std::initializer_list<std::int64_t> index, double value);
  std::vector<double> to_vector() const;  // row-major
  double item() const;                    // one-element tensor

 private:
  std::shared_ptr<Storage> storage_;
  std::int64_t offset_ = 0;  // in elements
  Shape shape_;
  std::array<std::int64_t, kMaxDims> strides_{};
  DType dtype_ = DType::f32;

  std::int64_t flat_offset(std::initializer_list<std::int64_t> index) const;
};

// Throws heed::Error naming `what` unless t has the expected shape.
void check_shape(const Tensor& t, const Shape& expected, const char* what);

}  // namespace heed
