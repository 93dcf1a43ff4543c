// SPDX-License-Identifier: MIT OR Apache-2.0
// Where the daemon's jobs live and how they are run: the JobStore interface and its two
// implementations, the journal (journal_store.cpp: a directory of this host, every job proved by
// this daemon's engine) and the farm (farm_store.cpp: a PostgreSQL queue shared by daemons that
// claim partitions). The Service (service.hpp) validates requests and keeps what both share:
// counters and the phase histogram (Stats), the host budget, status and metrics; a store accepts,
// runs, awaits and cancels jobs, recovers its work at start and hands it back at stop.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "daemon/config.hpp"
#include "daemon/generic_api.hpp"
#include "daemon/log.hpp"
#include "daemon/witness_files.hpp"
#include "engine/engine.hpp"
#include "io/binfile.hpp"

namespace cuzk::daemon {

// A request the service refuses; nothing was changed by it.
struct Rejected : std::runtime_error {
  enum Code { InvalidArgument, NotFound, AlreadyExists, ResourceExhausted, Unavailable, FailedPrecondition } code;
  Rejected(Code c, const std::string& m) : std::runtime_error(m), code(c) {}
};

using Circuits = std::map<std::string, std::shared_ptr<engine::Circuit>>;

// The daemon's counters, and the phases of the partitions proved here as a histogram (/metrics).
class Stats {
 public:
  static constexpr int kPhases = int(kPhaseCount), kBuckets = 14;  // phases: groth16/phases.hpp's table
  // buckets: kPhaseBounds and +Inf
  static const double kPhaseBounds[kBuckets - 1];  // upper bounds, seconds
  struct Phases {
    uint64_t count = 0;
    std::array<std::array<uint64_t, kBuckets>, kPhases> buckets{};
    std::array<double, kPhases> sum{};
  };

  void submitted();
  void recovered();
  void rejected();
  void ended(v1::JobState s);  // DONE, FAILED; anything else counts as cancelled
  void proved(const engine::PartitionRecord& rec);
  v1::Counters counters() const;
  Phases phases() const;

 private:
  mutable std::mutex mu_;
  v1::Counters counters_;
  Phases phases_;
};

// daemon.host_budget: witness bytes held on this host at once (the local jobs' until they end,
// the farm's claims' while they run).
class HostBudget {
 public:
  explicit HostBudget(size_t limit) : limit_(limit) {}
  size_t limit() const { return limit_; }
  size_t held() const;
  // Refuses a job of `bytes`: InvalidArgument when it is larger than the budget,
  // ResourceExhausted (retry later) while what is held leaves too little room.
  void check(size_t bytes) const;
  void hold(size_t bytes);
  void release(size_t bytes);

 private:
  const size_t limit_;
  mutable std::mutex mu_;
  size_t held_ = 0;
};

// daemon.journal_reserve, kept across every upload and submission at once: each reserves the
// bytes it will write (a stream what its header announces, else each piece as it comes) before
// it writes them, and the check counts what the others have reserved and not yet written, so
// concurrent ones cannot pass the reserve together. What is written is then the filesystem's to
// count.
class JournalSpace {
 public:
  // Free bytes of the journal's filesystem now; nullopt: unknown (nothing is refused then, the
  // writes themselves will tell).
  using FreeBytes = std::function<std::optional<uint64_t>()>;
  // `free_bytes` empty: statvfs of `dir`.
  JournalSpace(std::string dir, size_t reserve, FreeBytes free_bytes = {});
  JournalSpace(const JournalSpace&) = delete;
  JournalSpace& operator=(const JournalSpace&) = delete;

  // Bytes reserved and not yet written; released when it ends.
  class Reservation {
   public:
    Reservation() = default;
    Reservation(Reservation&& o) noexcept { *this = std::move(o); }
    Reservation& operator=(Reservation&& o) noexcept;
    ~Reservation() { release(); }
    explicit operator bool() const { return space_ != nullptr; }
    void grow(size_t more);  // Rejected (ResourceExhausted) when there is no room
    void need(size_t n);     // before writing n bytes: grows by what is missing
    void wrote(size_t n);    // n bytes (needed before) are on disk now
    void release();

   private:
    friend class JournalSpace;
    JournalSpace* space_ = nullptr;
    size_t pending_ = 0;
  };
  // Throws Rejected (ResourceExhausted) when `bytes` more would leave less than the reserve free.
  Reservation reserve(size_t bytes);
  size_t reserved() const;  // by every reservation, not yet written

