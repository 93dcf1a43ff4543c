// SPDX-License-Identifier: MIT OR Apache-2.0
// The daemon's configuration: a TOML file (`cuzk daemon --config cuzk.toml`) or the embedded
// default (the bundled example circuits on every visible GPU, else on the CPU).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cuzk::daemon {

struct CircuitConfig {
  std::string id, zkey, r1cs;  // r1cs optional ("")
};

struct Config {
  // [daemon]
  std::string listen;                            // "unix:///abs/path.sock" or "HOST:PORT"
  std::string status_listen;                     // "127.0.0.1:PORT" (HTTP /metrics, /status), "" = none
  std::string journal;                           // a directory (created if missing)
  std::string token;                             // required when listen is TCP
  bool status_auth = false;                      // /metrics and /status need the token too
  std::string log_file;                          // "" = stderr; else appended to, reopened on SIGHUP
  std::string log_level = "info";                // error, warning, info, debug: lines below are dropped
  std::string log_format = "text";               // text or json (one object per line)
  double keep_results_s = 24 * 3600;             // finished results are kept this long (across restarts)
  double shutdown_grace_s = 30;                  // SIGTERM: running jobs get this long to finish
  size_t max_request_bytes = size_t(256) << 20;  // a SubmitProof larger than this is refused
  uint32_t max_partitions = 256;
  // Directories whose .wtns files a request may name instead of sending their bytes (read in
  // place; absolute, existing). Empty: witness paths are refused.
  std::vector<std::string> witness_dirs;
  // Free space kept on the journal's filesystem: a submission whose witnesses would leave less
  // is refused (RESOURCE_EXHAUSTED, retry later), a streamed one as soon as it would. 0: none.
  size_t journal_reserve = size_t(1) << 30;
  // [devices]
  std::vector<std::string> devices = {"auto"};  // "gpu:0", "all", "sim:2", "cpu", "auto"
  int workers_per_device = 2;
  std::vector<std::string> memory;  // per device, or one for all ("" = default)
  double sim_kernel_ms = 0;         // simulated devices: kernels' floor (tests, load figures)
  double key_tables = 0.5;          // share of a device's spare memory for MSM tables (0: none)
  // [synthesis]
  unsigned synthesis_threads = 0;  // 0 = hardware threads
  // [memory]
  size_t host_budget = size_t(8) << 30;  // witness bytes of unfinished jobs held at once
  // Page-locked witness buffers' host memory (EngineConfig::page_locked_witness_bytes); unset: a
  // quarter of the host's physical memory.
  std::optional<size_t> page_locked;
  // [[circuits]]
  std::vector<CircuitConfig> circuits;
  bool verify = true;  // [engine] verify: self-verify every proof
  // [queue]: "local" (this daemon's journal) or "postgres" (a farm sharing one database)
  std::string queue_backend = "local";
  std::string queue_dsn;  // libpq connection string (postgres)
  double lease_s = 30;    // a claim's lease, renewed every lease/3 while it runs
  std::string host_id;    // this daemon's name in the farm (default: hostname:pid)
  int max_attempts = 3;   // a partition failed this often (any hosts) fails its job
  // [filecoin]: Curio's API (cuzk.v1.ProvingEngine). The directory of Filecoin's parameter files
  // (<stem>.params, <stem>.vk): params_dir for every proof kind, or one per kind; a kind with
  // neither is refused (FAILED_PRECONDITION), naming the setting.
  struct Filecoin {
    std::string params_dir;
    std::string porep_params_dir, window_post_params_dir, winning_post_params_dir, snap_params_dir;
    bool configured() const {
      return !params_dir.empty() || !porep_params_dir.empty() || !window_post_params_dir.empty() ||
             !winning_post_params_dir.empty() || !snap_params_dir.empty();
    }
  } filecoin;
  std::string source = "embedded default";  // where it came from (for the log)
};

// Reads and checks a config file. Throws InvalidArgument naming the file, the key and the
// problem (unknown keys are errors, so typos do not pass silently).
Config load_config(const std::string& path);
Config parse_config(const std::string& toml_text, const std::string& name);
// The embedded default: the bundled examples, a socket in $XDG_RUNTIME_DIR (or /tmp), a journal
// in $XDG_STATE_HOME/cuzk (or ~/.local/state/cuzk), status on $CUZK_STATUS_LISTEN (or
// 127.0.0.1:9464); the examples from examples_dir().
Config default_config();
// $CUZK_EXAMPLES, else the examples beside the running binary: BIN_DIR/examples (a build tree),
// else BIN_DIR/../share/cuzk/examples (an install).
std::string examples_dir();

// The embedded default's address: unix://$XDG_RUNTIME_DIR/cuzk.sock (or /tmp/cuzk.sock).
std::string default_listen();
// A client's daemon address: `given` (a listen string, or a bare socket path: /path.sock,
// ./d.sock), else $CUZK_DAEMON, else default_listen().
std::string client_address(const std::string& given);

// "unix:///abs/path" -> "/abs/path"; "" when the address is TCP.
std::string unix_path(const std::string& listen);
// "30s", "15m", "24h", "2d", "500ms", or a number of seconds.
double parse_duration_s(const std::string& s);

}  // namespace cuzk::daemon
