#include "heed/kernels/gru_cell.h"

#include <algorithm>

#include "heed/kernels/fast_math.h"
#include "heed/kernels/gemm.h"
#include "heed/kernels/kernel_table.h"

// Compiled once per kernel set, into that set's namespace (kernel_table.h).
namespace heed::kernels::HEED_KERNEL_ISA {
namespace {

// Below this many state elements a step is too small to be worth waking a second thread.
constexpr std::int64_t kParallelMin = 1 << 14;

// gh (the recurrent projection h W_hh^T, 3H) may be s itself: element j of each block is
// read before it is overwritten.
template <typename T, bool kBias>
void forward_row(std::int64_t H, const T* __restrict x, const T* gh, const T* hp,
                 const T* __restrict bias, T* s, T* ho) {
  T* r = s;
  T* z = s + H;
  T* hn = s + 2 * H;
  T* n = s + 3 * H;
  const T* xr = x;
  const T* xz = x + H;
  const T* xn = x + 2 * H;
#pragma omp simd
  for (std::int64_t j = 0; j < H; ++j) {
    T gr = xr[j] + gh[j], gz = xz[j] + gh[H + j], ghn = gh[2 * H + j];
    if constexpr (kBias) {
      gr += bias[j];
      gz += bias[H + j];
      ghn += bias[2 * H + j];
    }
    const T rj = fast_sigmoid(gr);
    const T zj = fast_sigmoid(gz);
    const T nj = fast_tanh(xn[j] + rj * ghn);
    r[j] = rj;
    z[j] = zj;
    hn[j] = ghn;
    n[j] = nj;
    ho[j] = (T(1) - zj) * nj + zj * hp[j];
  }
}

template <typename T>
void backward_row(std::int64_t H, const T* __restrict hp, const T* __restrict s,
                  T* __restrict dh, T* __restrict dgi, T* __restrict dgh) {
  const T* r = s;
  const T* z = s + H;
  const T* hn = s + 2 * H;
  const T* n = s + 3 * H;
#pragma omp simd
  for (std::int64_t j = 0; j < H; ++j) {
    const T d = dh[j];
    const T dn = d * (T(1) - z[j]) * (T(1) - n[j] * n[j]);
    const T dz = d * (hp[j] - n[j]) * z[j] * (T(1) - z[j]);
    const T dr = dn * hn[j] * r[j] * (T(1) - r[j]);
    dgi[j] = dr;
    dgi[H + j] = dz;
    dgi[2 * H + j] = dn;
    dgh[j] = dr;
    dgh[H + j] = dz;
    dgh[2 * H + j] = dn * r[j];
    dh[j] = d * z[j];
  }
}

}  // namespace

template <typename T>
void gru_gates_forward(std::int64_t rows, std::int64_t H, const T* gi, std::int64_t ld_gi,
                       const T* gh, std::int64_t ld_gh, const T* h, std::int64_t ld_h,
                       const T* b_hh, const std::uint8_t* mask, T* h_out, std::int64_t ld_out,
                       T* save) {
  const std::int64_t S = gru_save_width(H);
#pragma omp parallel for schedule(static) if (rows * H >= kParallelMin)
  for (std::int64_t b = 0; b < rows; ++b) {
    const T* hp = h + b * ld_h;
    T* ho = h_out + b * ld_out;
    if (mask && !mask[b]) {
      if (ho != hp) std::copy(hp, hp + H, ho);
      continue;
    }
    if (b_hh)
      forward_row<T, true>(H, gi + b * ld_gi, gh + b * ld_gh, hp, b_hh, save + b * S, ho);
    else
      forward_row<T, false>(H, gi + b * ld_gi, gh + b * ld_gh, hp, nullptr, save + b * S, ho);
  }
}

template <typename T>
void gru_step_forward(const GemmOptions& options, std::int64_t rows, std::int64_t H, const T* gi,
                      std::int64_t ld_gi, const T* h, std::int64_t ld_h, const T* w_hh,
                      const T* b_hh, const std::uint8_t* mask, T* h_out, std::int64_t ld_out,
                      T* save) {
  if (rows == 0) return;
  const std::int64_t S = gru_save_width(H);
  // gh = h W_hh^T lands in the first 3H columns of save; the gate pass turns it into
  // [r | z | hn] in place and appends n.
  gemm<T>(options, false, true, rows, 3 * H, H, T(1), h, ld_h, w_hh, H, T(0), save, S);
  gru_gates_forward<T>(rows, H, gi, ld_gi, save, S, h, ld_h, b_hh, mask, h_out, ld_out, save);
}

template <typename T>
void gru_gates_backward(std::int64_t rows, std::int64_t H, const T* h, std::int64_t ld_h,
                        const std::uint8_t* mask, const T* save, T* dh, std::int64_t ld_dh,
                        T* dgi, std::int64_t ld_dgi, T* dgh, std::int64_t ld_dgh) {
  const std::int64_t S = gru_save_width(H), G = 3 * H;
#pragma omp parallel for schedule(static) if (rows * H >= kParallelMin)
  for (std::int64_t b = 0; b < rows; ++b) {
    T* gi_row = dgi + b * ld_dgi;
    T* gh_row = dgh + b * ld_dgh;
    if (mask && !mask[b]) {
      std::fill(gi_row, gi_row + G, T(0));
      std::fill(gh_row, gh_row + G, T(0));
      continue;
    }
    backward_row<T>(H, h + b * ld_h, save + b * S, dh + b * ld_dh, gi_row, gh_row);
  }
}

template <typename T>
void gru_step_backward(const GemmOptions& options, std::int64_t rows, std::int64_t H, const T* h,
                       std::int64_t ld_h, const T* w_hh, const std::uint8_t* mask, const T* save,
                       T* dh, std::int64_t ld_dh, T* dgi, std::int64_t ld_dgi, T* dgh) {
  if (rows == 0) return;
  const std::int64_t G = 3 * H;
  gru_gates_backward<T>(rows, H, h, ld_h, mask, save, dh, ld_dh, dgi, ld_dgi, dgh, G);
  // dh += dgh W_hh: the path through the recurrent projection (zero rows add nothing).
  gemm<T>(options, false, false, rows, H, G, T(1), dgh, G, w_hh, H, T(1), dh, ld_dh);
}

#define HEED_INSTANTIATE(T)                                                                        \
  template void gru_gates_forward<T>(std::int64_t, std::int64_t, const T*, std::int64_t, const T*, \
                                     std::int64_t, const T*, std::int64_t, const T*,               \
                                     const std::uint8_t*, T*, std::int64_t, T*);                   \
  template void gru_gates_backward<T>(std::int64_t, std::int64_t, const T*, std::int64_t,          \
                                      const std::uint8_t*, const T*, T*, std::int64_t, T*,         \
                                      std::int64_t, T*, std::int64_t);                             \
  template void gru_step_forward<T>(const GemmOptions&, std::int64_t, std::int64_t, const T*,      \
                                    std::int64_t, const T*, std::int64_t, const T*, const T*,      \
                                    const std::uint8_t*, T*, std::int64_t, T*);                    \
  template void gru_step_backward<T>(const GemmOptions&, std::int64_t, std::int64_t, const T*,     \
                                     std::int64_t, const T*, const std::uint8_t*, const T*, T*,    \
                                     std::int64_t, T*, std::int64_t, T*);
HEED_INSTANTIATE(float)
HEED_INSTANTIATE(double)
#undef HEED_INSTANTIATE

}  // namespace heed::kernels::HEED_KERNEL_ISA
