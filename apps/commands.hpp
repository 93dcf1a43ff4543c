// SPDX-License-Identifier: MIT OR Apache-2.0
// The commands of the `cuzk` executable: each is its declaration (util/cli.hpp), from which its
// arguments are parsed and its usage printed, and the body that runs on what was parsed.
#pragma once
#include <exception>
#include <functional>
#include <vector>

#include "util/cli.hpp"

namespace cuzk::app {

constexpr int kExitOk = 0, kExitError = 1, kExitUsage = 2;

struct Command {
  cli::Command spec;
  std::function<int(const cli::Args&)> run;
  // When set, prints an error of the command (a cli::UsageError or any other) its own way and
  // returns the exit code; otherwise cuzk's: 2 for usage errors, 1 for the others.
  std::function<int(const std::exception&)> on_error = {};
};

std::vector<Command> filecoin_commands();  // apps/filecoin_cmd.cpp: params, filecoin

#if defined(CUZK_WITH_DAEMON)
Command daemon_command();                // apps/daemon_cmd.cpp
std::vector<Command> client_commands();  // apps/client.cpp: submit, await, status, cancel, ...
#endif

}  // namespace cuzk::app
