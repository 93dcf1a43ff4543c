// SPDX-License-Identifier: MIT OR Apache-2.0
// cuzk-daemon: the daemon and its client commands (daemon, submit, await, status, cancel,
// preload, evict, loadgen). `cuzk` hands these commands here with its own arguments, unchanged
// (execv: the same process, pid and signals), so that proving on the command line never loads
// the network's libraries. Run directly, it takes the same words: cuzk-daemon daemon --config F.
#include <cstdio>
#include <string>
#include <vector>

#include "commands.hpp"

namespace app = cuzk::app;

int main(int argc, char** argv) {
  std::vector<app::Command> all = app::client_commands();
  all.insert(all.begin(), app::daemon_command());
  const std::string name = argc > 1 ? argv[1] : "";
  for (auto& c : all)
    if (c.spec.name() == name) return app::run_command(c, std::vector<std::string>(argv + 2, argv + argc));
  std::string known;
  for (auto& c : all) known += (known.empty() ? "" : ", ") + c.spec.name();
  std::fprintf(stderr, "cuzk-daemon: %s (its commands: %s; the others are cuzk's)\n",
               name.empty() ? "no command given" : ("unknown command '" + name + "'").c_str(), known.c_str());
  return app::kExitUsage;
}
