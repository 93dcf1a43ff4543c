// What the daemon's service (service.cpp) and its farm mode (farm_store.cpp) share: refusals, the
// counters and the phase histogram (Stats), the host budget, the /metrics text writer, the
// request_id check and the journal's free-space check.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuzk/v1/engine.pb.h"
#include "daemon/config.hpp"
#include "engine/engine.hpp"

namespace cuzk::daemon {

// A request the service refuses; nothing was changed by it.
struct Rejected : std::runtime_error {
  enum Code { InvalidArgument, NotFound, ResourceExhausted, Unavailable } code;
  Rejected(Code c, const std::string& m) : std::runtime_error(m), code(c) {}
};

using Log = std::function<void(const std::string&)>;

// The daemon's counters, and the phases of the partitions proved here as a histogram (/metrics).
class Stats {
 public:
  static constexpr int kPhases = 7, kBuckets = 14;  // buckets: kPhaseBounds and +Inf
  static const char* const kPhaseNames[kPhases];
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

// A request whose request_id already has job `job_id` (with `stored_digest`, see
// detail::digests_differ): that job, or InvalidArgument when the request is another one
// (`detail`, appended to the job id, describes that job).
v1::SubmitProofResponse same_request(const v1::SubmitProofRequest& req, uint64_t digest, const std::string& job_id,
                                     uint64_t stored_digest, const std::string& detail = "");
// Refuses (ResourceExhausted) when writing `more` bytes under the journal's directory would leave
// less than journal_reserve free on its filesystem.
void check_journal_space(const Config& cfg, size_t more);

}  // namespace cuzk::daemon
