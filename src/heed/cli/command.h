#pragma once
// A `heed` subcommand: declares its options on a CLI11 sub-app, then runs.
// run() returns the exit code; user mistakes throw heed::Error (exit 1, message printed).
#include <memory>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace heed::cli {

class Command {
 public:
  virtual ~Command() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  virtual void setup(CLI::App& app) = 0;
  virtual int run() = 0;
};

// Every subcommand, in the order `heed --help` lists them.
std::vector<std::unique_ptr<Command>> all_commands();

}  // namespace heed::cli
