// SPDX-License-Identifier: MIT OR Apache-2.0
// The daemon's core, independent of the transport: requests validated and handed to the job
// store (job_store.hpp: the local journal or the farm's database), which runs, awaits and cancels
// them; status and metrics. The gRPC and HTTP servers (server.cpp) are thin layers over it.
#pragma once
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "daemon/config.hpp"
#include "daemon/generic_api.hpp"
#include "daemon/job_store.hpp"
#include "daemon/witness_files.hpp"
#include "engine/engine.hpp"
#include "io/binfile.hpp"

namespace cuzk::daemon {

class CurioService;  // curio_service.hpp

class Service {
 public:
  // Loads the circuits, starts the engine and opens the job store (queue.backend), which
  // recovers its jobs; `progress` hears each step as it begins ("circuit 'id' (1 of 3): reading
  // PATH"). Throws (InvalidArgument / Error) when the config cannot be served.
  Service(Config cfg, Log log, const std::function<void(const std::string&)>& progress = {});
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
  // Room for `bytes` more in the journal (a stream's announced witnesses), held until the
  // reservation ends; RESOURCE_EXHAUSTED when it, with every reservation in progress, would
  // leave less than journal_reserve free on its filesystem.
  JournalSpace::Reservation reserve_journal_space(size_t bytes);
  bool stopped();  // shutdown has given up waiting: awaits answer at once

  // Stops accepting; waits up to `grace_s` for the jobs in flight to end; then stops the rest,
  // which stays with the job store (the journal runs it after a restart, the farm queues it
  // again). The engine goes with the Service.
  void shutdown(double grace_s);
  const Config& config() const { return cfg_; }
  // Curio's API (cuzk.v1) on the same engine.
  CurioService& curio() { return *curio_; }

 private:
  size_t validate(const v1::SubmitProofRequest& req);
  void check_witness(const std::string& name, std::shared_ptr<io::FileBytes> fb, const std::string& circuit);
  void check_witness_shape(const std::string& name, CurveId curve, uint64_t n_witness, const std::string& circuit);
  v1::SubmitProofResponse submit_paths(const v1::SubmitProofRequest& req, uint64_t req_digest);
  v1::WitnessPath witness_path(size_t index, const std::string& path, const std::string& circuit);
  // Counts a new job; logs it at debug.
  v1::SubmitProofResponse accepted(const v1::SubmitProofRequest& req, size_t partitions, v1::SubmitProofResponse resp);

  Config cfg_;
  Log log_;
  // daemon.witness_dirs. Declared before engine_, so it outlives the engine's synthesis
  // threads, which read witnesses through it.
  std::unique_ptr<WitnessDirs> witness_dirs_;
  Stats stats_;
  HostBudget budget_;
  JournalSpace space_;
  std::unique_ptr<engine::Engine> engine_;
  Circuits circuits_;
  std::unique_ptr<JobStore> store_;      // uses everything above
  std::unique_ptr<CurioService> curio_;  // uses the engine
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  double started_wall_s_ =
      double(std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
                 .count()) /
      1e3;
};

}  // namespace cuzk::daemon
