#include "heed/cli/quantize_command.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>
#include <string>

#include "heed/store/quantized_weights.h"

namespace heed::cli {
namespace {

std::string megabytes(std::uintmax_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f MB", static_cast<double>(bytes) / 1e6);
  return buf;
}

class QuantizeCommand : public Command {
 public:
  std::string name() const override { return "quantize"; }
  std::string description() const override {
    return "Write a copy of a model directory whose weights are stored as int8";
  }

  void setup(CLI::App& app) override {
    app.add_option("--model,-m", o_.model, "model directory written by heed train or heed import")
        ->required();
    app.add_option("--weights,-w", o_.weights,
                   "which weights: best, last or the path of a weights file (default best)");
    app.add_option("--out,-o", o_.out, "the model directory to create (new or empty)")
        ->required();
    app.footer("Every 2-D weight matrix is stored as int8 (safetensors I8), quantised per row\n"
               "(per output channel, symmetric) with one fp32 scale per row; biases and other\n"
               "tensors stay as they are. The new directory holds config.yaml, the\n"
               "vocabularies, the SentencePiece models and best.safetensors, about a quarter\n"
               "of the size. heed translate, serve, eval, info and show load it (the weights\n"
               "dequantised) and decode at --precision int8 unless told otherwise; training\n"
               "refuses it. A heed from before int8 refuses it at its first int8 tensor.\n"
               "docs/cli/quantize.md.");
  }

  int run() override {
    const QuantizeReport r = quantize_model_dir(o_);
    std::cout << "quantized " << o_.model << " (" << o_.weights << ") into " << o_.out << ": "
              << r.int8_tensors << " weight matrices int8, " << r.other_tensors
              << " tensors as they were; " << megabytes(r.bytes_before) << " -> "
              << megabytes(r.bytes_after) << "\n";
    return 0;
  }

 private:
  QuantizeOptions o_;
};

}  // namespace

std::unique_ptr<Command> make_quantize_command() { return std::make_unique<QuantizeCommand>(); }

}  // namespace heed::cli
