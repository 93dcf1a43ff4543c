// SPDX-License-Identifier: MIT OR Apache-2.0
// The farm's shared job queue in PostgreSQL (libpq): jobs, their partitions and results in
// tables the daemon creates and migrates (a versioned schema, one migrator at a time under an
// advisory lock). Daemons claim partitions with SELECT ... FOR UPDATE SKIP LOCKED in priority,
// job and partition order, only for the circuits they serve; a claim is a lease with a token,
// renewed by heartbeat; a partition whose lease expired is claimed again elsewhere; a result is
// written only with the claim's current token, so a stale writer is refused and a partition is
// proved at most once to completion. Witnesses travel as bytea, or as large objects above a
// size. Every transaction that touches a job and its partitions locks the job's row first.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cuzk::daemon {

struct PgError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class PgQueue {
 public:
  // 1: tables; 2: large objects; 3: failures apart from claims; 4: expired leases counted, the
  // circuits and keys each host serves
  static constexpr int kSchemaVersion = 4;

  // How long a call may wait for the server. A DSN's own connect_timeout wins; statement_s is
  // each session's statement_timeout, and a call with no answer within statement_s +
  // kAnswerSlackS (a server frozen, or its host gone without a reset) drops its connection and
  // fails; the next call connects again.
  struct Limits {
    double connect_s = 10, statement_s = 120, lock_s = 20;
  };
  static constexpr double kAnswerSlackS = 5;

  // Connects (throws PgError naming the server's message). One connection per PgQueue: use one
  // per thread that talks to the database.
  explicit PgQueue(const std::string& dsn);
  PgQueue(const std::string& dsn, Limits limits);
  ~PgQueue();
  PgQueue(const PgQueue&) = delete;
  PgQueue& operator=(const PgQueue&) = delete;

  // Creates or upgrades the tables; returns the schema version now in the database. Safe to
  // run from several daemons at once.
  int migrate();
  // Witnesses larger than this go into large objects (bytea holds at most 1 GB); default 64 MiB.
  void set_large_object_bytes(size_t n) { lo_bytes_ = n; }
  // A partition whose claims ended this often in a failure or an expired lease (its proving may
  // kill the daemon that claims it) fails its job; 0: no limit.
  void set_max_attempts(int n) { max_attempts_ = n; }

  struct NewJob {
    std::string job_id, request_id, circuit_id;
    std::string circuit_key;  // Circuit::key_digest of the accepting daemon ("" = any)
    int priority = 2;         // 1 low .. 4 critical
    uint64_t request_digest = 0;
    std::vector<std::string> witnesses;
  };
  struct Submitted {
    std::string job_id;
    bool existing = false;    // request_id already had a job: that one
    uint64_t digest = 0;      // the existing job's request digest
    std::string circuit_key;  // and the key it was accepted for
  };
  // Inserts the job and its partitions in one transaction (durable when it returns).
  Submitted submit(const NewJob& job);

  struct Claim {
    std::string job_id;
    int index = 0;
    int64_t token = 0;
    int attempts = 0;
    int priority = 2;
    std::string circuit_id, witness;
  };
  // Up to `max` partitions of jobs for `circuits`, queued or with an expired lease, leased to
  // `host` for `lease_s` seconds. First, any partition whose lease expired once more than
  // max_attempts allows fails its job (an expired lease counts as an attempt).
  // `keys[i]` is the key digest this host has for `circuits[i]`; only jobs accepted for that
  // key are claimed (without keys: jobs accepted with none).
  std::vector<Claim> claim(const std::string& host, const std::vector<std::string>& circuits, int max, double lease_s,
                           const std::vector<std::string>& keys = {});
  // Extends the leases of these claims; returns the tokens that no longer hold their partition
  // (claimed again elsewhere, or the job ended): their work can stop.
  std::vector<int64_t> renew(const std::vector<int64_t>& tokens, double lease_s);

  struct Proof {
    std::string device, timings_json, proof_json, public_json, compressed;
  };
  // Writes the result if `token` still holds the claim; false if it does not (stale: the
  // partition was claimed again elsewhere, or the job ended). Ends the job when it was the last.
  bool complete(const Claim& c, const Proof& p);
  // The claim gives the partition back: queued again for anyone. With `failure` (a device failed
  // it) the partition's failures count; at `max_attempts` failures and expired leases the job
  // fails with `error`. Without (the daemon stops) nothing counts against it.
  bool release(const Claim& c, const std::string& error, int max_attempts, bool failure = true);
  // The partition's input is bad: the job fails with `error`.
  bool fail(const Claim& c, const std::string& error);
  bool cancel(const std::string& job_id);
  // Deletes jobs that ended more than `keep_s` seconds ago (and their partitions and large
  // objects), and hosts silent as long; returns how many jobs.
  int prune(double keep_s);

  struct PartitionResult {
    int index = 0;
    std::string state, device, timings_json, proof_json, public_json, compressed, claimed_by;
    int attempts = 0;
  };
  struct JobView {
    std::string job_id, request_id, circuit_id, state, error;
    int priority = 2, partitions = 0, partitions_done = 0;
    double wall_ms = 0;                    // submitted -> ended (or now)
    std::vector<PartitionResult> results;  // with proofs when the job is done
  };
  std::optional<JobView> job(const std::string& job_id, const std::string& request_id, bool with_results);

  // The farm: hosts' heartbeats, and what is queued where. `keys[i]` is the host's key digest for
  // `circuits[i]` (none: jobs accepted with no key).
  void heartbeat(const std::string& host, const std::string& devices_json, const std::vector<std::string>& circuits,
                 const std::vector<std::string>& keys = {});
  struct Host {
    std::string host, devices_json, circuits;
    double heartbeat_age_s = 0;
    int claims = 0;
  };
  std::vector<Host> hosts();
  struct Depths {
    int jobs_queued = 0, jobs_running = 0, partitions_queued = 0, partitions_claimed = 0, partitions_expired = 0;
    int jobs_unplaceable = 0;         // with partitions to claim, and no host that serves their circuit
    double unplaceable_oldest_s = 0;  // and key heard from within live_s: the oldest one's age
  };
  Depths depths(double live_s = 60);

  // Runs a statement (tests, maintenance); scalar: the first column of the first row (0 if none).
  void exec(const std::string& sql);
  int64_t scalar(const std::string& sql);

 private:
  struct Conn;
  std::unique_ptr<Conn> c_;
  size_t lo_bytes_ = size_t(64) << 20;
  int max_attempts_ = 0;
  void fail_expired();
  void drop_witness_objects(const std::string& job_id, int index);  // index < 0: every partition
};

}  // namespace cuzk::daemon
