// SPDX-License-Identifier: MIT OR Apache-2.0
// Curio's proving API (package cuzk.v1, proto/cuzk/v1/proving.proto), served by the daemon beside
// cuzk's own (cuzk.groth16.v1) on the same engine: Filecoin proofs from what Curio sends (a PoRep
// C1 output, PoSt vanilla proofs, SnapDeals partition proofs) through filecoin::Prover, whose
// circuits are registered on the engine the first time they are needed (their .params read from
// [filecoin] params_dir) and whose keys stay resident per device like every circuit's. Independent
// of the transport: the gRPC layer is in server.cpp; errors are Rejected.
//
// Filecoin jobs are not journaled: a job and its result live in this daemon's memory (results for
// daemon.keep_results after they end). After a restart Curio submits again (it keys its requests
// by sector and randomness, and resubmits what it has no result of).
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "cuzk/v1/proving.pb.h"
#include "daemon/config.hpp"
#include "daemon/job_store.hpp"
#include "engine/engine.hpp"
#include "filecoin/prover.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::daemon {

namespace curio = ::cuzk::v1;  // Curio's package (daemon::v1 is cuzk's own)

class CurioService {
 public:
  // Throws InvalidArgument when a [filecoin] directory is not a directory.
  CurioService(const Config& cfg, engine::Engine& engine, Log log);
  ~CurioService();  // cancels what still runs and waits for it

  // Checks the request and submits its job (the same request_id again, while its job runs or
  // after it completed: that job). INVALID_ARGUMENT with the prover's message for a bad request;
  // FAILED_PRECONDITION when no parameter directory is configured for its kind.
  curio::SubmitProofResponse submit(const curio::SubmitProofRequest& q);
  // Waits up to timeout_ms (0: no limit) for the job, or until `gone` says the client left:
  // COMPLETED with the proof, FAILED, CANCELLED, or TIMEOUT. NOT_FOUND for an unknown job_id.
  curio::AwaitProofResponse await(const std::string& job_id, uint64_t timeout_ms, const std::function<bool()>& gone);
  curio::CancelProofResponse cancel(const curio::CancelProofRequest& q);
  curio::GetStatusResponse status();
  curio::PreloadSrsResponse preload(const curio::PreloadSrsRequest& q);
  curio::EvictSrsResponse evict(const curio::EvictSrsRequest& q);
  // /metrics: Filecoin proofs by kind and outcome.
  void metrics(MetricsText& m);

  // Shutdown: new requests are refused from stop_accepting(); wait_idle() waits for the jobs in
  // flight until `deadline` (what is left is cancelled by the destructor).
  void stop_accepting();
  void wait_idle(std::chrono::steady_clock::time_point deadline);

 private:
  struct Job;
  filecoin::Prover* prover_for(filecoin::ProofKind k, curio::ProofKind ck);
  void finish(Job& j, const filecoin::Prover::Outcome& o, const std::string& error);
  void collect();  // the collector thread: jobs nobody awaits, expired results

  const Config& cfg_;
  engine::Engine& engine_;
  Log log_;
  ThreadPool pool_;  // the provers': reading requests, recording circuits
  std::mutex prover_mu_;
  std::map<std::string, std::unique_ptr<filecoin::Prover>> provers_;  // by parameter directory

  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::shared_ptr<Job>> jobs_;        // by job id
  std::map<std::string, std::shared_ptr<Job>> by_request_;  // by request_id (also while submitting)
  std::set<std::string> circuits_;                          // Filecoin circuits registered on the engine
  bool accepting_ = true, stopping_ = false;
  std::map<std::pair<int, int>, uint64_t> ended_;  // (proof kind, status) -> count
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::thread collector_;
};

}  // namespace cuzk::daemon
