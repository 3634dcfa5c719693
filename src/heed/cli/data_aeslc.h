#pragma once
// `heed data aeslc`: source, target and reference files from the unpacked Annotated Enron
// Subject Line Corpus (docs/cli/data.md, "heed data aeslc"; the corpus and its licence:
// docs/DATA.md, "AESLC"). A subcommand of `heed data` (data_command.cpp), which calls setup()
// and, when it was given, run().
#include <CLI/CLI.hpp>

#include <string>

namespace heed::cli {

class DataAeslc {
 public:
  // Adds the `aeslc` subcommand to the data command's app.
  void setup(CLI::App& data);
  bool parsed() const { return app_ && app_->parsed(); }
  int run();

 private:
  CLI::App* app_ = nullptr;
  std::string aeslc_, out_;
  std::size_t max_body_words_ = 0;
};

}  // namespace heed::cli
