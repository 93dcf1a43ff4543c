// The daemon's core, independent of the transport: jobs accepted into the journal and the
// engine, awaited, cancelled, recovered after a restart; status and metrics. The gRPC and HTTP
// servers (server.cpp) are thin layers over it.
#pragma once
#include <condition_variable>
#include <map>
#include <optional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cuzk/v1/engine.pb.h"
#include "daemon/config.hpp"
#include "daemon/job_store.hpp"
#include "daemon/journal.hpp"
#include "daemon/witness_files.hpp"
#include "engine/engine.hpp"
#include "io/binfile.hpp"

namespace cuzk::daemon {

class Service {
 public:
  // Loads the circuits, starts the engine, opens the journal and runs again every job that
  // had no result. Throws (InvalidArgument / Error) when the config cannot be served.
  Service(Config cfg, Log log);
  ~Service();  // shutdown(0) if not done

  v1::SubmitProofResponse submit(const v1::SubmitProofRequest& req);
  // A streamed submission whose witnesses the server wrote to `files` (under incoming_dir());
  // they are taken (moved into the journal) whether it is accepted or not.
  v1::SubmitProofResponse submit_files(const v1::SubmitProofRequest& head, const std::vector<std::string>& files,
                                       uint64_t req_digest);
  std::string incoming_dir() const;
  v1::JobResult await(const v1::AwaitProofRequest& req);
  v1::CancelProofResponse cancel(const v1::CancelProofRequest& req);
  v1::GetStatusResponse status();
  std::string metrics_text();
  std::string status_json();
  std::string status_json(const v1::GetStatusResponse& s);  // of a status already taken
  v1::SrsResponse preload(const v1::SrsRequest& req);
  v1::SrsResponse evict(const v1::SrsRequest& req);
  void count_rejected();
  // What can be checked of a request but its witnesses (kind, priority, circuit, count); throws
  // Rejected.
  void validate_head(const v1::SubmitProofRequest& req, size_t partitions);
  // Refuses (RESOURCE_EXHAUSTED) when writing `more` bytes into the journal would leave less
  // than journal_reserve free on its filesystem.
  void check_journal_space(size_t more);
  bool stopped();  // shutdown has given up waiting: awaits answer at once

  // Stops accepting; waits up to `grace_s` for the jobs in flight to end; then stops the engine.
  // Jobs that did not end keep their journal entry without a result and run after a restart.
  void shutdown(double grace_s);
  const Config& config() const { return cfg_; }

 private:
  struct Job;
  std::optional<v1::SubmitProofResponse> existing(const v1::SubmitProofRequest& req, uint64_t req_digest,
                                                  bool look_up = true);
  size_t validate(const v1::SubmitProofRequest& req);
  std::shared_ptr<Job> new_job(const v1::SubmitProofRequest& head, uint64_t req_digest, uint32_t partitions);
  v1::SubmitProofResponse run_accepted(std::shared_ptr<Job> j);
  v1::SubmitProofResponse journal_and_run(std::shared_ptr<Job> j);
  void check_witness(const std::string& name, std::shared_ptr<io::FileBytes> fb, const std::string& circuit);
  void check_witness_shape(const std::string& name, CurveId curve, uint64_t n_witness, const std::string& circuit);
  v1::SubmitProofResponse submit_paths(const v1::SubmitProofRequest& req, uint64_t req_digest);
  v1::WitnessPath witness_path(size_t index, const std::string& path, const std::string& circuit);
  // daemon.witness_dirs. Declared before engine_, so it outlives the engine's synthesis
  // threads, which read witnesses through it.
  std::unique_ptr<WitnessDirs> witness_dirs_;
  // The farm mode (queue.backend = "postgres"; farm.cpp).
  struct Farm;
  struct FarmDeleter {
    void operator()(Farm* f) const;  // farm.cpp, where Farm is complete
  };
  std::unique_ptr<Farm, FarmDeleter> farm_;
  void farm_start();
  void farm_stop(double grace_s);
  v1::SubmitProofResponse farm_submit(const v1::SubmitProofRequest& req, uint64_t digest);
  v1::JobResult farm_await(const v1::AwaitProofRequest& req);
  v1::CancelProofResponse farm_cancel(const v1::CancelProofRequest& req);
  void farm_status(v1::GetStatusResponse& s);
  std::shared_ptr<Job> find(const std::string& job_id, const std::string& request_id);
  void start(std::shared_ptr<Job> j);
  void reap(std::shared_ptr<Job> j);
  v1::JobResult result_of(const Job& j, const engine::JobResult& r);
  void prune_loop();

  Config cfg_;
  Log log_;
  Stats stats_;
  HostBudget budget_;
  std::unique_ptr<Journal> journal_;
  std::unique_ptr<engine::Engine> engine_;
  std::map<std::string, std::shared_ptr<engine::Circuit>> circuits_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();

  std::mutex mu_;
  std::condition_variable cv_;
  std::mutex submit_mu_;  // one acceptance at a time: request_id check, journal, engine
  std::map<std::string, std::shared_ptr<Job>> jobs_;
  std::map<std::string, std::string> by_request_;
  std::map<std::string, std::thread> reapers_;  // by job id; joined once they have ended
  std::vector<std::string> reaped_;
  void join_reaped();  // under mu_
  std::thread pruner_;
  bool stopping_ = false, stopped_ = false;
  size_t active_ = 0;
};

}  // namespace cuzk::daemon
