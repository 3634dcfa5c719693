#pragma once
// `heed data images`: generated image sets from Fashion-MNIST (docs/cli/data.md, "heed data
// images"; the sets: docs/DATA.md, "Generated image sets"). A subcommand of `heed data`
// (data_command.cpp), which calls setup() and, when it was given, run().
#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

#include "heed/data/image_sets.h"

namespace heed::cli {

class DataImages {
 public:
  // Adds the `images` subcommand to the data command's app.
  void setup(CLI::App& data);
  bool parsed() const { return app_ && app_->parsed(); }
  int run();

 private:
  CLI::App* app_ = nullptr;
  ImageSetOptions options_;
  std::int64_t test_count_ = 10000;
  std::uint64_t seed_ = 1234;
  std::string items_ = "2-4", out_, source_;
};

}  // namespace heed::cli
