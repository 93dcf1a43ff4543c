// SPDX-License-Identifier: MIT OR Apache-2.0
// `cuzk daemon`: its declaration is in apps/net_specs.cpp; the serving is daemon::serve
// (src/daemon/server.cpp).
#include "commands.hpp"
#include "daemon/server.hpp"

namespace cuzk::app {

Command daemon_command() {
  return {network_spec("daemon"), [](const cli::Args& a) {
            return daemon::serve({a.get_or("--config", ""), a.get_or("--log-level", ""), a.get_or("--log-format", "")});
          }};
}

}  // namespace cuzk::app
