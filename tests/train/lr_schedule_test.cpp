// Learning-rate schedules: values at given steps, plateau reductions, exact state round trip.
#include <gtest/gtest.h>

#include "heed/base/error.h"
#include "heed/train/lr_schedule.h"

namespace heed {
namespace {

LrScheduleOptions options(const std::string& kind) {
  LrScheduleOptions o;
  o.kind = parse_enum<ScheduleKind>(kind, "schedule");
  o.lr = 0.01;
  return o;
}

TEST(LrSchedule, ConstantIgnoresStepsAndScores) {
  LrSchedule s(options("constant"));
  EXPECT_DOUBLE_EQ(s.lr(1), 0.01);
  EXPECT_DOUBLE_EQ(s.lr(100000), 0.01);
  EXPECT_FALSE(s.on_validation(5.0));
  EXPECT_FALSE(s.on_validation(9.0));
  EXPECT_DOUBLE_EQ(s.lr(2), 0.01);
}

TEST(LrSchedule, StepHalvesEveryDecayStepsDownToTheFloor) {
  auto o = options("step");
  o.decay_steps = 10;
  o.min_lr = 0.002;
  LrSchedule s(o);
  EXPECT_DOUBLE_EQ(s.lr(1), 0.01);
  EXPECT_DOUBLE_EQ(s.lr(10), 0.01);
  EXPECT_DOUBLE_EQ(s.lr(11), 0.005);
  EXPECT_DOUBLE_EQ(s.lr(20), 0.005);
  EXPECT_DOUBLE_EQ(s.lr(21), 0.0025);
  EXPECT_DOUBLE_EQ(s.lr(31), 0.002);  // 0.00125 is below min_lr
  EXPECT_FALSE(s.on_validation(5.0));
  EXPECT_FALSE(s.on_validation(9.0));
  o.decay_steps = 0;
  EXPECT_THROW(LrSchedule{o}, Error);
}

TEST(LrSchedule, WarmupThenInverseSqrt) {
  auto o = options("warmup");
  o.warmup_steps = 100;
  LrSchedule s(o);
  EXPECT_DOUBLE_EQ(s.lr(1), 0.01 * 1 / 100.0);
  EXPECT_DOUBLE_EQ(s.lr(50), 0.005);
  EXPECT_DOUBLE_EQ(s.lr(100), 0.01);
  EXPECT_DOUBLE_EQ(s.lr(400), 0.005);  // sqrt(100 / 400) = 1/2
  EXPECT_NEAR(s.lr(10000), 0.001, 1e-15);
}

TEST(LrSchedule, WarmupThenLinearDecayToZero) {
  auto o = options("warmup");
  o.warmup_steps = 10;
  o.decay = DecayKind::linear;
  o.max_steps = 110;
  LrSchedule s(o);
  EXPECT_DOUBLE_EQ(s.lr(5), 0.005);
  EXPECT_DOUBLE_EQ(s.lr(10), 0.01);
  EXPECT_DOUBLE_EQ(s.lr(60), 0.005);
  EXPECT_DOUBLE_EQ(s.lr(110), 0.0);
  EXPECT_DOUBLE_EQ(s.lr(200), 0.0);
}

TEST(LrSchedule, WarmupWithoutDecayAndZeroWarmup) {
  auto o = options("warmup");
  o.warmup_steps = 4;
  o.decay = DecayKind::none;
  LrSchedule s(o);
  EXPECT_DOUBLE_EQ(s.lr(2), 0.005);
  EXPECT_DOUBLE_EQ(s.lr(1000), 0.01);
  o.warmup_steps = 0;
  o.decay = DecayKind::inverse_sqrt;
  LrSchedule t(o);
  EXPECT_DOUBLE_EQ(t.lr(4), 0.005);
}

TEST(LrSchedule, LinearDecayEndsWithTheTimeBudget) {
  auto o = options("warmup");
  o.warmup_steps = 10;
  o.decay = DecayKind::linear;
  o.max_seconds = 100;  // no max_steps: the time alone sets the decay
  LrSchedule s(o);
  EXPECT_DOUBLE_EQ(s.lr(5, 1.0), 0.005);     // warm-up by steps
  EXPECT_DOUBLE_EQ(s.lr(500, 25.0), 0.0075);  // a quarter of the time gone
  EXPECT_DOUBLE_EQ(s.lr(900, 100.0), 0.0);
  EXPECT_DOUBLE_EQ(s.lr(901, 120.0), 0.0);
  o.max_steps = 110;  // both: whichever leaves less
  LrSchedule t(o);
  EXPECT_DOUBLE_EQ(t.lr(60, 10.0), 0.005);  // steps: half left; time: 90% left
  EXPECT_DOUBLE_EQ(t.lr(20, 75.0), 0.0025);  // time: a quarter left
}

TEST(LrSchedule, LinearDecayNeedsMaxStepsOrMaxSeconds) {
  auto o = options("warmup");
  o.decay = DecayKind::linear;
  o.max_steps = 0;
  EXPECT_THROW(LrSchedule{o}, Error);
  EXPECT_THROW(LrSchedule{options("cosine")}, Error);
}

TEST(LrSchedule, PlateauDecaysAfterPatienceStalls) {
  auto o = options("plateau");
  o.patience = 2;
  o.decay_factor = 0.5;
  LrSchedule s(o);  // lower is better
  EXPECT_FALSE(s.on_validation(3.0));
  EXPECT_FALSE(s.on_validation(2.0));  // better
  EXPECT_FALSE(s.on_validation(2.5));  // stall 1
  EXPECT_FALSE(s.on_validation(2.0));  // stall 2 (equal is no improvement)
  EXPECT_DOUBLE_EQ(s.lr(7), 0.01);
  EXPECT_TRUE(s.on_validation(2.1));   // stall 3 > patience: reduce
  EXPECT_DOUBLE_EQ(s.lr(7), 0.005);
  EXPECT_EQ(s.reductions(), 1);
  EXPECT_FALSE(s.on_validation(1.0));  // better: counter reset
  EXPECT_FALSE(s.on_validation(1.5));
  EXPECT_FALSE(s.on_validation(1.5));
  EXPECT_TRUE(s.on_validation(1.5));
  EXPECT_DOUBLE_EQ(s.lr(1), 0.0025);
}

TEST(LrSchedule, PlateauHigherIsBetterAndFloor) {
  auto o = options("plateau");
  o.patience = 0;
  o.higher_is_better = true;
  o.min_lr = 0.004;
  LrSchedule s(o);
  EXPECT_FALSE(s.on_validation(10.0));
  EXPECT_FALSE(s.on_validation(12.0));
  EXPECT_TRUE(s.on_validation(11.0));
  EXPECT_DOUBLE_EQ(s.lr(1), 0.005);
  EXPECT_TRUE(s.on_validation(11.0));
  EXPECT_DOUBLE_EQ(s.lr(1), 0.004);  // 0.0025 floored
  EXPECT_FALSE(s.on_validation(11.0));  // at the floor: no more reductions
}

TEST(LrSchedule, StateRoundTripsExactly) {
  auto o = options("plateau");
  o.patience = 1;
  o.decay_factor = 0.3;
  LrSchedule a(o);
  for (double v : {1.0, 0.7, 0.9, 0.95, 0.8, 0.99}) a.on_validation(v);
  LrSchedule b(o);
  b.set_state(a.state());
  EXPECT_EQ(b.state(), a.state());
  EXPECT_EQ(b.lr(5), a.lr(5));
  for (double v : {0.5, 0.6, 0.7}) EXPECT_EQ(a.on_validation(v), b.on_validation(v));
  EXPECT_EQ(b.lr(5), a.lr(5));
  EXPECT_THROW(b.set_state("garbage"), Error);
}

}  // namespace
}  // namespace heed
