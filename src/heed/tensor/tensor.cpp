#include "heed/tensor/tensor.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "heed/tensor/arena.h"

namespace heed {

Storage::Storage(std::size_t bytes, Arena* arena)
    : bytes_(bytes), arena_(arena), generation_(arena ? arena->generation() : 0) {
  std::size_t rounded = (bytes + 63) / 64 * 64;
  if (rounded == 0) rounded = 64;
  if (arena_) {
    data_ = arena_->allocate(rounded);
  } else {
    data_ = std::aligned_alloc(64, rounded);
    if (!data_) throw std::bad_alloc();
  }
}

Storage::~Storage() {
  if (!arena_) std::free(data_);
}

void* Storage::data() const {
#ifndef NDEBUG
  HEED_CHECK(!arena_ || arena_->generation() == generation_,
             "use of a tensor after its arena was reset");
#endif
  return data_;
}

Tensor Tensor::empty(const Shape& shape, DType dtype) {
  for (auto d : shape) HEED_CHECK(d >= 0, "cannot allocate a tensor of shape ", shape.str());
  Tensor t;
  t.shape_ = shape;
  t.dtype_ = dtype;
  t.storage_ = std::make_shared<Storage>(static_cast<std::size_t>(shape.numel()) * dtype_size(dtype),
                                         Arena::current());
  std::int64_t s = 1;
  for (int i = shape.ndim() - 1; i >= 0; --i) {
    t.strides_[static_cast<std::size_t>(i)] = s;
    s *= shape[i];
  }
  return t;
}

Tensor Tensor::zeros(const Shape& shape, DType dtype) {
  Tensor t = empty(shape, dtype);
  std::memset(t.raw(), 0, static_cast<std::size_t>(t.numel()) * dtype_size(dtype));
  return t;
}

Tensor Tensor::full(const Shape& shape, double value, DType dtype) {
  Tensor t = empty(shape, dtype);
  t.fill(value);
  return t;
}

Tensor Tensor::from(const Shape& shape, const std::vector<double>& values, DType dtype) {
  HEED_CHECK(static_cast<std::int64_t>(values.size()) == shape.numel(), "Tensor::from: ",
             values.size(), " values for shape ", shape.str());
  Tensor t = empty(shape, dtype);
  dispatch(dtype, [&]<typename T>() {
    T* p = t.data<T>();
    for (std::size_t i = 0; i < values.size(); ++i) p[i] = static_cast<T>(values[i]);
  });
  return t;
}

std::int64_t Tensor::dim(int i) const {
  if (i < 0) i += ndim();
  HEED_CHECK(i >= 0 && i < ndim(), "dimension ", i, " out of range for shape ", shape_.str());
  return shape_[i];
}

std::int64_t Tensor::stride(int i) const {
  if (i < 0) i += ndim();
  HEED_CHECK(i >= 0 && i < ndim(), "dimension ", i, " out of range for shape ", shape_.str());
  return strides_[static_cast<std::size_t>(i)];
}

bool Tensor::is_contiguous() const {
  std::int64_t s = 1;
  for (int i = ndim() - 1; i >= 0; --i) {
    if (shape_[i] != 1 && strides_[static_cast<std::size_t>(i)] != s) return false;
    s *= shape_[i];
  }
  return true;
}

void* Tensor::raw() const {
  HEED_CHECK(storage_, "use of an undefined tensor");
  return static_cast<std::byte*>(storage_->data()) +
         static_cast<std::size_t>(offset_) * dtype_size(dtype_);
}

Tensor Tensor::reshape(const Shape& shape) const {
  HEED_CHECK(is_contiguous(), "reshape of a non-contiguous tensor ", shape_.str());
  Shape s = shape;
  int infer = -1;
  std::int64_t known = 1;
  for (int i = 0; i < s.ndim(); ++i) {
    if (s[i] == -1) {
      HEED_CHECK(infer < 0, "reshape: more than one -1");
      infer = i;
    } else {
      known *= s[i];
    }
  }
  if (infer >= 0) {
    HEED_CHECK(known > 0 && numel() % known == 0, "reshape ", shape_.str(), " to ", s.str());
    s[infer] = numel() / known;
  }
  HEED_CHECK(s.numel() == numel(), "reshape ", shape_.str(), " to ", s.str(),
             ": element counts differ");
  Tensor t = *this;
  t.shape_ = s;
  std::int64_t st = 1;
  for (int i = s.ndim() - 1; i >= 0; --i) {
    t.strides_[static_cast<std::size_t>(i)] = st;
    st *= s[i];
  }
  return t;
}

Tensor Tensor::slice(int d, std::int64_t start, std::int64_t end) const {
  if (d < 0) d += ndim();
  HEED_CHECK(d >= 0 && d < ndim(), "slice: dimension out of range");
  HEED_CHECK(0 <= start && start <= end && end <= shape_[d], "slice [", start, ", ", end,
             ") out of range for dimension ", d, " of ", shape_.str());
  Tensor t = *this;
  t.offset_ += start * strides_[static_cast<std::size_t>(d)];
  t.shape_[d] = end - start;
  return t;
}

Tensor Tensor::select(int d, std::int64_t index) const {
  if (d < 0) d += ndim();
  HEED_CHECK(d >= 0 && d < ndim(), "select: dimension out of range");
  HEED_CHECK(0 <= index && index < shape_[d], "select index ", index, " out of range for ",
             shape_.str());
  Tensor t;
  t.storage_ = storage_;
  t.dtype_ = dtype_;
  t.offset_ = offset_ + index * strides_[static_cast<std::size_t>(d)];
  for (int i = 0, j = 0; i < ndim(); ++i) {
    if (i == d) continue;
    t.shape_.push_back(shape_[i]);
    t.strides_[static_cast<std::size_t>(j++)] = strides_[static_cast<std::size_t>(i)];
  }
  return t;
}

Tensor Tensor::transpose(int d0, int d1) const {
  if (d0 < 0) d0 += ndim();
  if (d1 < 0) d1 += ndim();
  HEED_CHECK(d0 >= 0 && d0 < ndim() && d1 >= 0 && d1 < ndim(), "transpose: bad dimensions");
  Tensor t = *this;
  std::swap(t.shape_[d0], t.shape_[d1]);
  std::swap(t.strides_[static_cast<std::size_t>(d0)], t.strides_[static_cast<std::size_t>(d1)]);
  return t;
}

Tensor Tensor::unsqueeze(int d) const {
  if (d < 0) d += ndim() + 1;
  HEED_CHECK(d >= 0 && d <= ndim() && ndim() < kMaxDims, "unsqueeze: bad dimension");
  Tensor t;
  t.storage_ = storage_;
  t.dtype_ = dtype_;
  t.offset_ = offset_;
  for (int i = 0, j = 0; i <= ndim(); ++i) {
    if (i == d) {
      t.shape_.push_back(1);
      t.strides_[static_cast<std::size_t>(i)] =
          i < ndim() ? strides_[static_cast<std::size_t>(i)] * shape_[i] : 1;
    } else {
      t.shape_.push_back(shape_[j]);
      t.strides_[static_cast<std::size_t>(i)] = strides_[static_cast<std::size_t>(j)];
      ++j;
    }
  }
  return t;
}

namespace {
// Calls fn(dst_offset, src_offset) over every element of shape in row-major order.
template <typename Fn>
void for_each_index(const Shape& shape, const std::array<std::int64_t, kMaxDims>& a,
                    const std::array<std::int64_t, kMaxDims>& b, Fn&& fn) {
  std::int64_t d[kMaxDims] = {1, 1, 1, 1};
  std::int64_t sa[kMaxDims] = {0, 0, 0, 0}, sb[kMaxDims] = {0, 0, 0, 0};
  int off = kMaxDims - shape.ndim();
  for (int i = 0; i < shape.ndim(); ++i) {
    d[off + i] = shape[i];
    sa[off + i] = a[static_cast<std::size_t>(i)];
    sb[off + i] = b[static_cast<std::size_t>(i)];
  }
  for (std::int64_t i0 = 0; i0 < d[0]; ++i0)
    for (std::int64_t i1 = 0; i1 < d[1]; ++i1)
      for (std::int64_t i2 = 0; i2 < d[2]; ++i2)
        for (std::int64_t i3 = 0; i3 < d[3]; ++i3)
          fn(i0 * sa[0] + i1 * sa[1] + i2 * sa[2] + i3 * sa[3],
             i0 * sb[0] + i1 * sb[1] + i2 * sb[2] + i3 * sb[3]);
}
}  // namespace

void Tensor::copy_from(const Tensor& src) {
  HEED_CHECK(src.shape() == shape_, "copy_from: shape ", src.shape().str(), " into ",
             shape_.str());
  if (is_contiguous() && src.is_contiguous() && dtype_ == src.dtype_) {
    std::memmove(raw(), src.raw(), static_cast<std::size_t>(numel()) * dtype_size(dtype_));
    return;
  }
  dispatch(dtype_, [&]<typename D>() {
    D* dst = data<D>();
    dispatch(src.dtype_, [&]<typename S>() {
      const S* s = src.data<S>();
      for_each_index(shape_, strides_, src.strides_,
                     [&](std::int64_t i, std::int64_t j) { dst[i] = static_cast<D>(s[j]); });
    });
  });
}

Tensor Tensor::contiguous() const {
  if (is_contiguous()) return *this;
  return clone();
}

Tensor Tensor::clone() const {
  Tensor t = empty(shape_, dtype_);
  t.copy_from(*this);
  return t;
}

Tensor Tensor::to(DType dtype) const {
  Tensor t = empty(shape_, dtype);
  t.copy_from(*this);
  return t;
}

void Tensor::fill(double value) {
  dispatch(dtype_, [&]<typename T>() {
    T* p = data<T>();
    T v = static_cast<T>(value);
    for_each_index(shape_, strides_, strides_, [&](std::int64_t i, std::int64_t) { p[i] = v; });
  });
}

std::int64_t Tensor::flat_offset(std::initializer_list<std::int64_t> index) const {
  HEED_CHECK(static_cast<int>(index.size()) == ndim(), "index with ", index.size(),
             " coordinates into shape ", shape_.str());
  std::int64_t o = 0;
  int i = 0;
  for (auto v : index) {
    HEED_CHECK(v >= 0 && v < shape_[i], "index ", v, " out of range in ", shape_.str());
    o += v * strides_[static_cast<std::size_t>(i++)];
  }
  return o;
}

double Tensor::at(std::initializer_list<std::int64_t> index) const {
  std::int64_t o = flat_offset(index);
  return dispatch(dtype_, [&]<typename T>() { return static_cast<double>(data<T>()[o]); });
}

void Tensor::set(std::initializer_list<std::int64_t> index, double value) {
  std::int64_t o = flat_offset(index);
  dispatch(dtype_, [&]<typename T>() { data<T>()[o] = static_cast<T>(value); });
}

std::vector<double> Tensor::to_vector() const {
  Tensor c = contiguous();
  std::vector<double> out(static_cast<std::size_t>(numel()));
  dispatch(dtype_, [&]<typename T>() {
    const T* p = c.data<T>();
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(p[i]);
  });
  return out;
}

double Tensor::item() const {
  HEED_CHECK(numel() == 1, "item() of a tensor with ", numel(), " elements");
  return to_vector()[0];
}

void check_shape(const Tensor& t, const Shape& expected, const char* what) {
  HEED_CHECK(t.shape() == expected, what, ": expected shape ", expected.str(), ", got ",
             t.shape().str());
}

}  // namespace heed
