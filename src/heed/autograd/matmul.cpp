#include "heed/autograd/matmul.h"

#include <bit>
#include <cstdint>
#include <type_traits>

#include "heed/autograd/tape.h"
#include "heed/kernels/dropout.h"
#include "heed/kernels/elementwise.h"
#include "heed/kernels/gemm.h"
#include "heed/kernels/parallel_chunks.h"
#include "heed/kernels/reduce.h"

namespace heed {

namespace {

// dx = dy keep [y > 0]: the gradient before ReLU and dropout from their output y, where an
// element was kept (and scaled by keep) exactly where y > 0; elsewhere +0, as ReLU's backward
// writes. The product is taken for every element and masked by its bits: GCC will not
// vectorise a multiply that the source runs only under a condition (it could trap).
template <typename T>
void relu_dropout_backward_store(const T* y, const T* dy, T keep, T* dx, std::int64_t n) {
  using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  for (std::int64_t i = 0; i < n; ++i) {
    const Bits g = std::bit_cast<Bits>(dy[i] * keep);
    const Bits kept = y[i] > T(0) ? ~Bits{0} : Bits{0};
    dx[i] = std::bit_cast<T>(static_cast<Bits>(g & kept));
  }
}

// linear over W's rows [first, first + out) and b's (out = W's rows when the whole of W),
// followed by ReLU when relu is set, and then by dropout with probability drop (from *rng)
// when drop > 0 (relu only).
Var linear_block(const Var& x, const Var& W, const Var& b, std::int64_t first, std::int64_t out,
                 kernels::MatmulPrecision precision, const char* name, bool relu = false,
                 double drop = 0.0, Rng* rng = nullptr) {
  const Tensor& xv = x.value();
  const Tensor& Wv = W.value();
  HEED_CHECK(Wv.ndim() == 2, name, ": weight must be 2-D, got ", Wv.shape().str());
  HEED_CHECK(xv.ndim() >= 1 && xv.dim(-1) == Wv.dim(1), name, ": input ", xv.shape().str(),
             " does not match weight ", Wv.shape().str());
  HEED_CHECK(xv.is_contiguous() && Wv.is_contiguous(), name, ": inputs must be contiguous");
  HEED_CHECK(xv.dtype() == Wv.dtype(), name, ": dtype mismatch");
  HEED_CHECK(first >= 0 && out >= 1 && first + out <= Wv.dim(0), name, ": rows [", first, ", ",
             first + out, ") of a weight with ", Wv.dim(0));
  const std::int64_t in = Wv.dim(1), rows = xv.numel() / in;
  if (b.defined()) check_shape(b.value(), Shape{Wv.dim(0)}, "linear bias");
  Shape ys = xv.shape();
  ys[ys.ndim() - 1] = out;
  Tensor y = Tensor::empty(ys, xv.dtype());
  dispatch(xv.dtype(), [&]<typename T>() {
    kernels::affine_rows<T>({precision, W.packed()}, rows, out, in, xv.data<T>(),
                            Wv.data<T>() + first * in,
                            b.defined() ? b.value().data<T>() + first : nullptr, y.data<T>());
    if (relu && drop > 0) {  // in place, the same numbers as dropout(relu(linear(...)))
      kernels::dropout_apply<T>(y.data<T>(), rows * out, drop, *rng, /*relu=*/true);
    } else if (relu) {  // in place, the same numbers as relu() on linear's output
      T* v = y.data<T>();
      kernels::parallel_chunks(
          rows * out, 1,
          [&](std::int64_t i0, std::int64_t i1) {
            kernels::relu_forward<T>(v + i0, v + i0, i1 - i0);
          },
          16);
    }
  });
  return record_op(y, {&x, &W, &b}, [x, W, b, rows, in, out, first, precision, relu,
                                     drop](Var& o) mutable {
    const kernels::GemmOptions go{precision};
    dispatch(o.dtype(), [&]<typename T>() {
      const T* dy = o.grad().data<T>();
      // With ReLU: the gradient before it, dy [y > 0], into a scratch buffer. After dropout
      // too, an element was kept exactly where y > 0, and dy is scaled as it was.
      Tensor masked;
      if (relu) {
        masked = Tensor::empty({rows, out}, o.dtype());
        const T* yv = o.value().data<T>();
        T* dz = masked.data<T>();
        const T keep = drop > 0 ? kernels::dropout_keep_scale<T>(drop) : T(1);
        kernels::parallel_chunks(
            rows * out, 1,
            [&](std::int64_t i0, std::int64_t i1) {
              if (drop > 0) {
                relu_dropout_backward_store<T>(yv + i0, dy + i0, keep, dz + i0, i1 - i0);
              } else {
                kernels::relu_backward_store<T>(yv + i0, dy + i0, dz + i0, i1 - i0);
              }
            },
            16);
        dy = dz;
      }
      if (x.requires_grad()) {
        // The product writes the whole of dx: a new buffer needs no zeroing first.
        bool fresh = false;
        T* dx = x.grad_buffer_unzeroed(fresh).data<T>();
        kernels::gemm<T>(go, false, false, rows, in, out, T(1), dy, out,
                         W.value().data<T>() + first * in, in, fresh ? T(0) : T(1), dx, in);
      }
      if (W.requires_grad()) {
        // The whole of W (and rows to sum over): a new or just-zeroed gradient is overwritten.
        bool fresh = false;
        T* dW = (first == 0 && out == W.value().dim(0) && rows > 0
                     ? W.grad_buffer_unzeroed(fresh)
                     : W.grad_buffer())
                    .data<T>();
        kernels::gemm<T>(go, true, false, out, in, rows, T(1), dy, out, x.value().data<T>(), in,
                         fresh ? T(0) : T(1), dW + first * in, in);
      }
      if (b.requires_grad())
        kernels::sum_rows<T>(dy, b.grad_buffer().data<T>() + first, rows, out);
    });
  });
}

}  // namespace

Var linear(const Var& x, const Var& W, const Var& b, kernels::MatmulPrecision precision) {
  HEED_CHECK(W.value().ndim() == 2, "linear: weight must be 2-D, got ", W.value().shape().str());
  return linear_block(x, W, b, 0, W.value().dim(0), precision, "linear");
}

Var linear_relu(const Var& x, const Var& W, const Var& b, kernels::MatmulPrecision precision) {
  HEED_CHECK(W.value().ndim() == 2, "linear_relu: weight must be 2-D, got ",
             W.value().shape().str());
  return linear_block(x, W, b, 0, W.value().dim(0), precision, "linear_relu", true);
}

Var linear_relu_dropout(const Var& x, const Var& W, const Var& b, double p, Rng& rng,
                        kernels::MatmulPrecision precision) {
  HEED_CHECK(W.value().ndim() == 2, "linear_relu_dropout: weight must be 2-D, got ",
             W.value().shape().str());
  HEED_CHECK(p >= 0.0 && p <= 1.0, "linear_relu_dropout: probability must be in [0, 1], got ", p);
  return linear_block(x, W, b, 0, W.value().dim(0), precision, "linear_relu_dropout", true, p,
                      &rng);
}

Var linear_rows(const Var& x, const Var& W, const Var& b, std::int64_t first, std::int64_t count,
                kernels::MatmulPrecision precision) {
  return linear_block(x, W, b, first, count, precision, "linear_rows");
}

Var matmul(const Var& a, const Var& b, bool ta, bool tb, kernels::MatmulPrecision precision) {
  const kernels::GemmOptions go{precision};
  const Tensor& av = a.value();
  const Tensor& bv = b.value();
  HEED_CHECK(av.ndim() == bv.ndim() && (av.ndim() == 2 || av.ndim() == 3),
             "matmul: operands must both be 2-D or 3-D, got ", av.shape().str(), " and ",
             bv.shape().str());
  HEED_CHECK(av.is_contiguous() && bv.is_contiguous(), "matmul: operands must be contiguous");
  HEED_CHECK(av.dtype() == bv.dtype(), "matmul: dtype mismatch");
  const bool batched = av.ndim() == 3;
  const std::int64_t batch = batched ? av.dim(0) : 1;
  HEED_CHECK(!batched || bv.dim(0) == batch, "matmul: batch sizes differ");
  const std::int64_t ar = av.dim(-2), ac = av.dim(-1), br = bv.dim(-2), bc = bv.dim(-1);
  const std::int64_t M = ta ? ac : ar, K = ta ? ar : ac, N = tb ? br : bc;
  HEED_CHECK((tb ? bc : br) == K, "matmul: inner dimensions differ: ", av.shape().str(),
             (ta ? "^T" : ""), " x ", bv.shape().str(), (tb ? "^T" : ""));
  Tensor y = Tensor::empty(batched ? Shape{batch, M, N} : Shape{M, N}, av.dtype());
  dispatch(av.dtype(), [&]<typename T>() {
    kernels::gemm_batched<T>(go, ta, tb, batch, M, N, K, T(1), av.data<T>(), ac, ar * ac,
                             bv.data<T>(), bc, br * bc, T(0), y.data<T>(), N, M * N);
  });
  return record_op(y, {&a, &b}, [a, b, ta, tb, batch, M, N, K, ar, ac, br, bc, go](Var& o) mutable {
    dispatch(o.dtype(), [&]<typename T>() {
      const T* dy = o.grad().data<T>();
      // Each product writes the whole of its gradient: a new buffer needs no zeroing first
      // (a == b shares one buffer: the second product then accumulates; an empty inner
      // dimension writes nothing, so that buffer is zeroed).
      if (a.requires_grad()) {
        // dA = dY op(B)^T, stored transposed when a was used transposed.
        bool fresh = false;
        T* da = (N > 0 ? a.grad_buffer_unzeroed(fresh) : a.grad_buffer()).data<T>();
        const T beta = fresh ? T(0) : T(1);
        if (!ta)
          kernels::gemm_batched<T>(go, false, !tb, batch, M, K, N, T(1), dy, N, M * N,
                                   b.value().data<T>(), bc, br * bc, beta, da, ac, ar * ac);
        else
          kernels::gemm_batched<T>(go, tb, true, batch, K, M, N, T(1), b.value().data<T>(), bc,
                                   br * bc, dy, N, M * N, beta, da, ac, ar * ac);
      }
      if (b.requires_grad()) {
        // dB = op(A)^T dY, stored transposed when b was used transposed.
        bool fresh = false;
        T* db = (M > 0 ? b.grad_buffer_unzeroed(fresh) : b.grad_buffer()).data<T>();
        const T beta = fresh ? T(0) : T(1);
        if (!tb)
          kernels::gemm_batched<T>(go, !ta, false, batch, K, N, M, T(1), a.value().data<T>(), ac,
                                   ar * ac, dy, N, M * N, beta, db, bc, br * bc);
        else
          kernels::gemm_batched<T>(go, true, ta, batch, N, K, M, T(1), dy, N, M * N,
                                   a.value().data<T>(), ac, ar * ac, beta, db, bc, br * bc);
      }
    });
  });
}

}  // namespace heed
