// SPDX-License-Identifier: MIT OR Apache-2.0
// The declarations of the daemon and its client commands. Both executables hold them: `cuzk`
// lists them, prints their usage and checks their arguments, then hands the command to
// cuzk-daemon (which alone links gRPC, protobuf, toml++, cpp-httplib and libpq), where
// apps/daemon_cmd.cpp and apps/client.cpp give them their bodies.
#include <stdexcept>

#include "commands.hpp"

namespace cuzk::app {

namespace {

cli::Command daemon_spec() {
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
  return c;
}

// The connection of every client command: --daemon ADDR and --token T (else $CUZK_TOKEN).
cli::Command client_spec(const char* name, const char* summary) {
  cli::Command c(name, summary);
  c.option("--daemon", "ADDR",
           "the daemon's address: unix:///path.sock, a socket's path, or HOST:PORT (default: $CUZK_DAEMON, else "
           "the embedded default's socket, unix://$XDG_RUNTIME_DIR/cuzk.sock)")
      .option("--token", "T", "the daemon's token, needed over TCP (default: $CUZK_TOKEN)");
  return c;
}

// The witnesses' options of submit and loadgen.
void witness_options(cli::Command& c) {
  c.option("--circuit", "ID", "the circuit, by the id the daemon's configuration gives it")
      .required()
      .option("--partitions", "W0,W1,...", "the witness files (.wtns), one partition each")
      .required()
      .option("--priority", "P", "low, normal, high, critical (default normal)")
      .option("--stream", "1|0", "send the witnesses in pieces (SubmitProofStream) whatever their size")
      .option("--by-path", "1|0",
              "send the files' paths instead: a daemon on this host reads them in place (they must be under its "
              "witness_dirs and stay until the job ends). Both take 1/0, true/false, yes/no or on/off");
}

cli::Command submit_spec() {
  cli::Command c = client_spec("submit", "submit a job of partitions to a daemon; prints its id");
  witness_options(c);
  c.describe(
       "Prints the job id as the last line. The same --request-id returns the same job. Witnesses over 32 MiB in all "
       "(or with --stream 1) go in pieces (SubmitProofStream): a job is then not bounded by one message.")
      .option("--request-id", "R", "the caller's id of the job: submitting it again returns the same job");
  return c;
}

cli::Command await_spec() {
  cli::Command c = client_spec("await", "wait for a job of a daemon and write its proofs");
  c.synopsis("--daemon ADDR (<job> | --request-id R) --out DIR [options]")
      .describe(
          "Waits (progress on a terminal; retries while the daemon restarts), then writes the files of `cuzk prove "
          "--partitions ... --out`: proof_<i>.json, public_<i>.json, proofs.bin, summary.json, timeline.svg.")
      .optional_positional("<job>", "the job's id, as submit printed it")
      .option("--request-id", "R", "the job by its request id instead")
      .option("--out", "DIR", "where the files go")
      .required()
      .option("--timeout", "SECONDS", "give up after this long (default: never)");
  return c;
}

cli::Command cancel_spec() {
  cli::Command c = client_spec("cancel", "cancel a job of a daemon");
  c.synopsis("--daemon ADDR (<job> | --request-id R) [options]")
      .optional_positional("<job>", "the job's id, as submit printed it")
      .option("--request-id", "R", "the job by its request id instead");
  return c;
}

cli::Command srs_spec(bool preload) {
  cli::Command c = preload ? client_spec("preload", "load a circuit's key onto a daemon's devices")
                           : client_spec("evict", "drop a circuit's key from a daemon's devices");
  c.option("--circuit", "ID", "the circuit, by the id the daemon's configuration gives it")
      .required()
      .option("--device", "D", "one device by its name, e.g. gpu:1 (default: every device)");
  return c;
}

cli::Command loadgen_spec() {
  cli::Command c = client_spec("loadgen", "jobs over many connections to a daemon: jobs/s and latency");
  witness_options(c);
  c.describe(
       "N jobs over C connections, each a Prove call, or with witnesses over 32 MiB (or --stream 1) "
       "SubmitProofStream then AwaitProof: jobs/s and latency p50/p99.")
      .option("--jobs", "N", "jobs in all")
      .required()
      .option("--clients", "C", "connections, each a thread (default 4)")
      .option("--out", "DIR", "write each job's files to DIR/job_<k>/");
  return c;
}

}  // namespace

std::vector<cli::Command> network_specs() {
  return {daemon_spec(),   submit_spec(),
          await_spec(),    client_spec("status", "a daemon's status as JSON: devices, keys, queues, counters, version"),
          cancel_spec(),   srs_spec(true),
          srs_spec(false), loadgen_spec()};
}

cli::Command network_spec(const std::string& name) {
  for (auto& c : network_specs())
    if (c.name() == name) return c;
  throw std::logic_error("no network command named " + name);
}

}  // namespace cuzk::app
