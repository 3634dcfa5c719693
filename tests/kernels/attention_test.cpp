#include "heed/kernels/attention.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "heed/base/random.h"

namespace heed::kernels {
namespace {

template <typename T>
std::vector<T> random_vec(std::size_t n, Rng& rng) {
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(rng.uniform(-1, 1));
  return v;
}

// The additive kernel in float (vectorised fast tanh) against double, at a realistic size.
TEST(AttentionKernel, AdditiveFloatAgreesWithDouble) {
  const std::int64_t B = 8, m = 23, A = 64, dv = 32;
  Rng rng(3);
  auto K = random_vec<double>(B * m * A, rng), H = random_vec<double>(B * m * dv, rng);
  auto wq = random_vec<double>(B * A, rng), v = random_vec<double>(A, rng);
  auto dc = random_vec<double>(B * dv, rng);
  std::vector<std::int64_t> len(B);
  for (std::int64_t b = 0; b < B; ++b) len[b] = 1 + (b * 7) % m;
  auto f = [](const std::vector<double>& d) { return std::vector<float>(d.begin(), d.end()); };
  auto Kf = f(K), Hf = f(H), wqf = f(wq), vf = f(v), dcf = f(dc);

  AttentionStep<double> sd;
  sd.kind = ScoreKind::tanh;
  sd.batch = B, sd.m = m, sd.key_dim = A, sd.value_dim = dv, sd.lengths = len.data();
  sd.K = K.data(), sd.H = H.data(), sd.wq = wq.data(), sd.v = v.data();
  AttentionStep<float> sf;
  sf.kind = ScoreKind::tanh;
  sf.batch = B, sf.m = m, sf.key_dim = A, sf.value_dim = dv, sf.lengths = len.data();
  sf.K = Kf.data(), sf.H = Hf.data(), sf.wq = wqf.data(), sf.v = vf.data();

  std::vector<double> cd(B * dv), ad(B * m), dsd(B * m), dKd(B * m * A, 0), dwqd(B * A);
  std::vector<float> cf(B * dv), af(B * m), dsf(B * m), dKf(B * m * A, 0), dwqf(B * A);
  attention_forward(sd, cd.data(), ad.data());
  attention_forward(sf, cf.data(), af.data());
  for (std::size_t i = 0; i < cd.size(); ++i) EXPECT_NEAR(cf[i], cd[i], 1e-5);
  for (std::size_t i = 0; i < ad.size(); ++i) EXPECT_NEAR(af[i], ad[i], 1e-5);
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t j = len[b]; j < m; ++j) EXPECT_EQ(af[b * m + j], 0.0f);

  AttentionStepGrad<double> gd;
  gd.dcontext = dc.data(), gd.dscore = dsd.data(), gd.dK = dKd.data(), gd.dwq = dwqd.data();
  AttentionStepGrad<float> gf;
  gf.dcontext = dcf.data(), gf.dscore = dsf.data(), gf.dK = dKf.data(), gf.dwq = dwqf.data();
  attention_backward(sd, ad.data(), gd);
  attention_backward(sf, af.data(), gf);
  for (std::size_t i = 0; i < dKd.size(); ++i) EXPECT_NEAR(dKf[i], dKd[i], 1e-5);
  for (std::size_t i = 0; i < dwqd.size(); ++i) EXPECT_NEAR(dwqf[i], dwqd[i], 1e-5);
}

}  // namespace
}  // namespace heed::kernels
