#pragma once
// `heed data digits`: connected-digit utterances from the Free Spoken Digit Dataset
// (docs/cli/data.md, "heed data digits"; the utterances: docs/DATA.md, "Spoken digits"). A
// subcommand of `heed data` (data_command.cpp), which calls setup() and, when it was given,
// run().
#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "heed/audio/connected_digits.h"
#include "heed/audio/fsdd.h"

namespace heed::cli {

class DataDigits {
 public:
  // Adds the `digits` subcommand to the data command's app.
  void setup(CLI::App& data);
  bool parsed() const { return app_ && app_->parsed(); }
  int run();

 private:
  CLI::App* app_ = nullptr;
  ConnectedDigitsOptions options_;
  DigitSplitOptions split_;
  std::int64_t count_ = 5000, dev_count_ = 500, test_count_ = 1000;
  std::vector<double> speed_;  // --speed MIN,MAX: the training utterances' digits only
  std::string levels_ = "equal";  // --levels equal | recorded
  std::string fsdd_, out_;
};

}  // namespace heed::cli
