#include "heed/cli/train_command.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "heed/base/error.h"
#include "heed/base/stop_signals.h"
#include "heed/config/train_config.h"
#include "heed/dist/error_lines.h"
#include "heed/dist/rank_failure.h"
#include "heed/dist/world.h"
#include "heed/models/model_registry.h"
#include "heed/train/progress.h"
#include "heed/train/trainer.h"

namespace heed::cli {
namespace {

// Exit code of a run stopped by SIGINT/SIGTERM after saving its state (128 + SIGINT, the
// shell convention).
constexpr int kInterrupted = 130;

class TrainCommand : public Command {
 public:
  std::string name() const override { return "train"; }
  std::string description() const override {
    return "Train a model from a YAML config (resumes when the output directory holds a "
           "training state)";
  }

  void setup(CLI::App& app) override {
    app.add_option("config", config_, "YAML config file (every key: docs/CONFIG.md)")
        ->required();
    app.add_option("--set", overrides_,
                   "override a config key, e.g. --set training.lr=0.0005 (repeatable)")
        ->type_name("KEY=VALUE");
    app.footer(
        "Writes the model directory named by the config's `output` key. Running the same\n"
        "command again resumes from its training state, bit for bit; a directory holding only\n"
        "the leftovers of a run that saved no step is cleaned and reused. Ctrl-C (SIGINT) or\n"
        "SIGTERM saves the training state (once a step was made) and exits with code 130.\n"
        "Exit codes: 0 done, 1 runtime error (data, files), 2 bad command line or config,\n"
        "130 interrupted (state saved).");
  }

  int run() override {
    TrainConfig config;
    try {
      config = load_train_config(config_, overrides_);
      check_before_training(config);
    } catch (const Error& e) {
      dist::write_error_lines(std::string("heed train: error: ") + e.what());
      return 2;
    }
    clear_stop_request();
    set_stop_handler(request_stop);
    // Under mpirun: one rank of a data-parallel run (docs/DISTRIBUTED.md).
    const dist::World world;
    TrainerOptions options;
    options.world = &world;
    options.console = &std::cerr;
    options.tty = stderr_is_tty();
    TrainResult r;
    try {
      r = train(config, options);
    } catch (const dist::RankFailure& e) {
      // This rank failed while the others wait for it in a collective: say why here, then
      // end every rank (finishing MPI would wait with them for ever).
      dist::write_error_lines(std::string("heed train: error: ") + e.what());
      world.abort(e.exit_code());
    }
    if (r.outcome == TrainOutcome::interrupted) return kInterrupted;
    if (!world.leader()) return 0;  // rank 0 reports for the run
    std::cout << "trained " << config.output << " to step " << r.step;
    if (r.has_best)
      std::cout << "; best dev " << config.training.metric << " " << r.best_metric << " at step "
                << r.best_step;
    std::cout << "\n";
    return 0;
  }

 private:
  std::string config_;
  std::vector<std::string> overrides_;
};

}  // namespace

std::unique_ptr<Command> make_train_command() { return std::make_unique<TrainCommand>(); }

}  // namespace heed::cli
