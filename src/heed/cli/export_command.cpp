#include "heed/cli/export_command.h"

#include <CLI/CLI.hpp>

#include <iostream>
#include <string>

#include "heed/store/interop.h"

namespace heed::cli {
namespace {

class ExportCommand : public Command {
 public:
  std::string name() const override { return "export"; }
  std::string description() const override {
    return "Write a model's weights and config as one safetensors file for PyTorch";
  }

  void setup(CLI::App& app) override {
    app.add_option("--model,-m", o_.dir, "model directory written by heed train or heed import")
        ->required();
    app.add_option("--weights,-w", o_.weights,
                   "which weights: best, last or the path of a weights file (default best)");
    app.add_option("--out,-o", o_.out, "the .safetensors file to write (atomically)")->required();
    app.add_flag("--force,-f", o_.force, "overwrite --out if it exists");
    app.footer("The file holds every parameter under its PyTorch state_dict name, in the\n"
               "model's dtype, and as metadata the config (heed.config, and heed.model_config\n"
               "as JSON) and the vocabularies (an image kind's classes only: it has no source\n"
               "side; memn2n's one vocabulary under both keys). tools/heed_torch.py loads it\n"
               "and builds the reference torch.nn.Module;\n"
               "heed import reads it back. docs/INTEROP.md.");
  }

  int run() override {
    const std::size_t n = export_model(o_);
    std::cout << "exported " << n << " tensors of " << o_.dir << " (" << o_.weights << ") to "
              << o_.out << "\n";
    return 0;
  }

 private:
  ExportOptions o_;
};

}  // namespace

std::unique_ptr<Command> make_export_command() { return std::make_unique<ExportCommand>(); }

}  // namespace heed::cli