 private:
  void take(size_t bytes);
  void give_back(size_t bytes);
  std::string dir_;
  size_t reserve_;
  FreeBytes free_bytes_;
  mutable std::mutex mu_;
  size_t pending_ = 0;
};

// Prometheus text, format 0.0.4.
class MetricsText {
 public:
  void family(const char* name, const char* type, const char* help);
  void sample(const char* name, const std::string& labels, double v);
  static std::string escape(const std::string& label_value);
  const std::string& text() const { return out_; }

 private:
  std::string out_;
};

// The process_* families every Prometheus client exports (resident and virtual memory, open and
// maximum file descriptors, CPU seconds, start time), from /proc/self and getrusage.
void process_metrics(MetricsText& m, double start_time_s);

// What a store works with. All of it is the service's and outlives the store; the engine and the
// circuits are ready before the store starts.
struct StoreContext {
  const Config& cfg;
  const Log& log;  // may be empty
  engine::Engine& engine;
  const Circuits& circuits;
  const WitnessDirs& witness_dirs;
  Stats& stats;
  HostBudget& budget;
  JournalSpace& space;  // journal_reserve, shared by every submission
  void say(const std::string& s) const { log(s); }
  void warn(const std::string& s) const { log.warning(s); }
};

// A submission the service has validated (circuit, kind, priority, count, every witness's
// header), as a store takes it.
struct Submission {
  enum Kind {
    Bytes,  // the witnesses are in req.partitions()
    Files,  // streamed: written to `files` under Service::incoming_dir(), mapped in `mapped`
    Paths,  // named by path under daemon.witness_dirs: `paths`, opened and identified
  };
  Submission(const v1::SubmitProofRequest& r, uint64_t d, Kind k) : req(r), digest(d), kind(k) {}
  const v1::SubmitProofRequest& req;  // the request; for Files its head
  uint64_t digest;                    // detail::RequestDigest of the whole request
  Kind kind;
  size_t bytes = 0;  // Bytes: the witnesses' size
  std::vector<std::string> files;
  std::vector<std::shared_ptr<io::FileBytes>> mapped;
  std::vector<v1::WitnessPath> paths;
  uint32_t partitions() const;
};

class JobStore {
 public:
  virtual ~JobStore() = default;

  // Recovers what the store already holds and starts its threads. Throws Error when the store
  // cannot be used.
  virtual void start() = 0;
  // Accepts nothing more; waits up to `grace_s` for the work in flight; stops the rest, which
  // stays with the store (the journal runs it after a restart, the farm queues it again). Does
  // nothing once stopped.
  virtual void stop(double grace_s) = 0;
  virtual bool stopping() = 0;  // stop() has begun: new jobs are refused
  virtual bool stopped() = 0;   // stop() has given up waiting: awaits answer at once

  // Whether witnesses named by path can be proved (a farm's partitions may run on another host).
  virtual bool takes_paths() const = 0;
  // The job the request's request_id already has, where the store can tell before the request
  // is validated (a farm finds out as it submits). Throws Rejected when the request_id was used
  // for another request.
  virtual std::optional<v1::SubmitProofResponse> existing(const v1::SubmitProofRequest& req, uint64_t digest) = 0;
  // Durable when it returns; `existing` set when the request_id already had a job (that one).
  // Throws Rejected.
  virtual v1::SubmitProofResponse accept(Submission s) = 0;
  // Waits up to the request's timeout (at most a day) for the job to end; then its state. The
  // request names a job (job_id or request_id).
  virtual v1::JobResult await(const v1::AwaitProofRequest& req) = 0;
  virtual v1::CancelProofResponse cancel(const v1::CancelProofRequest& req) = 0;

  // The store's part of the status (jobs_active, the farm's view) and of /metrics.
  virtual void status(v1::GetStatusResponse& s) = 0;
  virtual void metrics(const v1::GetStatusResponse& s, MetricsText& m) = 0;

  void refuse_if_stopping() {
    if (stopping()) throw Rejected(Rejected::Unavailable, "the daemon is stopping");
  }
};

// queue.backend "local" and "postgres". The farm's throws InvalidArgument when this cuzk was built
// without libpq.
std::unique_ptr<JobStore> make_journal_store(const StoreContext& ctx);
std::unique_ptr<JobStore> make_farm_store(const StoreContext& ctx);

// A request whose request_id already has job `job_id` (with `stored_digest`, see
// detail::digests_differ): that job, or AlreadyExists when the request is another one (`detail`,
// appended to the job id, describes that job).
v1::SubmitProofResponse same_request(const v1::SubmitProofRequest& req, uint64_t digest, const std::string& job_id,
                                     uint64_t stored_digest, const std::string& detail = "");

}  // namespace cuzk::daemon
