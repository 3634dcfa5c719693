#include "heed/autograd/attention_op.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <vector>

#include "heed/autograd/matmul.h"
#include "heed/autograd/tape.h"
#include "support/gradcheck.h"

namespace heed {
namespace {
using testing::all_close;
using testing::gradcheck;
using testing::random_var;

constexpr std::int64_t B = 3, M = 5, DQ = 4, DK = 3, A = 6, MAXLEN = 7;
const std::vector<std::int64_t> kLengths{5, 3, 1};  // padded batch: rows of different lengths

// Every parameter any score uses, PyTorch layouts, random double values.
struct Params {
  Var q = random_var({B, DQ}, 11);
  Var H = random_var({B, M, DK}, 12);
  Var Hsq = random_var({B, M, DQ}, 13);   // values for dot scores (dk = dq)
  Var W_q = random_var({A, DQ}, 14);      // mlp
  Var U_h = random_var({A, DK}, 15);
  Var b = random_var({A}, 16);
  Var v = random_var({1, A}, 17);
  Var W_gen = random_var({DQ, DK}, 18);   // general: Linear(dk, dq)
  Var W_cat = random_var({A, DQ + DK}, 19);  // concat
  Var v_a = random_var({1, A}, 20);
  Var W_loc = random_var({MAXLEN, DQ}, 21, -2, 2);  // location
  Var W_p = random_var({DQ, DQ}, 22, -2, 2);
  Var v_p = random_var({1, DQ}, 23, -2, 2);
};

const Var& values(AttentionScore s, const Params& P) {
  return (s == AttentionScore::dot || s == AttentionScore::scaled_dot) ? P.Hsq : P.H;
}

Var keys(AttentionScore s, const Params& P) {
  switch (s) {
    case AttentionScore::dot:
    case AttentionScore::scaled_dot: return P.Hsq;
    case AttentionScore::general: return linear(P.H, P.W_gen);
    case AttentionScore::concat: return linear_columns(P.H, P.W_cat, DQ);
    case AttentionScore::mlp: return linear(P.H, P.U_h, P.b);
    case AttentionScore::location: return Var();
  }
  return Var();
}

AttentionWeights weights(AttentionScore s, const Params& P, double window) {
  AttentionWeights w;
  if (s == AttentionScore::mlp) w.W = P.W_q, w.v = P.v;
  if (s == AttentionScore::concat) w.W = P.W_cat, w.v = P.v_a;
  if (s == AttentionScore::location) w.W = P.W_loc;
  if (window > 0) w.W_p = P.W_p, w.v_p = P.v_p, w.window = window;
  return w;
}

std::vector<Var> inputs(AttentionScore s, const Params& P, bool local) {
  std::vector<Var> in{P.q, values(s, P)};
  if (s == AttentionScore::general) in.push_back(P.W_gen);
  if (s == AttentionScore::concat) in.insert(in.end(), {P.W_cat, P.v_a});
  if (s == AttentionScore::mlp) in.insert(in.end(), {P.W_q, P.U_h, P.b, P.v});
  if (s == AttentionScore::location) in.push_back(P.W_loc);
  if (local) in.insert(in.end(), {P.W_p, P.v_p});
  return in;
}

// The score of position j of row b, literally (docs/MODELS.md#attention-scores), in double:
// one per score of the registry (AttentionScores.EveryScoreHasANaiveForward checks the count).
using NaiveScore = double (*)(const Params& P, const Tensor& q, const Tensor& H, std::int64_t b,
                              std::int64_t j);
const std::map<AttentionScore, NaiveScore> kNaiveScores = {
    {AttentionScore::dot,
     [](const Params&, const Tensor& q, const Tensor& H, std::int64_t b, std::int64_t j) {
       double sc = 0;
       for (std::int64_t i = 0; i < DQ; ++i) sc += q.at({b, i}) * H.at({b, j, i});
       return sc;
     }},
    {AttentionScore::scaled_dot,
     [](const Params&, const Tensor& q, const Tensor& H, std::int64_t b, std::int64_t j) {
       double sc = 0;
       for (std::int64_t i = 0; i < DQ; ++i) sc += q.at({b, i}) * H.at({b, j, i});
       return sc / std::sqrt(double(DQ));
     }},
    {AttentionScore::general,  // q^T W_a h_j
     [](const Params& P, const Tensor& q, const Tensor& H, std::int64_t b, std::int64_t j) {
       double sc = 0;
       for (std::int64_t i = 0; i < DQ; ++i)
         for (std::int64_t k = 0; k < DK; ++k)
           sc += q.at({b, i}) * P.W_gen.value().at({i, k}) * H.at({b, j, k});
       return sc;
     }},
    {AttentionScore::concat,  // v_a^T tanh(W_a [q; h_j])
     [](const Params& P, const Tensor& q, const Tensor& H, std::int64_t b, std::int64_t j) {
       double sc = 0;
       for (std::int64_t a = 0; a < A; ++a) {
         double z = 0;
         for (std::int64_t i = 0; i < DQ; ++i) z += P.W_cat.value().at({a, i}) * q.at({b, i});
         for (std::int64_t k = 0; k < DK; ++k)
           z += P.W_cat.value().at({a, DQ + k}) * H.at({b, j, k});
         sc += P.v_a.value().at({0, a}) * std::tanh(z);
       }
       return sc;
     }},
    {AttentionScore::mlp,  // v^T tanh(W_q q + U_h h_j + b)
     [](const Params& P, const Tensor& q, const Tensor& H, std::int64_t b, std::int64_t j) {
       double sc = 0;
       for (std::int64_t a = 0; a < A; ++a) {
         double z = P.b.value().at({a});
         for (std::int64_t i = 0; i < DQ; ++i) z += P.W_q.value().at({a, i}) * q.at({b, i});
         for (std::int64_t k = 0; k < DK; ++k) z += P.U_h.value().at({a, k}) * H.at({b, j, k});
         sc += P.v.value().at({0, a}) * std::tanh(z);
       }
       return sc;
     }},
    {AttentionScore::location,  // (W_a q)_j
     [](const Params& P, const Tensor& q, const Tensor&, std::int64_t b, std::int64_t j) {
       double sc = 0;
       for (std::int64_t i = 0; i < DQ; ++i) sc += P.W_loc.value().at({j, i}) * q.at({b, i});
       return sc;
     }},
};

// docs/MODELS.md#attention-scores and #local-p-attention, literally, one position at a
// time, in double.
struct Naive {
  std::vector<double> context, alpha;  // (B, dk), (B, m)
};

Naive naive(AttentionScore s, const Params& P, double D) {
  const Tensor& H = values(s, P).value();
  const Tensor& q = P.q.value();
  const std::int64_t dk = H.dim(2);
  const NaiveScore score_of = kNaiveScores.at(s);
  Naive out{std::vector<double>(B * dk, 0.0), std::vector<double>(B * M, 0.0)};
  for (std::int64_t b = 0; b < B; ++b) {
    const std::int64_t S = kLengths[b];
    std::vector<double> score(M, -std::numeric_limits<double>::infinity());
    for (std::int64_t j = 0; j < S; ++j) score[j] = score_of(P, q, H, b, j);
    double p = 0;
    if (D > 0) {
      double u = 0;
      for (std::int64_t i = 0; i < DQ; ++i) {
        double t = 0;
        for (std::int64_t k = 0; k < DQ; ++k) t += P.W_p.value().at({i, k}) * q.at({b, k});
        u += P.v_p.value().at({0, i}) * std::tanh(t);
      }
      p = double(S) / (1 + std::exp(-u));
      for (std::int64_t j = 0; j < S; ++j)
        if (std::abs(double(j + 1) - p) > D) score[j] = -std::numeric_limits<double>::infinity();
    }
    double mx = -std::numeric_limits<double>::infinity(), sum = 0;
    for (double x : score) mx = std::max(mx, x);
    for (double x : score) sum += std::exp(x - mx);
    for (std::int64_t j = 0; j < M; ++j) {
      double a = std::exp(score[j] - mx) / sum;
      if (D > 0) {
        const double d = double(j + 1) - p, sigma = D / 2;
        a *= std::exp(-d * d / (2 * sigma * sigma));
      }
      out.alpha[b * M + j] = a;
      for (std::int64_t k = 0; k < dk; ++k) out.context[b * dk + k] += a * H.at({b, j, k});
    }
  }
  return out;
}

// [context, alpha] side by side, so one gradient check seeds both outputs at once.
Var join(const Var& c, const Var& a) {
  const std::int64_t dk = c.dim(1), m = a.dim(1);
  Tensor y = Tensor::empty({B, dk + m}, DType::f64);
  for (std::int64_t b = 0; b < B; ++b) {
    for (std::int64_t k = 0; k < dk; ++k) y.set({b, k}, c.value().at({b, k}));
    for (std::int64_t j = 0; j < m; ++j) y.set({b, dk + j}, a.value().at({b, j}));
  }
  return record_op(y, {&c, &a}, [c, a, dk, m](Var& o) {
    for (std::int64_t b = 0; b < B; ++b) {
      for (std::int64_t k = 0; k < dk; ++k)
        c.grad_buffer().set({b, k}, c.grad_buffer().at({b, k}) + o.grad().at({b, k}));
      for (std::int64_t j = 0; j < m; ++j)
        a.grad_buffer().set({b, j}, a.grad_buffer().at({b, j}) + o.grad().at({b, dk + j}));
    }
  });
}

// Every score of the registry.
std::vector<AttentionScore> all_scores() {
  std::vector<AttentionScore> out;
  for (const ScoreSpec& e : attention_scores()) out.push_back(e.score);
  return out;
}
const std::vector<AttentionScore> kScores = all_scores();

AttentionResult run(AttentionScore s, const Params& P, double window) {
  return attention_step(s, P.q, keys(s, P), values(s, P), kLengths, weights(s, P, window));
}

void expect_matches_naive(AttentionScore s, double window) {
  Params P;
  AttentionResult r = run(s, P, window);
  Naive n = naive(s, P, window);
  const std::int64_t dk = values(s, P).dim(2);
  EXPECT_TRUE(all_close(r.context.value(), Tensor::from({B, dk}, n.context, DType::f64), 1e-12,
                        1e-10))
      << attention_score_name(s) << " window " << window;
  EXPECT_TRUE(all_close(r.alpha.value(), Tensor::from({B, M}, n.alpha, DType::f64), 1e-12, 1e-10))
      << attention_score_name(s) << " window " << window;
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t j = kLengths[b]; j < M; ++j)
      EXPECT_EQ(r.alpha.value().at({b, j}), 0.0) << "padding must get exactly 0 weight";
}

TEST(AttentionStep, GlobalMatchesNaiveLoops) {
  for (AttentionScore s : kScores) expect_matches_naive(s, 0);
}

TEST(AttentionStep, LocalPMatchesNaiveLoops) {
  for (AttentionScore s : kScores)
    for (double D : {1.0, 2.0}) expect_matches_naive(s, D);
}

TEST(AttentionStep, LocalPWindowCutsRealPositions) {
  // D = 1 keeps at most 3 of row 0's 5 real positions; the rest get exactly 0, and the row
  // is not renormalised after the Gaussian.
  Params P;
  AttentionResult r = run(AttentionScore::mlp, P, 1);
  int zeros = 0;
  double sum = 0;
  for (std::int64_t j = 0; j < M; ++j) {
    zeros += r.alpha.value().at({0, j}) == 0.0;
    sum += r.alpha.value().at({0, j});
  }
  EXPECT_GE(zeros, 2);
  EXPECT_LT(sum, 1.0);
}

TEST(AttentionStep, GlobalRowsSumToOne) {
  Params P;
  AttentionResult r = run(AttentionScore::mlp, P, 0);
  for (std::int64_t b = 0; b < B; ++b) {
    double sum = 0;
    for (std::int64_t j = 0; j < M; ++j) sum += r.alpha.value().at({b, j});
    EXPECT_NEAR(sum, 1.0, 1e-12);
  }
}

TEST(AttentionStep, GradientCheckGlobal) {
  for (AttentionScore s : kScores) {
    Params P;
    EXPECT_TRUE(gradcheck(
        [&] {
          AttentionResult r = run(s, P, 0);
          return join(r.context, r.alpha);
        },
        inputs(s, P, false)))
        << attention_score_name(s);
  }
}

TEST(AttentionStep, GradientCheckLocalP) {
  for (AttentionScore s : kScores)
    for (double D : {1.0, 2.0}) {
      Params P;
      EXPECT_TRUE(gradcheck(
          [&] {
            AttentionResult r = run(s, P, D);
            return join(r.context, r.alpha);
          },
          inputs(s, P, true)))
          << attention_score_name(s) << " D " << D;
    }
}

TEST(AttentionStep, GradientCheckEachOutputAlone) {
  Params P;
  EXPECT_TRUE(gradcheck([&] { return run(AttentionScore::mlp, P, 0).context; },
                        inputs(AttentionScore::mlp, P, false)));
  EXPECT_TRUE(gradcheck([&] { return run(AttentionScore::concat, P, 2).alpha; },
                        inputs(AttentionScore::concat, P, true)));
}

TEST(AttentionStep, GradientCheckIndependentKeys) {
  // Keys given directly (not through a projection): the fused backward's dK on its own.
  Params P;
  Var K = random_var({B, M, A}, 31);
  AttentionWeights w = weights(AttentionScore::mlp, P, 0);
  EXPECT_TRUE(gradcheck(
      [&] {
        AttentionResult r = attention_step(AttentionScore::mlp, P.q, K, P.H, kLengths, w);
        return join(r.context, r.alpha);
      },
      {P.q, K, P.H, P.W_q, P.v}));
}

TEST(AttentionStep, LocationRejectsSourceLongerThanMaxLen) {
  Params P;
  Var H = random_var({B, MAXLEN + 1, DK}, 40);
  std::vector<std::int64_t> len{MAXLEN + 1, 2, 1};
  EXPECT_THROW(attention_step(AttentionScore::location, P.q, Var(), H, len,
                              weights(AttentionScore::location, P, 0)),
               Error);
}

TEST(AttentionStep, DotRejectsMismatchedSizes) {
  Params P;  // q is (B, 4), H (B, m, 3)
  EXPECT_THROW(attention_step(AttentionScore::dot, P.q, P.H, P.H, kLengths, {}), Error);
}

TEST(AttentionStep, RejectsBadLengths) {
  Params P;
  std::vector<std::int64_t> zero{5, 0, 1}, too_long{6, 1, 1}, too_few{5, 1};
  for (const auto& len : {zero, too_long, too_few})
    EXPECT_THROW(attention_step(AttentionScore::dot, P.q, P.Hsq, P.Hsq, len, {}), Error);
}

TEST(AttentionStep, NoGradRecordsNothing) {
  Params P;
  Tape::current().clear();
  NoGradGuard g;
  AttentionResult r = run(AttentionScore::mlp, P, 2);
  EXPECT_FALSE(r.context.requires_grad());
  EXPECT_EQ(Tape::current().size(), 0u);
}

TEST(AttentionStep, FloatMatchesDouble) {
  Params P;
  for (AttentionScore s : kScores)
    for (double D : {0.0, 2.0}) {
      AttentionResult r = run(s, P, D);
      auto f = [](const Var& v) { return Var(v.value().to(DType::f32)); };
      AttentionWeights w = weights(s, P, D);
      AttentionWeights wf{w.W.defined() ? f(w.W) : Var(), w.v.defined() ? f(w.v) : Var(),
                          w.W_p.defined() ? f(w.W_p) : Var(), w.v_p.defined() ? f(w.v_p) : Var(),
                          D};
      Var K = keys(s, P);
      AttentionResult rf = attention_step(s, f(P.q), K.defined() ? f(K) : Var(),
                                          f(values(s, P)), kLengths, wf);
      EXPECT_TRUE(all_close(rf.context.value().to(DType::f64), r.context.value(), 1e-5, 1e-4))
          << attention_score_name(s);
      EXPECT_TRUE(all_close(rf.alpha.value().to(DType::f64), r.alpha.value(), 1e-5, 1e-4))
          << attention_score_name(s);
    }
}

TEST(LinearColumns, GradientCheck) {
  Var x = random_var({2, 3, 4}, 1), W = random_var({5, 9}, 2);
  EXPECT_TRUE(gradcheck([&] { return linear_columns(x, W, 3); }, {x, W}));
  EXPECT_THROW(linear_columns(x, W, 6), Error);
}

// A new registry entry without a naive forward (and so without the tests above) fails here.
TEST(AttentionScores, EveryScoreHasANaiveForward) {
  EXPECT_EQ(attention_scores().size(), kNaiveScores.size());
  for (AttentionScore s : kScores)
    EXPECT_TRUE(kNaiveScores.contains(s)) << attention_score_name(s) << " has no naive forward";
}

// score_spec indexes the registry by the enum: one entry per value, in its order.
TEST(AttentionScores, OneEntryPerScoreInTheEnumsOrder) {
  for (std::size_t i = 0; i < attention_scores().size(); ++i) {
    const ScoreSpec& e = attention_scores()[i];
    EXPECT_EQ(static_cast<std::size_t>(e.score), i) << attention_score_name(e.score);
    EXPECT_EQ(&score_spec(e.score), &e);
    EXPECT_NE(e.check, nullptr) << attention_score_name(e.score);
    EXPECT_EQ(e.keys == ScoreKeys::none, e.kind == kernels::ScoreKind::logits)
        << attention_score_name(e.score) << ": only the logits form reads no keys";
    EXPECT_EQ(e.key_param >= 0,
              e.keys == ScoreKeys::linear || e.keys == ScoreKeys::key_columns)
        << attention_score_name(e.score);
    for (int p : {e.key_param, e.weight_param, e.vector_param})
      EXPECT_LT(p, static_cast<int>(e.params.size())) << attention_score_name(e.score);
  }
}

TEST(AttentionScoreNames, RoundTripAndReject) {
  for (AttentionScore s : kScores) EXPECT_EQ(attention_score_from_name(attention_score_name(s)), s);
  EXPECT_EQ(attention_score_from_name("additive"), AttentionScore::mlp);
  EXPECT_THROW(attention_score_from_name("cosine"), Error);
}

// ---- the per-step key term (location features) and the window (windowed decoding)

// The keys plus the term, the term added on the tape: the reference for the kernel's own sum.
TEST(AttentionStepKeyTerm, EqualsKeysPlusTheTerm) {
  for (AttentionScore s : {AttentionScore::mlp, AttentionScore::concat}) {
    Params P;
    Var F = random_var({B, M, A}, 41);
    AttentionStepExtras extras;
    extras.key_term = F;
    const Var K = keys(s, P);
    AttentionResult with = attention_step(s, P.q, K, P.H, kLengths, weights(s, P, 0),
                                          kernels::MatmulPrecision::f32, extras);
    Var KF(Tensor::empty({B, M, A}, DType::f64));
    for (std::int64_t i = 0; i < B * M * A; ++i)
      KF.value().data<double>()[i] = K.value().data<double>()[i] + F.value().data<double>()[i];
    AttentionResult sum = attention_step(s, P.q, KF, P.H, kLengths, weights(s, P, 0));
    EXPECT_TRUE(all_close(with.alpha.value(), sum.alpha.value(), 1e-14, 1e-12))
        << attention_score_name(s);
    EXPECT_TRUE(all_close(with.context.value(), sum.context.value(), 1e-14, 1e-12));
    // A zero term changes nothing.
    extras.key_term = Var(Tensor::zeros({B, M, A}, DType::f64));
    AttentionResult zero = attention_step(s, P.q, K, P.H, kLengths, weights(s, P, 0),
                                          kernels::MatmulPrecision::f32, extras);
    EXPECT_TRUE(all_close(zero.alpha.value(), run(s, P, 0).alpha.value(), 0, 0));
  }
}

TEST(AttentionStepKeyTerm, GradientCheck) {
  for (AttentionScore s : {AttentionScore::mlp, AttentionScore::concat})
    for (double D : {0.0, 2.0}) {
      Params P;
      Var F = random_var({B, M, A}, 42);
      std::vector<Var> in = inputs(s, P, D > 0);
      in.push_back(F);
      EXPECT_TRUE(gradcheck(
          [&] {
            AttentionStepExtras extras;
            extras.key_term = F;
            AttentionResult r = attention_step(s, P.q, keys(s, P), P.H, kLengths,
                                               weights(s, P, D), kernels::MatmulPrecision::f32,
                                               extras);
            return join(r.context, r.alpha);
          },
          in))
          << attention_score_name(s) << " D " << D;
    }
}

TEST(AttentionStepKeyTerm, RefusedByTheOtherForms) {
  Params P;
  AttentionStepExtras extras;
  extras.key_term = random_var({B, M, A}, 43);
  EXPECT_THROW(attention_step(AttentionScore::general, P.q, keys(AttentionScore::general, P), P.H,
                              kLengths, weights(AttentionScore::general, P, 0),
                              kernels::MatmulPrecision::f32, extras),
               Error);
  extras.key_term = random_var({B, M, A + 1}, 44);  // wrong size
  EXPECT_THROW(attention_step(AttentionScore::mlp, P.q, keys(AttentionScore::mlp, P), P.H,
                              kLengths, weights(AttentionScore::mlp, P, 0),
                              kernels::MatmulPrecision::f32, extras),
               Error);
}

// Rows 0 and 1 windowed to [1, 3) and [2, 5) (row 1 has 3 real positions: [2, 3)), row 2 to a
// window beyond its one position (left whole).
const std::vector<std::int64_t> kFrom{1, 2, 3}, kTo{3, 5, 5};

AttentionResult run_windowed(AttentionScore s, const Params& P, std::span<const std::int64_t> from,
                             std::span<const std::int64_t> to) {
  AttentionStepExtras extras;
  extras.from = from;
  extras.to = to;
  return attention_step(s, P.q, keys(s, P), values(s, P), kLengths, weights(s, P, 0),
                        kernels::MatmulPrecision::f32, extras);
}

TEST(AttentionStepWindow, ZeroOutsideAndTheSoftmaxOverTheWindow) {
  for (AttentionScore s : kScores) {
    Params P;
    const Tensor full = run(s, P, 0).alpha.value();
    const Tensor a = run_windowed(s, P, kFrom, kTo).alpha.value();
    for (std::int64_t b = 0; b < B; ++b) {
      std::int64_t lo = std::max(kFrom[b], std::int64_t{0}), hi = std::min(kTo[b], kLengths[b]);
      if (lo >= hi) lo = 0, hi = kLengths[b];
      double inside = 0;
      for (std::int64_t j = lo; j < hi; ++j) inside += full.at({b, j});
      for (std::int64_t j = 0; j < M; ++j) {
        if (j < lo || j >= hi)
          EXPECT_EQ(a.at({b, j}), 0.0) << attention_score_name(s) << " row " << b << " j " << j;
        else  // the softmax over the window: the full weights renormalised over it
          EXPECT_NEAR(a.at({b, j}), full.at({b, j}) / inside, 1e-12) << attention_score_name(s);
      }
    }
  }
}

TEST(AttentionStepWindow, WiderThanTheSourceChangesNothing) {
  for (AttentionScore s : kScores) {
    Params P;
    const std::vector<std::int64_t> from(B, -10), to(B, M + 10);
    EXPECT_TRUE(all_close(run_windowed(s, P, from, to).alpha.value(), run(s, P, 0).alpha.value(),
                          0, 0))
        << attention_score_name(s);
  }
}

TEST(AttentionStepWindow, GradientCheck) {
  for (AttentionScore s : {AttentionScore::mlp, AttentionScore::general}) {
    Params P;
    EXPECT_TRUE(gradcheck(
        [&] {
          AttentionResult r = run_windowed(s, P, kFrom, kTo);
          return join(r.context, r.alpha);
        },
        inputs(s, P, false)))
        << attention_score_name(s);
  }
}

// The config reader's header-only has_tanh_form agrees with the score registry's kernel form.
TEST(AttentionScores, TanhFormAgreesWithTheRegistry) {
  for (const ScoreSpec& spec : attention_scores())
    EXPECT_EQ(has_tanh_form(spec.score), spec.kind == kernels::ScoreKind::tanh)
        << attention_score_name(spec.score);
}

}  // namespace
}  // namespace heed
