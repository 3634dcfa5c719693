#include "heed/kernels/lstm_cell.h"

#include <algorithm>

#include "heed/kernels/fast_math.h"
#include "heed/kernels/gemm.h"
#include "heed/kernels/kernel_table.h"

// Compiled once per kernel set, into that set's namespace (kernel_table.h).
namespace heed::kernels::HEED_KERNEL_ISA {
namespace {

// Below this many state elements a step is too small to be worth waking a second thread.
constexpr std::int64_t kParallelMin = 1 << 14;

template <typename T, bool kBias>
void forward_row(std::int64_t H, const T* __restrict x, const T* cp, const T* __restrict bias,
                 T* __restrict s, T* ho, T* co) {
#pragma omp simd
  for (std::int64_t j = 0; j < H; ++j) {
    T pi = x[j] + s[j], pf = x[H + j] + s[H + j], pg = x[2 * H + j] + s[2 * H + j],
      po = x[3 * H + j] + s[3 * H + j];
    if constexpr (kBias) {
      pi += bias[j];
      pf += bias[H + j];
      pg += bias[2 * H + j];
      po += bias[3 * H + j];
    }
    const T i = fast_sigmoid(pi), f = fast_sigmoid(pf), g = fast_tanh(pg),
            o = fast_sigmoid(po);
    const T c = f * cp[j] + i * g;
    const T tc = fast_tanh(c);
    s[j] = i;
    s[H + j] = f;
    s[2 * H + j] = g;
    s[3 * H + j] = o;
    s[4 * H + j] = tc;
    co[j] = c;
    ho[j] = o * tc;
  }
}

template <typename T>
void backward_row(std::int64_t H, const T* __restrict cp, const T* __restrict s,
                  T* __restrict dh, T* __restrict dc, T* __restrict dg) {
  const T* ig = s;
  const T* fg = s + H;
  const T* gg = s + 2 * H;
  const T* og = s + 3 * H;
  const T* tc = s + 4 * H;
#pragma omp simd
  for (std::int64_t j = 0; j < H; ++j) {
    const T i = ig[j], f = fg[j], g = gg[j], o = og[j], t = tc[j];
    const T d = dh[j];
    const T dct = dc[j] + d * o * (T(1) - t * t);
    dg[j] = dct * g * i * (T(1) - i);
    dg[H + j] = dct * cp[j] * f * (T(1) - f);
    dg[2 * H + j] = dct * i * (T(1) - g * g);
    dg[3 * H + j] = d * t * o * (T(1) - o);
    dc[j] = dct * f;
    dh[j] = T(0);  // h reaches h' only through the recurrent GEMM, added below
  }
}

}  // namespace

template <typename T>
void lstm_step_forward(const GemmOptions& options, std::int64_t rows, std::int64_t H, const T* gi,
                       std::int64_t ld_gi, const T* h, std::int64_t ld_h, const T* c,
                       std::int64_t ld_c, const T* w_hh, const T* b_hh, const std::uint8_t* mask,
                       T* h_out, std::int64_t ld_h_out, T* c_out, std::int64_t ld_c_out, T* save) {
  if (rows == 0) return;
  const std::int64_t S = lstm_save_width(H);
  // gh = h W_hh^T lands in the first 4H columns of save; the gate pass turns it into the
  // activations in place and appends tanh(c').
  gemm<T>(options, false, true, rows, 4 * H, H, T(1), h, ld_h, w_hh, H, T(0), save, S);
#pragma omp parallel for schedule(static) if (rows * H >= kParallelMin)
  for (std::int64_t b = 0; b < rows; ++b) {
    const T* hp = h + b * ld_h;
    const T* cp = c + b * ld_c;
    T* ho = h_out + b * ld_h_out;
    T* co = c_out + b * ld_c_out;
    if (mask && !mask[b]) {
      if (ho != hp) std::copy(hp, hp + H, ho);
      if (co != cp) std::copy(cp, cp + H, co);
      continue;
    }
    if (b_hh)
      forward_row<T, true>(H, gi + b * ld_gi, cp, b_hh, save + b * S, ho, co);
    else
      forward_row<T, false>(H, gi + b * ld_gi, cp, nullptr, save + b * S, ho, co);
  }
}

template <typename T>
void lstm_step_backward(const GemmOptions& options, std::int64_t rows, std::int64_t H, const T* c,
                        std::int64_t ld_c, const T* w_hh, const std::uint8_t* mask, const T* save,
                        T* dh, std::int64_t ld_dh, T* dc, std::int64_t ld_dc, T* dgates,
                        std::int64_t ld_dgates) {
  if (rows == 0) return;
  const std::int64_t S = lstm_save_width(H), G = 4 * H;
#pragma omp parallel for schedule(static) if (rows * H >= kParallelMin)
  for (std::int64_t b = 0; b < rows; ++b) {
    T* dg = dgates + b * ld_dgates;
    if (mask && !mask[b]) {
      std::fill(dg, dg + G, T(0));
      continue;
    }
    backward_row<T>(H, c + b * ld_c, save + b * S, dh + b * ld_dh, dc + b * ld_dc, dg);
  }
  // dh += dgates W_hh (zero rows of masked rows add nothing).
  gemm<T>(options, false, false, rows, H, G, T(1), dgates, ld_dgates, w_hh, H, T(1), dh, ld_dh);
}

#define HEED_INSTANTIATE(T)                                                                        \
  template void lstm_step_forward<T>(const GemmOptions&, std::int64_t, std::int64_t, const T*,     \
                                     std::int64_t, const T*, std::int64_t, const T*, std::int64_t, \
                                     const T*, const T*, const std::uint8_t*, T*, std::int64_t,    \
                                     T*, std::int64_t, T*);                                        \
  template void lstm_step_backward<T>(const GemmOptions&, std::int64_t, std::int64_t, const T*,    \
                                      std::int64_t, const T*, const std::uint8_t*, const T*, T*,   \
                                      std::int64_t, T*, std::int64_t, T*, std::int64_t);
HEED_INSTANTIATE(float)
HEED_INSTANTIATE(double)
#undef HEED_INSTANTIATE

}  // namespace heed::kernels::HEED_KERNEL_ISA
