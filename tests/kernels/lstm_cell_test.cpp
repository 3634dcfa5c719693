#include "heed/kernels/lstm_cell.h"

#include <gtest/gtest.h>

#include <cmath>
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

// Forward of the kernel against the naive double cell, with a mask and strided rows.
template <typename T>
void check_forward(double tol) {
  const std::int64_t B = 5, H = 6, in = 3, G = 4 * H, ld_gi = G + 1, ld_s = H + 3;
  testing::RefWeights w{random_values(G * in, 1), random_values(G * H, 2),
                        random_values(G, 3), random_values(G, 4)};
  std::vector<double> x = random_values(B * in, 5, 2.0), h = random_values(B * H, 6),
                      c = random_values(B * H, 7, 2.0);
  std::vector<T> gi(B * ld_gi), hp(B * ld_s), cp(B * ld_s), ho(B * H), co(B * H),
      save(B * 5 * H);
  for (std::int64_t b = 0; b < B; ++b) {
    for (std::int64_t g = 0; g < G; ++g) {
      double a = w.b_ih[g];
      for (std::int64_t k = 0; k < in; ++k) a += w.w_ih[g * in + k] * x[b * in + k];
      gi[b * ld_gi + g] = static_cast<T>(a);
    }
    for (std::int64_t j = 0; j < H; ++j) {
      hp[b * ld_s + j] = static_cast<T>(h[b * H + j]);
      cp[b * ld_s + j] = static_cast<T>(c[b * H + j]);
    }
  }
  std::vector<T> w_hh(w.w_hh.begin(), w.w_hh.end()), b_hh(w.b_hh.begin(), w.b_hh.end());
  const std::vector<std::uint8_t> mask{1, 1, 0, 1, 0};
  kernels::lstm_step_forward<T>({}, B, H, gi.data(), ld_gi, hp.data(), ld_s, cp.data(), ld_s,
                                w_hh.data(), b_hh.data(), mask.data(), ho.data(), H, co.data(), H,
                                save.data());
  for (std::int64_t b = 0; b < B; ++b) {
    std::vector<double> hb(h.begin() + b * H, h.begin() + (b + 1) * H),
        cb(c.begin() + b * H, c.begin() + (b + 1) * H);
    if (mask[b]) testing::ref_step(true, w, in, H, x.data() + b * in, hb, cb);
    for (std::int64_t j = 0; j < H; ++j) {
      if (mask[b]) {
        EXPECT_NEAR(ho[b * H + j], hb[j], tol) << b << "," << j;
        EXPECT_NEAR(co[b * H + j], cb[j], tol) << b << "," << j;
      } else {
        EXPECT_EQ(ho[b * H + j], hp[b * ld_s + j]) << "masked row carries h";
        EXPECT_EQ(co[b * H + j], cp[b * ld_s + j]) << "masked row carries c";
      }
    }
  }
}

TEST(LstmStepKernel, ForwardMatchesNaiveCellFloat) { check_forward<float>(2e-6); }
TEST(LstmStepKernel, ForwardMatchesNaiveCellDouble) { check_forward<double>(1e-12); }

TEST(LstmStepKernel, BackwardPassesMaskedRowsThrough) {
  const std::int64_t B = 2, H = 3, G = 4 * H;
  std::vector<double> gi = random_values(B * G, 10), h = random_values(B * H, 11),
                      c = random_values(B * H, 12), w = random_values(G * H, 13);
  std::vector<double> ho(B * H), co(B * H), save(B * 5 * H), dg(B * G, 5.0);
  const std::vector<std::uint8_t> mask{1, 0};
  kernels::lstm_step_forward<double>({}, B, H, gi.data(), G, h.data(), H, c.data(), H, w.data(),
                                     nullptr, mask.data(), ho.data(), H, co.data(), H, save.data());
  std::vector<double> dh = random_values(B * H, 14), dc = random_values(B * H, 15);
  std::vector<double> dh_in = dh, dc_in = dc;
  kernels::lstm_step_backward<double>({}, B, H, c.data(), H, w.data(), mask.data(), save.data(),
                                      dh.data(), H, dc.data(), H, dg.data(), G);
  for (std::int64_t j = 0; j < H; ++j) {
    EXPECT_EQ(dh[H + j], dh_in[H + j]);
    EXPECT_EQ(dc[H + j], dc_in[H + j]);
  }
  for (std::int64_t g = 0; g < G; ++g) EXPECT_EQ(dg[G + g], 0.0);
}

}  // namespace
}  // namespace heed
