#pragma once
// Rng: the one seeded generator behind every random choice (initialisation, dropout,
// shuffling, sampling), so a run repeats bit for bit on one machine. Its state can be
// saved and restored for exact resume.
#include <cstdint>
#include <random>
#include <string>

namespace heed {

class Rng {
 public:
  explicit Rng(std::uint64_t seed = 1234) : engine_(seed) {}
  void seed(std::uint64_t s) { engine_.seed(s); }
  double uniform(double lo = 0.0, double hi = 1.0);
  double normal(double mean = 0.0, double stddev = 1.0);
  std::uint64_t next() { return engine_(); }
  // Uniform integer in [0, n).
  std::uint64_t below(std::uint64_t n);
  std::string state() const;              // serialised engine state
  void set_state(const std::string& state);
  std::mt19937_64& engine() { return engine_; }

 private:
  std::mt19937_64 engine_;
};

}  // namespace heed
