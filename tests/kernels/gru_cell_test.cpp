#include "heed/kernels/gru_cell.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "autograd/rnn_reference.h"
#include "heed/base/random.h"

namespace heed {
namespace {

std::vector<double> random_values(std::size_t n, std::uint64_t seed, double scale = 1.0) {
  Rng rng(seed);
  std::vector<double> v(n);
  for (auto& x : v) x = rng.uniform(-scale, scale);
  return v;
}

template <typename T>
std::vector<T> cast(const std::vector<double>& v) {
  return std::vector<T>(v.begin(), v.end());
}

// Forward of the float kernel against the naive double cell, with a mask and strided rows.
template <typename T>
void check_forward(double tol) {
  const std::int64_t B = 5, H = 7, in = 4, G = 3 * H, ld_gi = G + 3, ld_h = H + 2;
  testing::RefWeights w{random_values(G * in, 1), random_values(G * H, 2),
                        random_values(G, 3), random_values(G, 4)};
  std::vector<double> x = random_values(B * in, 5, 2.0), h = random_values(B * H, 6);
  std::vector<T> gi(B * ld_gi), hp(B * ld_h), out(B * H), save(B * 4 * H);
  for (std::int64_t b = 0; b < B; ++b) {
    for (std::int64_t g = 0; g < G; ++g) {
      double a = w.b_ih[g];
      for (std::int64_t k = 0; k < in; ++k) a += w.w_ih[g * in + k] * x[b * in + k];
      gi[b * ld_gi + g] = static_cast<T>(a);
    }
    for (std::int64_t j = 0; j < H; ++j) hp[b * ld_h + j] = static_cast<T>(h[b * H + j]);
  }
  std::vector<T> w_hh = cast<T>(w.w_hh), b_hh = cast<T>(w.b_hh);
  const std::vector<std::uint8_t> mask{1, 0, 1, 1, 0};
  kernels::gru_step_forward<T>({}, B, H, gi.data(), ld_gi, hp.data(), ld_h, w_hh.data(),
                               b_hh.data(), mask.data(), out.data(), H, save.data());
  for (std::int64_t b = 0; b < B; ++b) {
    std::vector<double> hb(h.begin() + b * H, h.begin() + (b + 1) * H), cb;
    if (mask[b]) testing::ref_step(false, w, in, H, x.data() + b * in, hb, cb);
    for (std::int64_t j = 0; j < H; ++j) {
      if (mask[b])
        EXPECT_NEAR(out[b * H + j], hb[j], tol) << b << "," << j;
      else
        EXPECT_EQ(out[b * H + j], hp[b * ld_h + j]) << "masked row carries its state";
    }
  }
}

TEST(GruStepKernel, ForwardMatchesNaiveCellFloat) { check_forward<float>(2e-6); }
TEST(GruStepKernel, ForwardMatchesNaiveCellDouble) { check_forward<double>(1e-12); }

TEST(GruStepKernel, NoBiasAndInPlaceState) {
  const std::int64_t B = 3, H = 4, G = 3 * H;
  std::vector<double> gi = random_values(B * G, 7), h = random_values(B * H, 8),
                      w = random_values(G * H, 9);
  std::vector<double> out(B * H), save(B * 4 * H), hh = h;
  kernels::gru_step_forward<double>({}, B, H, gi.data(), G, h.data(), H, w.data(), nullptr, nullptr,
                                    out.data(), H, save.data());
  kernels::gru_step_forward<double>({}, B, H, gi.data(), G, hh.data(), H, w.data(), nullptr,
                                    nullptr, hh.data(), H, save.data());
  for (std::int64_t k = 0; k < B * H; ++k) EXPECT_DOUBLE_EQ(hh[k], out[k]);
}

TEST(GruStepKernel, BackwardPassesMaskedRowsThrough) {
  const std::int64_t B = 2, H = 3, G = 3 * H;
  std::vector<double> gi = random_values(B * G, 10), h = random_values(B * H, 11),
                      w = random_values(G * H, 12), b = random_values(G, 13);
  std::vector<double> out(B * H), save(B * 4 * H), dgi(B * G, 5.0), dgh(B * G, 5.0);
  const std::vector<std::uint8_t> mask{0, 1};
  kernels::gru_step_forward<double>({}, B, H, gi.data(), G, h.data(), H, w.data(), b.data(),
                                    mask.data(), out.data(), H, save.data());
  std::vector<double> dh = random_values(B * H, 14), dh_in = dh;
  kernels::gru_step_backward<double>({}, B, H, h.data(), H, w.data(), mask.data(), save.data(),
                                     dh.data(), H, dgi.data(), G, dgh.data());
  for (std::int64_t j = 0; j < H; ++j) EXPECT_EQ(dh[j], dh_in[j]);
  for (std::int64_t g = 0; g < G; ++g) {
    EXPECT_EQ(dgi[g], 0.0);
    EXPECT_EQ(dgh[g], 0.0);
  }
  // The active row got a real gradient.
  double s = 0;
  for (std::int64_t g = 0; g < G; ++g) s += std::abs(dgi[G + g]);
  EXPECT_GT(s, 0.0);
}

}  // namespace
}  // namespace heed
