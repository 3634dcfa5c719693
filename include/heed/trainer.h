#pragma once
// heed::Trainer: `heed train` from a program of your own. A configuration (the YAML of
// docs/CONFIG.md, from a file or text, with "key=value" overrides as `heed train --set`) is
// parsed and checked when the Trainer is made; train() then writes the model directory the
// config's `output` names, resuming it when it holds a training state, and reports each step
// to a callback. A std::stop_token (from a std::stop_source or std::jthread) stops the run
// at the next step with its state saved, so a later train() resumes it. Errors are heed::Error.
//
//   heed::Trainer trainer = heed::Trainer::from_file("config.yaml", {"training.max_steps=200"});
//   heed::Trainer::Result r = trainer.train([](const heed::Trainer::Progress& p) {
//     std::cout << p.step << "/" << p.total_steps << " loss " << p.loss << "\n";
//   });
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include "heed/error.h"
#include "heed/export.h"

namespace heed {

class HEED_API Trainer {
 public:
  struct Progress {
    std::int64_t step = 0;         // steps done, this one included
    std::int64_t total_steps = 0;  // planned steps (max_steps or max_epochs); 0 = unknown
    std::int64_t epoch = 0;        // 0-based
    double loss = 0.0;             // this step's training loss per target token
    double learning_rate = 0.0;
    double seconds = 0.0;          // wall time of the run so far, resumed runs included
    bool validated = false;        // the dev set was scored after this step
    double dev_score = 0.0;        // that score (training.metric), when validated
    bool new_best = false;         // and it was the best so far
  };

  enum class Outcome { finished, early_stopped, stopped };

  struct Result {
    Outcome outcome = Outcome::finished;
    std::int64_t step = 0;    // steps done in all
    bool has_best = false;    // a dev score was recorded
    double best_score = 0.0;
    std::int64_t best_step = 0;
    std::string model_dir;    // the directory written (the config's output)
  };

  // A config file, or YAML text (source names it in messages), with overrides such as
  // "training.lr=0.0005" (the value is read as YAML).
  static Trainer from_file(const std::string& path, const std::vector<std::string>& overrides = {});
  static Trainer from_yaml(const std::string& yaml, const std::vector<std::string>& overrides = {},
                           const std::string& source = "<yaml>");

  Trainer(Trainer&&) noexcept;
  Trainer& operator=(Trainer&&) noexcept;
  ~Trainer();

  // The complete configuration, every key written (what the model directory records).
  std::string config_yaml() const;
  const std::string& model_dir() const;

  // Where progress lines and messages go (as `heed train` writes them to stderr); nullptr, the
  // default, writes none.
  void set_log(std::ostream* log);

  // Trains; on_progress is called after every step from the calling thread. A stop request
  // ends the run after the current step (Outcome::stopped, state saved).
  Result train(const std::function<void(const Progress&)>& on_progress = {},
               std::stop_token stop = {});

 private:
  struct Impl;
  explicit Trainer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace heed
