// The daemon's serving loop (`cuzk daemon`): the gRPC services cuzk.groth16.v1.ProvingEngine and
// cuzk.v1.ProvingEngine (Curio's) and HTTP
// /metrics and /status over a Service, until SIGTERM or SIGINT.
#pragma once
#include <string>

namespace cuzk::daemon {

// Serves the configuration at `config_path` ("" = the bundled examples on every visible GPU,
// else the CPU). Returns the exit status: 0 after a signal, 1 when it could not start (the
// reason printed on stderr).
int serve(const std::string& config_path);

}  // namespace cuzk::daemon
