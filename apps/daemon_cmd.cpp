// SPDX-License-Identifier: MIT OR Apache-2.0
// `cuzk daemon`: its arguments; the serving is daemon::serve (src/daemon/server.cpp).
#include "commands.hpp"
#include "daemon/server.hpp"

namespace cuzk::app {

Command daemon_command() {
  cli::Command c("daemon", "the proving service: gRPC, HTTP /metrics and /status, jobs journaled");
  c.describe(
       "The proving service: gRPC cuzk.groth16.v1.ProvingEngine (cuzk's API) and cuzk.v1.ProvingEngine (Curio's, "
       "Filecoin proofs with [filecoin] params_dir) on [daemon] listen (unix:///path.sock, mode 0600, or "
       "HOST:PORT with a token), HTTP /metrics and /status on status_listen, jobs journaled before they are "
       "acknowledged. Without --config: the bundled examples on every visible GPU (else the CPU). SIGTERM: finishes "
       "or journals the jobs in flight and exits; SIGHUP: reopens daemon.log_file.")
      .option("--config", "FILE", "the configuration (cuzk.toml; README.md describes it)")
      .option("--log-level", "LEVEL", "error, warning, info or debug (default: daemon.log_level, else info)")
      .option("--log-format", "FORMAT", "text or json, one object per line (default: daemon.log_format, else text)");
  return {c, [](const cli::Args& a) {
            return daemon::serve({a.get_or("--config", ""), a.get_or("--log-level", ""), a.get_or("--log-format", "")});
          }};
}

}  // namespace cuzk::app
