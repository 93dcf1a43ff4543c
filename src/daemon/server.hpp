// SPDX-License-Identifier: MIT OR Apache-2.0
// The daemon's serving loop (`cuzk daemon`): the gRPC services cuzk.groth16.v1.ProvingEngine and
// cuzk.v1.ProvingEngine (Curio's) and HTTP
// /metrics and /status over a Service, until SIGTERM or SIGINT.
#pragma once
#include <string>

namespace cuzk::daemon {

struct ServeOptions {
  std::string config;      // the configuration file; "" = the bundled examples on every visible
                           // GPU, else the CPU
  std::string log_level;   // "" = daemon.log_level of the config
  std::string log_format;  // "" = daemon.log_format of the config
};

// Serves until SIGTERM or SIGINT. Returns the exit status: 0 after a signal, 1 when it could not
// start (the reason in the log and on stderr).
int serve(const ServeOptions& opt);

}  // namespace cuzk::daemon
