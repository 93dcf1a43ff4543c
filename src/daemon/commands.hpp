// The daemon's commands of the `cuzk` binary (built when gRPC, protobuf, toml++ and cpp-httplib
// are available): `cuzk daemon` and the clients submit, await, status, cancel, preload, evict,
// loadgen. argv[1] is the command.
#pragma once

namespace cuzk::daemon {

int cmd_daemon(int argc, char** argv);
int cmd_client(int argc, char** argv);
bool is_client_command(const char* cmd);
extern const char* kUsage;  // their part of `cuzk help`

}  // namespace cuzk::daemon
