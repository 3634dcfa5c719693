#include "heed/cli/import_command.h"

#include <CLI/CLI.hpp>

#include <iostream>
#include <string>

#include "heed/base/error.h"
#include "heed/store/interop.h"

namespace heed::cli {
namespace {

class ImportCommand : public Command {
 public:
  std::string name() const override { return "import"; }
  std::string description() const override {
    return "Make a model directory from a PyTorch state_dict saved as safetensors";
  }

  void setup(CLI::App& app) override {
    app.add_option("--from-pytorch", o_.weights,
                   "the state_dict as safetensors (F32, F64, BF16 or F16)")
        ->required();
    app.add_option("--config", o_.config,
                   "heed training config whose model: section describes the architecture "
                   "(default: the file's heed.config metadata)");
    auto* vocab = app.add_option("--vocab", vocab_, "one vocabulary file for both sides");
    app.add_option("--src-vocab", o_.src_vocab,
                   "source vocabulary (default: the file's heed.src_vocab metadata)")
        ->excludes(vocab);
    app.add_option("--tgt-vocab", o_.tgt_vocab,
                   "target vocabulary (default: the file's heed.tgt_vocab metadata)")
        ->excludes(vocab);
    app.add_option("--src-spm", o_.src_spm,
                   "source SentencePiece model (default: the config's spm_model)");
    app.add_option("--tgt-spm", o_.tgt_spm,
                   "target SentencePiece model (default: the config's spm_model)");
    app.add_option("--out,-o", o_.out, "the model directory to create (new or empty)")
        ->required();
    app.footer("Every parameter the config's model needs must be in the file under its PyTorch\n"
               "name with its shape, and nothing else; the weights are converted to the\n"
               "config's training.dtype. The directory (config.yaml, vocabularies,\n"
               "best.safetensors, last.safetensors) works with heed translate, info, export.\n"
               "An image kind (ram, fc, cnn, image2seq) takes --tgt-vocab only (no source\n"
               "side) and its directory works with heed eval, info, show --images, export.\n"
               "A memory network (memn2n) has one vocabulary, --vocab (or either of --src-vocab,\n"
               "--tgt-vocab), no SentencePiece model; heed eval, info, show, export take it.\n"
               "docs/INTEROP.md lists the names and shapes of every model kind.");
  }

  int run() override {
    if (!vocab_.empty()) o_.src_vocab = o_.tgt_vocab = vocab_;
    import_model(o_);
    std::cout << "imported " << o_.weights << " into " << o_.out << "\n";
    return 0;
  }

 private:
  ImportOptions o_;
  std::string vocab_;
};

}  // namespace

std::unique_ptr<Command> make_import_command() { return std::make_unique<ImportCommand>(); }

}  // namespace heed::cli
