// SPDX-License-Identifier: MIT OR Apache-2.0
// The commands of the `cuzk` executable: each is its declaration (util/cli.hpp), from which its
// arguments are parsed and its usage printed, and the body that runs on what was parsed.
#pragma once
#include <exception>
#include <functional>
#include <string>
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

// The daemon and its client commands live in a second executable, cuzk-daemon, beside cuzk: the
// network's libraries (gRPC, protobuf, toml++, cpp-httplib, libpq) are loaded only by the
// commands that use them. cuzk holds their declarations (apps/net_specs.cpp) and hands them over.
std::vector<cli::Command> network_specs();  // daemon, submit, await, status, cancel, preload, evict, loadgen
cli::Command network_spec(const std::string& name);
Command daemon_command();                // apps/daemon_cmd.cpp (cuzk-daemon only)
std::vector<Command> client_commands();  // apps/client.cpp: submit, await, status, ... (cuzk-daemon only)

// Parses `args` (the words after the command's name) and runs `cmd`; its errors are printed as
// cuzk prints them (`cuzk: NAME: ...` and a pointer to --help for usage errors) and become the
// exit code: 2 for usage errors, 1 for the others (or what cmd.on_error returns).
int run_command(const Command& cmd, const std::vector<std::string>& args);

}  // namespace cuzk::app
