// SPDX-License-Identifier: MIT OR Apache-2.0
// Helpers shared by the daemon's service and its job stores (service.cpp, journal_store.cpp,
// farm_store.cpp).
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <sys/random.h>

#include "cuzk/prove.hpp"
#include "daemon/generic_api.hpp"
#include "engine/engine.hpp"
#include "engine/record.hpp"

namespace cuzk::daemon::detail {

inline uint64_t unix_ms() {
  return uint64_t(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
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
    case v1::LOW:
      return engine::Priority::Low;
    case v1::HIGH:
      return engine::Priority::High;
    case v1::CRITICAL:
      return engine::Priority::Critical;
    default:
      return engine::Priority::Normal;
  }
}

inline v1::Priority to_proto(engine::Priority p) {
  switch (p) {
    case engine::Priority::Low:
      return v1::LOW;
    case engine::Priority::High:
      return v1::HIGH;
    case engine::Priority::Critical:
      return v1::CRITICAL;
    default:
      return v1::NORMAL;
  }
}

inline v1::JobState to_proto(engine::JobState s) {
  switch (s) {
    case engine::JobState::Queued:
      return v1::QUEUED;
    case engine::JobState::Running:
      return v1::RUNNING;
    case engine::JobState::Done:
      return v1::DONE;
    case engine::JobState::Failed:
      return v1::FAILED;
    default:
      return v1::CANCELLED;
  }
}

inline const char* state_name(v1::JobState s) {
  switch (s) {
    case v1::QUEUED:
      return "queued";
    case v1::RUNNING:
      return "running";
    case v1::DONE:
      return "done";
    case v1::FAILED:
      return "failed";
    case v1::CANCELLED:
      return "cancelled";
    default:
      return "unknown";
  }
}

// What a request asks for, so that a request_id reused for something else is refused. Fed
// piece by piece (streamed submissions) it gives the same value as for the whole request,
// however the pieces are cut. Four independent multiply-xor lanes over 8-byte words: the
// witnesses of a job (gigabytes) are hashed at memory speed, not a byte per multiply. Not a
// cryptographic hash: it tells apart the requests of clients that share a daemon.
//
// Values are 2 mod 4. Daemons before this one stored odd values (byte-wise FNV-1a); such a
// stored value cannot be compared with this one and counts as unknown (like 0): see
// digests_differ().
struct RequestDigest {
  static constexpr uint64_t kPrime = 0x100000001b3ull * 0x9e3779b97f4a7c15ull | 1;
  uint64_t lane[4] = {0xcbf29ce484222325ull, 0x84222325cbf29ce4ull, 0x9e3779b97f4a7c15ull, 0xbf58476d1ce4e5b9ull};
  uint8_t buf[32] = {};
  size_t nbuf = 0;
  void block(const uint8_t* p) {
    for (int i = 0; i < 4; ++i) {
      uint64_t w;
      std::memcpy(&w, p + 8 * i, 8);
      lane[i] = (lane[i] ^ w) * kPrime;
      lane[i] ^= lane[i] >> 31;
    }
  }
  void bytes(const void* data, size_t n) {
    auto p = static_cast<const uint8_t*>(data);
    if (nbuf) {
      const size_t k = std::min(n, sizeof buf - nbuf);
      std::memcpy(buf + nbuf, p, k);
      nbuf += k, p += k, n -= k;
      if (nbuf < sizeof buf) return;
      block(buf), nbuf = 0;
    }
    for (; n >= sizeof buf; p += sizeof buf, n -= sizeof buf) block(p);
    std::memcpy(buf, p, n);
    nbuf = n;
  }
  void end(size_t n) {  // closes a field of n bytes
    if (nbuf) {
      std::memset(buf + nbuf, 0, sizeof buf - nbuf);
      block(buf), nbuf = 0;
    }
    uint8_t len[32] = {};
    std::memcpy(len, &n, sizeof n);
    len[31] = 0xfe;
    block(len);  // every field ends with its length: fields are told apart by where they end
  }
  void field(const std::string& b) {
    bytes(b.data(), b.size());
    end(b.size());
  }
  void head(const v1::SubmitProofRequest& q) {
    field(q.circuit_id());
    field(std::to_string(int(q.priority() == v1::PRIORITY_UNSPECIFIED ? v1::NORMAL : q.priority())));
  }
  uint64_t value() const {
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint64_t l : lane) {
      h = (h ^ l) * kPrime;
      h ^= h >> 29;
    }
    return (h & ~uint64_t(3)) | 2;
  }
};

// A stored digest and a request's: whether they show different requests. 0 (none stored) and
// odd values (stored by daemons with the byte-wise digest) cannot tell.
inline bool digests_differ(uint64_t stored, uint64_t request) {
  return stored != 0 && (stored & 1) == 0 && stored != request;
}

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
  t->set_queued_ms(rec.ms(Phase::Queue));
  t->set_synthesis_ms(rec.ms(Phase::Synthesis));
  t->set_stage_ms(rec.ms(Phase::Stage));
  t->set_budget_wait_ms(rec.ms(Phase::BudgetWait));
  t->set_lock_wait_ms(rec.ms(Phase::LockWait));
  t->set_kernels_ms(rec.ms(Phase::Kernels));
  t->set_ntt_h_ms(rec.ms(Phase::NttH));
  t->set_msm_a_ms(rec.ms(Phase::MsmA));
  t->set_msm_b1_ms(rec.ms(Phase::MsmB1));
  t->set_msm_b2_ms(rec.ms(Phase::MsmB2));
  t->set_msm_c_ms(rec.ms(Phase::MsmC));
  t->set_msm_h_ms(rec.ms(Phase::MsmH));
  t->set_finish_ms(rec.ms(Phase::Finish));
  t->set_abc_ms(rec.ms(Phase::Abc));
  t->set_verify_ms(rec.ms(Phase::Verify));
  p->set_proof_json(proof_json);
  p->set_public_json(public_json);
  p->set_proof_compressed(std::move(compressed));
}

inline std::string version_line() { return std::string(version_string()) + " (commit " + git_commit() + ")"; }

}  // namespace cuzk::daemon::detail
