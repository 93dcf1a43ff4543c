// SPDX-License-Identifier: MIT OR Apache-2.0
// One command run the way both executables (cuzk, cuzk-daemon) run it.
#include <cstdio>

#include "commands.hpp"

namespace cuzk::app {

int run_command(const Command& cmd, const std::vector<std::string>& args) {
  const std::string name = cmd.spec.name();
  try {
    const cli::Args a = cmd.spec.parse(args);
    if (a.help) {
      std::fputs(cmd.spec.help().c_str(), stdout);
      return kExitOk;
    }
    return cmd.run(a);
  } catch (const cli::UsageError& e) {
    if (cmd.on_error) return cmd.on_error(e);
    std::fprintf(stderr, "cuzk: %s: %s\n(run 'cuzk %s --help' for usage)\n", name.c_str(), e.what(), name.c_str());
    return kExitUsage;
  } catch (const std::exception& e) {
    if (cmd.on_error) return cmd.on_error(e);
    std::fprintf(stderr, "cuzk: error: %s\n", e.what());
    return kExitError;
  }
}

}  // namespace cuzk::app
