// The `heed` command. Exit codes: 0 ok, 1 runtime error, 2 usage error.
#include <CLI/CLI.hpp>
#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <new>
#include <exception>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "heed/metrics/edit_distance.h"
#include "heed/base/error.h"
#include "heed/base/stop_signals.h"
#include "heed/cli/command.h"
#include "heed/dist/error_lines.h"
#include "heed/kernels/kernel_isa.h"
#include "heed/version.h"

namespace {

}  // namespace

int main(int argc, char** argv) {
  // Before any thread exists: SIGINT/SIGTERM are taken on a thread of their own, never on a
  // compute thread (base/stop_signals.h says why).
  heed::start_signal_thread();
  // Decoding steps allocate their outputs fresh each step (a beam step's logits are 5 MB for
  // an 8,000-word vocabulary). glibc would hand such blocks back to the kernel on free and
  // fault every page in again on the next step (a fifth of mt beam search's time): keep
  // blocks up to 32 MB (glibc's maximum) in the heap, and the heap's free top unless > 1 GiB.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  CLI::App app{"heed: train attention-based sequence models, run them, and see what they attend to",
               "heed"};
  app.require_subcommand(1);
  // The CPU was checked before main (kernels/kernel_isa.h: a CPU that cannot run this build,
  // or a HEED_CPU it cannot honour, ends the process there with one line that says why).
  app.set_version_flag("--version", std::string("heed " HEED_VERSION_STRING "\nkernels: ") +
                                        heed::kernels::kernel_isa_description());
  auto commands = heed::cli::all_commands();
  std::vector<CLI::App*> subs;
  try {
    for (auto& c : commands) {
      CLI::App* sub = app.add_subcommand(c->name(), c->description());
      c->setup(*sub);
      subs.push_back(sub);
    }
  } catch (const CLI::Error& e) {  // a mistake in a command's option table: a bug, say so
    std::cerr << "heed: internal error in the command definitions: " << e.what() << "\n";
    return 1;
  }
  // The first word is the subcommand: an unknown one is named, with the nearest command
  // (CLI11 alone would only say that a subcommand is required).
  if (argc > 1 && argv[1][0] == '-') {
    const std::string opt = argv[1];
    if (opt != "-h" && opt != "--help" && opt != "--version") {
      std::cerr << "heed: unknown option '" << opt << "'; heed takes a command first "
                << "(heed COMMAND --help lists its options; heed --help lists the commands)\n";
      return 2;
    }
  }
  if (argc > 1 && argv[1][0] != '-') {
    const std::string word = argv[1];
    std::string nearest;
    std::size_t best = 3;  // suggest only within two edits
    bool known = false;
    for (const auto& c : commands) {
      known = known || c->name() == word;
      const std::size_t d = heed::metrics::edit_distance_chars(word, c->name());
      if (d < best) best = d, nearest = c->name();
    }
    if (!known) {
      std::cerr << "heed: unknown command '" << word << "'"
                << (nearest.empty() ? "" : "; did you mean '" + nearest + "'?")
                << " (heed --help lists the commands)\n";
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  } catch (const heed::Error& e) {  // option validation that reads files
    std::cerr << "heed: error: " << e.what() << "\n";
    return 2;
  }
  for (std::size_t i = 0; i < commands.size(); ++i) {
    if (!subs[i]->parsed()) continue;
    // Each message is written as one line in one call (dist/world.h: the ranks of an mpirun
    // job share the terminal), labelled with the rank under mpirun.
    const std::string cmd = "heed " + commands[i]->name();
    try {
      return commands[i]->run();
    } catch (const heed::UsageError& e) {
      heed::dist::write_error_lines(cmd + ": error: " + e.what());
      return 2;
    } catch (const std::bad_alloc&) {
      heed::dist::write_error_lines(cmd + ": error: out of memory (a size in the config or on "
                                    "the command line is too large for this machine; lower it)");
      return 1;
    } catch (const heed::Error& e) {
      heed::dist::write_error_lines(cmd + ": error: " + e.what());
      return 1;
    } catch (const std::exception& e) {
      heed::dist::write_error_lines(cmd + ": internal error: " + e.what());
      return 1;
    }
  }
  return 2;
}
