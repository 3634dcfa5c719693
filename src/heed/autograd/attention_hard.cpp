#include "heed/autograd/attention_hard.h"

#include <algorithm>
#include <cmath>

#include "heed/autograd/tape.h"

namespace heed {
namespace {

void check_alpha(const Tensor& alpha) {
  HEED_CHECK(alpha.ndim() == 2 && alpha.is_contiguous(),
             "hard attention: alpha must be a contiguous (B, m), got ", alpha.shape().str());
}

void check_index(std::span<const std::int64_t> index, std::int64_t B, std::int64_t m) {
  HEED_CHECK(static_cast<std::int64_t>(index.size()) == B, "hard attention: ", index.size(),
             " positions for a batch of ", B);
  for (std::int64_t j : index)
    HEED_CHECK(j >= 0 && j < m, "hard attention: position ", j, " outside [0, ", m, ")");
}

}  // namespace

std::vector<std::int64_t> sample_positions(const Tensor& alpha, Rng& rng) {
  check_alpha(alpha);
  const std::int64_t B = alpha.dim(0), m = alpha.dim(1);
  std::vector<std::int64_t> out(static_cast<std::size_t>(B));
  dispatch(alpha.dtype(), [&]<typename T>() {
    for (std::int64_t b = 0; b < B; ++b) {
      const T* a = alpha.data<T>() + b * m;
      double sum = 0;
      for (std::int64_t j = 0; j < m; ++j) sum += a[j];
      HEED_CHECK(sum > 0, "hard attention: row ", b, " of alpha has no weight");
      const double u = rng.uniform() * sum;
      double acc = 0;
      std::int64_t pick = -1;
      for (std::int64_t j = 0; j < m; ++j) {
        if (a[j] <= T(0)) continue;
        pick = j;  // the last positive weight catches rounding at the top end
        acc += a[j];
        if (u < acc) break;
      }
      out[static_cast<std::size_t>(b)] = pick;
    }
  });
  return out;
}

std::vector<std::int64_t> argmax_positions(const Tensor& alpha) {
  check_alpha(alpha);
  const std::int64_t B = alpha.dim(0), m = alpha.dim(1);
  std::vector<std::int64_t> out(static_cast<std::size_t>(B));
  dispatch(alpha.dtype(), [&]<typename T>() {
    for (std::int64_t b = 0; b < B; ++b) {
      const T* a = alpha.data<T>() + b * m;
      std::int64_t best = 0;
      for (std::int64_t j = 1; j < m; ++j)
        if (a[j] > a[best]) best = j;
      out[static_cast<std::size_t>(b)] = best;
    }
  });
  return out;
}

Var gather_positions(const Var& H, std::span<const std::int64_t> index) {
  const Tensor& Hv = H.value();
  HEED_CHECK(Hv.ndim() == 3 && Hv.is_contiguous(),
             "gather_positions: values must be a contiguous (B, m, dk), got ", Hv.shape().str());
  const std::int64_t B = Hv.dim(0), m = Hv.dim(1), dk = Hv.dim(2);
  check_index(index, B, m);
  Tensor c = Tensor::empty({B, dk}, Hv.dtype());
  dispatch(Hv.dtype(), [&]<typename T>() {
    for (std::int64_t b = 0; b < B; ++b) {
      const T* h = Hv.data<T>() + (b * m + index[static_cast<std::size_t>(b)]) * dk;
      std::copy(h, h + dk, c.data<T>() + b * dk);
    }
  });
  std::vector<std::int64_t> idx(index.begin(), index.end());
  return record_op(c, {&H}, [H, idx = std::move(idx), m, dk](Var& o) {
    dispatch(o.dtype(), [&]<typename T>() {
      const T* dc = o.grad().data<T>();
      T* dH = H.grad_buffer().data<T>();
      for (std::size_t b = 0; b < idx.size(); ++b) {
        T* dh = dH + (static_cast<std::int64_t>(b) * m + idx[b]) * dk;
        const T* d = dc + static_cast<std::int64_t>(b) * dk;
        for (std::int64_t i = 0; i < dk; ++i) dh[i] += d[i];
      }
    });
  });
}

Var attention_log_prob(const Var& alpha, std::span<const std::int64_t> index) {
  const Tensor& av = alpha.value();
  check_alpha(av);
  const std::int64_t B = av.dim(0), m = av.dim(1);
  check_index(index, B, m);
  Tensor lp = Tensor::empty({B}, av.dtype());
  Tensor sums = Tensor::empty({B}, av.dtype());
  dispatch(av.dtype(), [&]<typename T>() {
    for (std::int64_t b = 0; b < B; ++b) {
      const T* a = av.data<T>() + b * m;
      T sum = T(0);
      for (std::int64_t j = 0; j < m; ++j) sum += a[j];
      const T aj = a[index[static_cast<std::size_t>(b)]];
      HEED_CHECK(aj > T(0), "attention_log_prob: position ", index[static_cast<std::size_t>(b)],
                 " of row ", b, " has weight 0");
      sums.data<T>()[b] = sum;
      lp.data<T>()[b] = std::log(aj / sum);
    }
  });
  std::vector<std::int64_t> idx(index.begin(), index.end());
  return record_op(lp, {&alpha}, [alpha, sums, idx = std::move(idx), m](Var& o) {
    dispatch(o.dtype(), [&]<typename T>() {
      const T* dl = o.grad().data<T>();
      const T* a = alpha.value().data<T>();
      T* da = alpha.grad_buffer().data<T>();
      for (std::size_t b = 0; b < idx.size(); ++b) {
        const std::int64_t r = static_cast<std::int64_t>(b) * m;
        const T d = dl[b];
        const T inv_sum = d / sums.data<T>()[b];
        for (std::int64_t j = 0; j < m; ++j) da[r + j] -= inv_sum;
        da[r + idx[b]] += d / a[r + idx[b]];
      }
    });
  });
}

Var attention_entropy(const Var& alpha) {
  const Tensor& av = alpha.value();
  check_alpha(av);
  const std::int64_t B = av.dim(0), m = av.dim(1);
  Tensor ent = Tensor::empty({B}, av.dtype());
  Tensor sums = Tensor::empty({B}, av.dtype());
  dispatch(av.dtype(), [&]<typename T>() {
    for (std::int64_t b = 0; b < B; ++b) {
      const T* a = av.data<T>() + b * m;
      double sum = 0;
      for (std::int64_t j = 0; j < m; ++j) sum += a[j];
      HEED_CHECK(sum > 0, "attention_entropy: row ", b, " of alpha has no weight");
      double h = 0;
      for (std::int64_t j = 0; j < m; ++j)
        if (a[j] > T(0)) {
          const double p = a[j] / sum;
          h -= p * std::log(p);
        }
      sums.data<T>()[b] = static_cast<T>(sum);
      ent.data<T>()[b] = static_cast<T>(h);
    }
  });
  // dH/dalpha_k = -(log pi_k + H) / sum for alpha_k > 0.
  return record_op(ent, {&alpha}, [alpha, sums, ent, m](Var& o) {
    dispatch(o.dtype(), [&]<typename T>() {
      const T* dh = o.grad().data<T>();
      const T* a = alpha.value().data<T>();
      T* da = alpha.grad_buffer().data<T>();
      const std::int64_t B = alpha.value().dim(0);
      for (std::int64_t b = 0; b < B; ++b) {
        const T sum = sums.data<T>()[b], h = ent.data<T>()[b], d = dh[b];
        for (std::int64_t j = 0; j < m; ++j) {
          const T aj = a[b * m + j];
          if (aj > T(0)) da[b * m + j] -= d * (std::log(aj / sum) + h) / sum;
        }
      }
    });
  });
}

}  // namespace heed
