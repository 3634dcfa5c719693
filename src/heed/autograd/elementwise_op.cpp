// Lets the float exp/tanh/sigmoid loops vectorise (see heed/kernels/elementwise.h).
#pragma GCC optimize("no-trapping-math")

#include "heed/autograd/elementwise_op.h"

#include <algorithm>

#include "heed/autograd/tape.h"
#include "heed/kernels/elementwise.h"
#include "heed/kernels/parallel_chunks.h"
#include "heed/kernels/reduce.h"

namespace heed {
namespace {

void check_same(const Tensor& a, const Tensor& b, const char* op) {
  HEED_CHECK(a.shape() == b.shape(), op, ": shapes differ: ", a.shape().str(), " and ",
             b.shape().str());
  HEED_CHECK(a.dtype() == b.dtype(), op, ": dtypes differ: ", dtype_name(a.dtype()), " and ",
             dtype_name(b.dtype()));
}

// y = fwd(x) element-wise; the backward gets (x, y, dy, dx) and accumulates into dx. Both
// run over cache-line chunks split across the threads (kernels/parallel_chunks.h).
template <typename Fwd, typename Bwd>
Var unary(const Var& x, Fwd fwd, Bwd bwd) {
  Tensor xv = x.value().contiguous();
  Tensor y = Tensor::empty(xv.shape(), xv.dtype());
  const std::int64_t n = xv.numel();
  dispatch(xv.dtype(), [&]<typename T>() {
    const T* in = xv.data<T>();
    T* out = y.data<T>();
    kernels::parallel_chunks(
        n, 1, [&](std::int64_t i0, std::int64_t i1) { fwd(in + i0, out + i0, i1 - i0); }, 16);
  });
  return record_op(y, {&x}, [x, xv, bwd, n](Var& o) {
    if (!x.requires_grad()) return;
    dispatch(o.dtype(), [&]<typename T>() {
      const T* in = xv.data<T>();
      const T* out = o.value().data<T>();
      const T* dy = o.grad().data<T>();
      T* dx = x.grad_buffer().data<T>();
      kernels::parallel_chunks(
          n, 1,
          [&](std::int64_t i0, std::int64_t i1) {
            bwd(in + i0, out + i0, dy + i0, dx + i0, i1 - i0);
          },
          16);
    });
  });
}

// x's gradient += dy (n elements), a copy when x has no gradient buffer yet (a residual
// sum's inputs), split across the threads.
template <typename T>
void pass_gradient(const T* dy, const Var& x, std::int64_t n) {
  bool fresh = false;
  T* dx = x.grad_buffer_unzeroed(fresh).data<T>();
  kernels::parallel_chunks(
      n, 1,
      [&](std::int64_t i0, std::int64_t i1) {
        if (fresh)
          std::copy(dy + i0, dy + i1, dx + i0);
        else
          kernels::accumulate<T>(dy + i0, dx + i0, i1 - i0);
      },
      16);
}

}  // namespace

Var add(const Var& a, const Var& b) {
  Tensor av = a.value().contiguous(), bv = b.value().contiguous();
  check_same(av, bv, "add");
  Tensor y = Tensor::empty(av.shape(), av.dtype());
  const std::int64_t n = av.numel();
  dispatch(av.dtype(),
           [&]<typename T>() { kernels::add<T>(av.data<T>(), bv.data<T>(), y.data<T>(), n); });
  return record_op(y, {&a, &b}, [a, b, n](Var& o) {
    dispatch(o.dtype(), [&]<typename T>() {
      const T* dy = o.grad().data<T>();
      if (a.requires_grad()) pass_gradient<T>(dy, a, n);
      if (b.requires_grad()) pass_gradient<T>(dy, b, n);
    });
  });
}

Var sub(const Var& a, const Var& b) {
  Tensor av = a.value().contiguous(), bv = b.value().contiguous();
  check_same(av, bv, "sub");
  Tensor y = Tensor::empty(av.shape(), av.dtype());
  const std::int64_t n = av.numel();
  dispatch(av.dtype(),
           [&]<typename T>() { kernels::sub<T>(av.data<T>(), bv.data<T>(), y.data<T>(), n); });
  return record_op(y, {&a, &b}, [a, b, n](Var& o) {
    dispatch(o.dtype(), [&]<typename T>() {
      const T* dy = o.grad().data<T>();
      if (a.requires_grad()) kernels::accumulate<T>(dy, a.grad_buffer().data<T>(), n);
      if (b.requires_grad()) kernels::accumulate_scaled<T>(dy, T(-1), b.grad_buffer().data<T>(), n);
    });
  });
}

Var mul(const Var& a, const Var& b) {
  Tensor av = a.value().contiguous(), bv = b.value().contiguous();
  check_same(av, bv, "mul");
  Tensor y = Tensor::empty(av.shape(), av.dtype());
  const std::int64_t n = av.numel();
  dispatch(av.dtype(),
           [&]<typename T>() { kernels::mul<T>(av.data<T>(), bv.data<T>(), y.data<T>(), n); });
  return record_op(y, {&a, &b}, [a, b, av, bv, n](Var& o) {
    dispatch(o.dtype(), [&]<typename T>() {
      const T* dy = o.grad().data<T>();
      if (a.requires_grad())
        kernels::accumulate_mul<T>(dy, bv.data<T>(), a.grad_buffer().data<T>(), n);
      if (b.requires_grad())
        kernels::accumulate_mul<T>(dy, av.data<T>(), b.grad_buffer().data<T>(), n);
    });
  });
}

Var minimum(const Var& a, const Var& b) {
  Tensor av = a.value().contiguous(), bv = b.value().contiguous();
  check_same(av, bv, "minimum");
  Tensor y = Tensor::empty(av.shape(), av.dtype());
  const std::int64_t n = av.numel();
  dispatch(av.dtype(), [&]<typename T>() {
    const T *x = av.data<T>(), *z = bv.data<T>();
    T* o = y.data<T>();
    for (std::int64_t i = 0; i < n; ++i) o[i] = std::min(x[i], z[i]);
  });
  return record_op(y, {&a, &b}, [a, b, av, bv, n](Var& o) {
    dispatch(o.dtype(), [&]<typename T>() {
      const T* dy = o.grad().data<T>();
      const T *x = av.data<T>(), *z = bv.data<T>();
      T* da = a.requires_grad() ? a.grad_buffer().data<T>() : nullptr;
      T* db = b.requires_grad() ? b.grad_buffer().data<T>() : nullptr;
      for (std::int64_t i = 0; i < n; ++i) {
        const T share_a = x[i] < z[i] ? T(1) : x[i] == z[i] ? T(0.5) : T(0);
        if (da) da[i] += share_a * dy[i];
        if (db) db[i] += (T(1) - share_a) * dy[i];
      }
    });
  });
}

Var add_n(const std::vector<Var>& xs) {
  HEED_CHECK(!xs.empty(), "add_n: no inputs");
  std::vector<Tensor> vals;
  vals.reserve(xs.size());
  for (const Var& x : xs) {
    vals.push_back(x.value().contiguous());
    check_same(vals.front(), vals.back(), "add_n");
  }
  Tensor y = vals.front().clone();
  const std::int64_t n = y.numel();
  dispatch(y.dtype(), [&]<typename T>() {
    for (std::size_t k = 1; k < vals.size(); ++k)
      kernels::accumulate<T>(vals[k].data<T>(), y.data<T>(), n);
  });
  bool rg = false;
  for (const Var& x : xs) rg = rg || any_requires_grad({&x});
  Var out(y, rg);
  if (rg)
    Tape::current().record(
        [out, xs, n]() {
          if (!out.has_grad()) return;
          dispatch(out.dtype(), [&]<typename T>() {
            const T* dy = out.grad().data<T>();
            for (const Var& x : xs)
              if (x.requires_grad()) kernels::accumulate<T>(dy, x.grad_buffer().data<T>(), n);
          });
        },
        xs);
  return out;
}

Var add_bias(const Var& x, const Var& bias) {
  Tensor xv = x.value().contiguous();
  const Tensor& bv = bias.value();
  HEED_CHECK(xv.ndim() >= 1, "add_bias: input must have at least one dimension");
  const std::int64_t cols = xv.dim(-1), rows = xv.numel() / std::max<std::int64_t>(cols, 1);
  check_shape(bv, Shape{cols}, "add_bias bias");
  HEED_CHECK(xv.dtype() == bv.dtype(), "add_bias: dtypes differ");
  Tensor bc = bv.contiguous();
  Tensor y = Tensor::empty(xv.shape(), xv.dtype());
  dispatch(xv.dtype(), [&]<typename T>() {
    kernels::add_rows<T>(xv.data<T>(), bc.data<T>(), y.data<T>(), rows, cols);
  });
  return record_op(y, {&x, &bias}, [x, bias, rows, cols](Var& o) {
    dispatch(o.dtype(), [&]<typename T>() {
      const T* dy = o.grad().data<T>();
      if (x.requires_grad()) kernels::accumulate<T>(dy, x.grad_buffer().data<T>(), rows * cols);
      if (bias.requires_grad()) kernels::sum_rows<T>(dy, bias.grad_buffer().data<T>(), rows, cols);
    });
  });
}

Var scale(const Var& x, double c) {
  return unary(
      x,
      [c]<typename T>(const T* in, T* out, std::int64_t n) {
        kernels::scale<T>(in, static_cast<T>(c), out, n);
      },
      [c]<typename T>(const T*, const T*, const T* dy, T* dx, std::int64_t n) {
        kernels::accumulate_scaled<T>(dy, static_cast<T>(c), dx, n);
      });
}

Var neg(const Var& x) { return scale(x, -1.0); }

Var tanh(const Var& x) {
  return unary(
      x,
      []<typename T>(const T* in, T* out, std::int64_t n) { kernels::tanh_forward<T>(in, out, n); },
      []<typename T>(const T*, const T* y, const T* dy, T* dx, std::int64_t n) {
        kernels::tanh_backward<T>(y, dy, dx, n);
      });
}

Var sigmoid(const Var& x) {
  return unary(
      x,
      []<typename T>(const T* in, T* out, std::int64_t n) {
        kernels::sigmoid_forward<T>(in, out, n);
      },
      []<typename T>(const T*, const T* y, const T* dy, T* dx, std::int64_t n) {
        kernels::sigmoid_backward<T>(y, dy, dx, n);
      });
}

Var relu(const Var& x) {
  return unary(
      x,
      []<typename T>(const T* in, T* out, std::int64_t n) { kernels::relu_forward<T>(in, out, n); },
      []<typename T>(const T*, const T* y, const T* dy, T* dx, std::int64_t n) {
        kernels::relu_backward<T>(y, dy, dx, n);
      });
}

Var exp(const Var& x) {
  return unary(
      x,
      []<typename T>(const T* in, T* out, std::int64_t n) { kernels::exp_forward<T>(in, out, n); },
      []<typename T>(const T*, const T* y, const T* dy, T* dx, std::int64_t n) {
        kernels::accumulate_mul<T>(dy, y, dx, n);
      });
}

Var log(const Var& x) {
  return unary(
      x,
      []<typename T>(const T* in, T* out, std::int64_t n) { kernels::log_forward<T>(in, out, n); },
      []<typename T>(const T* in, const T*, const T* dy, T* dx, std::int64_t n) {
        kernels::log_backward<T>(in, dy, dx, n);
      });
}

}  // namespace heed
