#include "heed/autograd/multi_head_attention_op.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <vector>

#include "heed/autograd/tape.h"
#include "heed/base/error.h"
#include "heed/kernels/dropout.h"
#include "heed/kernels/multi_head_attention.h"

namespace heed {
namespace {

void check_input(const HeadsInput& in, const char* name, std::int64_t dim, DType dtype) {
  HEED_CHECK(in.x.defined(), "multi_head_attention: ", name, " is undefined");
  const Tensor& t = in.x.value();
  HEED_CHECK(t.ndim() == 3 && t.is_contiguous(), "multi_head_attention: ", name,
             " must be a contiguous (B, len, width) tensor, got ", t.shape().str());
  HEED_CHECK(in.column >= 0 && in.column + dim <= t.dim(2), "multi_head_attention: ", name,
             " columns [", in.column, ", ", in.column + dim, ") outside its width ", t.dim(2));
  HEED_CHECK(t.dtype() == dtype, "multi_head_attention: ", name, " has another dtype than q");
}

// The kernel's shape of a call: sizes, row strides, the causal mask and the scale 1 / sqrt(dh)
// (the key lengths are the caller's to point at, as their storage must outlive the call).
kernels::HeadsShape heads_shape(const MultiHeadOptions& o, std::int64_t B, std::int64_t n,
                                std::int64_t m, std::int64_t dim, std::int64_t q_ld,
                                std::int64_t k_ld, std::int64_t v_ld) {
  kernels::HeadsShape s;
  s.batch = B;
  s.heads = o.heads;
  s.queries = n;
  s.keys = m;
  s.dim = dim;
  s.q_ld = q_ld;
  s.k_ld = k_ld;
  s.v_ld = v_ld;
  s.causal = o.mask.causal;
  s.causal_offset = o.mask.causal_offset;
  s.scale = 1.0 / std::sqrt(static_cast<double>(dim / o.heads));
  return s;
}

// Whether the inputs that are input a's node read every column of it between them (Q, K and
// V as the three column blocks of one projection): then the backward writes every element of
// its gradient, and may overwrite a buffer nothing has written yet instead of zeroing it.
bool covers_width(const std::array<const HeadsInput*, 3>& in, std::size_t a, std::int64_t dim) {
  std::vector<std::int64_t> starts;
  for (const HeadsInput* x : in)
    if (x->x.same_node(in[a]->x)) starts.push_back(x->column);
  std::sort(starts.begin(), starts.end());
  std::int64_t end = 0;  // columns [0, end) covered so far
  for (std::int64_t c : starts) {
    if (c > end) return false;
    end = std::max(end, c + dim);
  }
  return end == in[a]->x.value().dim(2);
}

// Both entries: the weights are a second output on the tape when on_tape.
AttentionWithWeights attention(const HeadsInput& q, const HeadsInput& k, const HeadsInput& v,
                               std::int64_t dim, const MultiHeadOptions& o, bool on_tape) {
  HEED_CHECK(dim > 0 && o.heads > 0 && dim % o.heads == 0, "multi_head_attention: ", o.heads,
             " heads do not divide the size ", dim);
  const DType dtype = q.x.defined() ? q.x.dtype() : DType::f32;
  check_input(q, "q", dim, dtype);
  check_input(k, "k", dim, dtype);
  check_input(v, "v", dim, dtype);
  const Tensor &qv = q.x.value(), &kv = k.x.value(), &vv = v.x.value();
  const std::int64_t B = qv.dim(0), n = qv.dim(1), m = kv.dim(1);
  HEED_CHECK(kv.dim(0) == B && vv.dim(0) == B && vv.dim(1) == m && n >= 1 && m >= 1,
             "multi_head_attention: q ", qv.shape().str(), ", k ", kv.shape().str(), " and v ",
             vv.shape().str(), " must be (B, n, .), (B, m, .), (B, m, .) with n, m >= 1");
  const AttentionMask& mask = o.mask;
  HEED_CHECK(mask.key_lengths.empty() || static_cast<std::int64_t>(mask.key_lengths.size()) == B,
             "multi_head_attention: ", mask.key_lengths.size(), " key lengths for a batch of ", B);
  Tensor additive;
  if (mask.additive.defined()) {
    HEED_CHECK(mask.additive.ndim() == 2 && mask.additive.dim(0) == n &&
                   mask.additive.dim(1) == m && mask.additive.dtype() == dtype,
               "multi_head_attention: the additive mask must be (", n, ", ", m, ") like the "
               "scores, got ", mask.additive.shape().str());
    additive = mask.additive.contiguous();
  }
  const bool dropping = o.training && o.dropout > 0;
  HEED_CHECK(o.dropout >= 0 && o.dropout < 1, "multi_head_attention: dropout must be in [0, 1), got ",
             o.dropout);
  HEED_CHECK(!dropping || o.rng, "multi_head_attention: dropout in training needs an rng");

  auto lengths = std::make_shared<const std::vector<std::int64_t>>(mask.key_lengths);
  kernels::HeadsShape s = heads_shape(o, B, n, m, dim, qv.dim(2), kv.dim(2), vv.dim(2));
  const kernels::GemmOptions gemm{o.precision, nullptr};

  Tensor P = Tensor::empty({B, o.heads, n, m}, dtype);
  Tensor drop = dropping ? Tensor::empty({B, o.heads, n, m}, dtype) : Tensor();
  Tensor out = Tensor::empty({B, n, dim}, dtype);
  dispatch(dtype, [&]<typename T>() {
    if (dropping) kernels::dropout_mask<T>(drop.data<T>(), drop.numel(), o.dropout, *o.rng);
    s.key_lengths = lengths->empty() ? nullptr : lengths->data();
    kernels::multi_head_attention<T>(
        gemm, s, qv.data<T>() + q.column, kv.data<T>() + k.column, vv.data<T>() + v.column,
        additive.defined() ? additive.data<T>() : nullptr, dropping ? drop.data<T>() : nullptr,
        P.data<T>(), out.data<T>());
  });
  AttentionWithWeights result{Var(out), Var(P)};
  const auto backward = [q, k, v, s, lengths, gemm, P, drop](const Var& y, const Var& w) {
    kernels::HeadsShape shape = s;
    shape.key_lengths = lengths->empty() ? nullptr : lengths->data();
    dispatch(y.dtype(), [&]<typename T>() {
      const std::array<const HeadsInput*, 3> in{&q, &k, &v};
      std::array<T*, 3> grads{};
      std::array<bool, 3> overwrite{};
      for (std::size_t a = 0; a < in.size(); ++a) {
        const Var& x = in[a]->x;
        if (!x.requires_grad()) continue;
        std::size_t first = 0;  // the first input that is this node
        while (!in[first]->x.same_node(x)) ++first;
        if (first == a) {  // the node's buffer, overwritten where the call covers it all
          bool fresh = false;
          const bool covers = covers_width(in, a, shape.dim);
          T* base = covers ? x.grad_buffer_unzeroed(fresh).data<T>()
                           : x.grad_buffer().data<T>();
          overwrite[a] = covers && fresh;
          grads[a] = base;
        } else {
          overwrite[a] = overwrite[first];
          grads[a] = grads[first];
        }
      }
      for (std::size_t a = 0; a < in.size(); ++a)
        if (grads[a]) grads[a] += in[a]->column;
      shape.overwrite_dq = overwrite[0];
      shape.overwrite_dk = overwrite[1];
      shape.overwrite_dv = overwrite[2];
      // An output that received no gradient counts as zero.
      const Tensor dO = y.has_grad() ? y.grad() : Tensor::zeros(y.value().shape(), y.dtype());
      kernels::multi_head_attention_backward<T>(
          gemm, shape, q.x.value().data<T>() + q.column, k.x.value().data<T>() + k.column,
          v.x.value().data<T>() + v.column, P.data<T>(),
          drop.defined() ? drop.data<T>() : nullptr, dO.data<T>(),
          w.defined() && w.has_grad() ? w.grad().data<T>() : nullptr, grads[0], grads[1],
          grads[2]);
    });
  };
  if (!on_tape) {
    result.out = record_op(out, {&q.x, &k.x, &v.x},
                           [backward](Var& y) { backward(y, Var()); });
    return result;
  }
  Var& y = result.out;
  Var& w = result.weights;
  record_multi({&q.x, &k.x, &v.x}, {&y, &w}, [backward, y, w]() { backward(y, w); });
  return result;
}

}  // namespace

Var multi_head_attention(const HeadsInput& q, const HeadsInput& k, const HeadsInput& v,
                         std::int64_t dim, const MultiHeadOptions& o, Tensor* weights) {
  AttentionWithWeights r = attention(q, k, v, dim, o, false);
  if (weights) *weights = r.weights.value();
  return r.out;
}

Var multi_head_attention(const HeadsInput& q, const ListedKeys& kv, std::int64_t dim,
                         const MultiHeadOptions& o, Tensor* weights) {
  HEED_CHECK(dim > 0 && o.heads > 0 && dim % o.heads == 0, "multi_head_attention: ", o.heads,
             " heads do not divide the size ", dim);
  const DType dtype = q.x.defined() ? q.x.dtype() : DType::f32;
  check_input(q, "q", dim, dtype);
  HEED_CHECK(!grad_enabled() || !q.x.requires_grad(), "multi_head_attention: listed keys are "
             "for decoding: q must not require a gradient");
  HEED_CHECK(!(o.training && o.dropout > 0) && !o.mask.additive.defined(),
             "multi_head_attention: listed keys take no dropout and no additive mask");
  const Tensor& rows = kv.rows;
  HEED_CHECK(rows.defined() && rows.ndim() == 2 && rows.is_contiguous() && rows.dtype() == dtype,
             "multi_head_attention: listed keys need contiguous (N, width) rows of q's dtype");
  HEED_CHECK(kv.key_column >= 0 && kv.key_column + dim <= rows.dim(1) && kv.value_column >= 0 &&
                 kv.value_column + dim <= rows.dim(1),
             "multi_head_attention: key or value columns outside the rows' width ", rows.dim(1));
  const Tensor& qv = q.x.value();
  const std::int64_t B = qv.dim(0), n = qv.dim(1), m = kv.keys;
  HEED_CHECK(n >= 1 && m >= 1 && kv.index, "multi_head_attention: ", m, " listed keys for ", n,
             " queries");
  HEED_CHECK(o.mask.key_lengths.empty() ||
                 static_cast<std::int64_t>(o.mask.key_lengths.size()) == B,
             "multi_head_attention: ", o.mask.key_lengths.size(), " key lengths for a batch of ",
             B);
  for (std::int64_t e = 0; e < B * m; ++e)
    HEED_CHECK(kv.index[e] >= 0 && kv.index[e] < rows.dim(0), "multi_head_attention: listed row ",
               kv.index[e], " outside the ", rows.dim(0), " rows");
  kernels::HeadsShape s = heads_shape(o, B, n, m, dim, qv.dim(2), rows.dim(1), rows.dim(1));
  s.key_lengths = o.mask.key_lengths.empty() ? nullptr : o.mask.key_lengths.data();
  s.key_rows = kv.index;
  Tensor P = Tensor::empty({B, o.heads, n, m}, dtype);
  Tensor out = Tensor::empty({B, n, dim}, dtype);
  dispatch(dtype, [&]<typename T>() {
    kernels::multi_head_attention<T>({o.precision, nullptr}, s, qv.data<T>() + q.column,
                                     rows.data<T>() + kv.key_column,
                                     rows.data<T>() + kv.value_column, nullptr, nullptr,
                                     P.data<T>(), out.data<T>());
  });
  if (weights) *weights = P;
  return Var(out);
}

AttentionWithWeights multi_head_attention_with_weights(const HeadsInput& q, const HeadsInput& k,
                                                       const HeadsInput& v, std::int64_t dim,
                                                       const MultiHeadOptions& o) {
  return attention(q, k, v, dim, o, true);
}

}  // namespace heed
