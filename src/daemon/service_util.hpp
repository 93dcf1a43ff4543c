// Helpers shared by the daemon's local and farm modes (service.cpp, farm.cpp).
#pragma once
#include <sys/random.h>

#include <chrono>
#include <cstdint>
#include <string>

#include "cuzk/prove.hpp"
#include "cuzk/v1/engine.pb.h"
#include "engine/engine.hpp"
#include "engine/record.hpp"

namespace cuzk::daemon::detail {


inline uint64_t unix_ms() {
  return uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count());
}

inline std::string new_job_id() {
  uint8_t b[8];
  size_t got = 0;
  while (got < sizeof b) {
    ssize_t k = ::getrandom(b + got, sizeof b - got, 0);
    if (k > 0) got += size_t(k);
  }
  static const char* hex = "0123456789abcdef";
  std::string s = "j-";
  for (uint8_t x : b) s += hex[x >> 4], s += hex[x & 15];
  return s;
}

inline engine::Priority to_engine(v1::Priority p) {
  switch (p) {
    case v1::LOW: return engine::Priority::Low;
    case v1::HIGH: return engine::Priority::High;
    case v1::CRITICAL: return engine::Priority::Critical;
    default: return engine::Priority::Normal;
  }
}

inline v1::JobState to_proto(engine::JobState s) {
  switch (s) {
    case engine::JobState::Queued: return v1::QUEUED;
    case engine::JobState::Running: return v1::RUNNING;
    case engine::JobState::Done: return v1::DONE;
    case engine::JobState::Failed: return v1::FAILED;
    default: return v1::CANCELLED;
  }
}

inline const char* state_name(v1::JobState s) {
  switch (s) {
    case v1::QUEUED: return "queued";
    case v1::RUNNING: return "running";
    case v1::DONE: return "done";
    case v1::FAILED: return "failed";
    case v1::CANCELLED: return "cancelled";
    default: return "unknown";
  }
}

// What a request asks for, so that a request_id reused for something else is refused. Fed
// piece by piece (streamed submissions) it gives the same value as for the whole request.
struct RequestDigest {
  uint64_t h = 1469598103934665603ull;
  void bytes(const void* p, size_t n) {
    for (size_t i = 0; i < n; ++i) h = (h ^ static_cast<const unsigned char*>(p)[i]) * 1099511628211ull;
  }
  void end(size_t n) {  // closes a field of n bytes
    for (int i = 0; i < 8; ++i) h = (h ^ ((n >> (8 * i)) & 0xff)) * 1099511628211ull;
  }
  void field(const std::string& b) {
    bytes(b.data(), b.size());
    end(b.size());
  }
  void head(const v1::SubmitProofRequest& q) {
    field(q.circuit_id());
    field(std::to_string(int(q.priority() == v1::PRIORITY_UNSPECIFIED ? v1::NORMAL : q.priority())));
  }
  uint64_t value() const { return h | 1; }  // never 0 (0: a journal entry that has none)
};

inline uint64_t digest(const v1::SubmitProofRequest& q) {
  RequestDigest d;
  d.head(q);
  for (auto& w : q.partitions()) d.field(w);
  if (q.partition_paths_size() > 0) {  // a field of its own: never equal to some witness bytes
    d.end(~size_t(0));
    for (auto& p : q.partition_paths()) d.field(p);
  }
  return d.value();
}

// One partition's result as the protocol carries it: where it ran, its phases, its proof.
inline void fill_partition_result(v1::PartitionResult* p, const engine::PartitionRecord& rec, uint32_t index,
                                  int attempts, const std::string& proof_json, const std::string& public_json,
                                  std::string compressed) {
  p->set_index(index);
  p->set_device(rec.device);
  p->set_worker(rec.worker);
  p->set_attempts(attempts);
  auto* t = p->mutable_timings();
  t->set_queued_ms(rec.queued.ms());
  t->set_synthesis_ms(rec.synth.ms());
  t->set_stage_ms(rec.stage.ms());
  t->set_budget_wait_ms(rec.budget_wait_ms);
  t->set_lock_wait_ms(rec.lock_wait.ms());
  t->set_kernels_ms(rec.kernels.ms());
  t->set_ntt_h_ms(rec.ntt_h_ms);
  t->set_msm_a_ms(rec.msm_a_ms);
  t->set_msm_b1_ms(rec.msm_b1_ms);
  t->set_msm_b2_ms(rec.msm_b2_ms);
  t->set_msm_c_ms(rec.msm_c_ms);
  t->set_msm_h_ms(rec.msm_h_ms);
  t->set_finish_ms(rec.finish.ms());
  p->set_proof_json(proof_json);
  p->set_public_json(public_json);
  p->set_proof_compressed(std::move(compressed));
}

inline std::string version_line() { return std::string(version_string()) + " (commit " + git_commit() + ")"; }


}  // namespace cuzk::daemon::detail
