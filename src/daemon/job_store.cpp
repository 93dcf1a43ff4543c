// SPDX-License-Identifier: MIT OR Apache-2.0
#include "daemon/job_store.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <utility>

#include "daemon/service_util.hpp"

namespace cuzk::daemon {

const double Stats::kPhaseBounds[kBuckets - 1] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};

void Stats::submitted() {
  std::lock_guard lk(mu_);
  counters_.set_jobs_submitted(counters_.jobs_submitted() + 1);
}

void Stats::recovered() {
  std::lock_guard lk(mu_);
  counters_.set_jobs_recovered(counters_.jobs_recovered() + 1);
}

void Stats::rejected() {
  std::lock_guard lk(mu_);
  counters_.set_requests_rejected(counters_.requests_rejected() + 1);
}

void Stats::ended(v1::JobState s) {
  std::lock_guard lk(mu_);
  if (s == v1::DONE)
    counters_.set_jobs_done(counters_.jobs_done() + 1);
  else if (s == v1::FAILED)
    counters_.set_jobs_failed(counters_.jobs_failed() + 1);
  else
    counters_.set_jobs_cancelled(counters_.jobs_cancelled() + 1);
}

void Stats::proved(const engine::PartitionRecord& rec) {
  std::lock_guard lk(mu_);
  ++phases_.count;
  for (int p = 0; p < kPhases; ++p) {
    const double s = std::max(0.0, rec.spans.at[size_t(p)].ms()) / 1000;
    phases_.sum[p] += s;
    int b = 0;
    while (b < kBuckets - 1 && s > kPhaseBounds[b]) ++b;
    ++phases_.buckets[p][b];
  }
}

v1::Counters Stats::counters() const {
  std::lock_guard lk(mu_);
  return counters_;
}

Stats::Phases Stats::phases() const {
  std::lock_guard lk(mu_);
  return phases_;
}

size_t HostBudget::held() const {
  std::lock_guard lk(mu_);
  return held_;
}

void HostBudget::check(size_t bytes) const {
  std::lock_guard lk(mu_);
  if (bytes > limit_)
    throw Rejected(Rejected::InvalidArgument, "the job's witnesses are " + std::to_string(bytes) +
                                                  " bytes, more than the host budget (" + std::to_string(limit_) + ")");
  if (held_ + bytes > limit_)
    throw Rejected(Rejected::ResourceExhausted, "host budget: unfinished jobs hold " + std::to_string(held_) +
                                                    " bytes of witnesses, this job " + std::to_string(bytes) +
                                                    ", the budget is " + std::to_string(limit_) + "; retry later");
}

void HostBudget::hold(size_t bytes) {
  std::lock_guard lk(mu_);
  held_ += bytes;
}

void HostBudget::release(size_t bytes) {
  std::lock_guard lk(mu_);
  held_ -= bytes;
}

void MetricsText::family(const char* name, const char* type, const char* help) {
  out_ += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
}

void MetricsText::sample(const char* name, const std::string& labels, double v) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  out_ += std::string(name) + (labels.empty() ? "" : "{" + labels + "}") + " " + buf + "\n";
}

void process_metrics(MetricsText& m, double start_time_s) {
  long pages_total = 0, pages_resident = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages_total, &pages_resident) != 2) pages_total = pages_resident = 0;
    std::fclose(f);
  }
  const double page = double(::sysconf(_SC_PAGESIZE));
  m.family("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.");
  m.sample("process_resident_memory_bytes", "", double(pages_resident) * page);
  m.family("process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.");
  m.sample("process_virtual_memory_bytes", "", double(pages_total) * page);
  size_t fds = 0;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec); !ec && it != std::filesystem::end(it);
       it.increment(ec))
    ++fds;
  m.family("process_open_fds", "gauge", "Number of open file descriptors.");
  m.sample("process_open_fds", "", double(fds));
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) == 0) {
    m.family("process_max_fds", "gauge", "Maximum number of open file descriptors.");
    m.sample("process_max_fds", "", lim.rlim_cur == RLIM_INFINITY ? INFINITY : double(lim.rlim_cur));
  }
  rusage ru{};
  ::getrusage(RUSAGE_SELF, &ru);
  const double cpu =
      double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  m.family("process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.");
  m.sample("process_cpu_seconds_total", "", cpu);
  m.family("process_start_time_seconds", "gauge", "Start time of the process since unix epoch in seconds.");
  m.sample("process_start_time_seconds", "", start_time_s);
}

std::string MetricsText::escape(const std::string& v) {
  std::string r;
  for (char ch : v) {
    if (ch == '\\')
      r += "\\\\";
    else if (ch == '"')
      r += "\\\"";
    else if (ch == '\n')
      r += "\\n";
    else
      r += ch;
  }
  return r;
}

uint32_t Submission::partitions() const {
  switch (kind) {
    case Files:
      return uint32_t(files.size());
    case Paths:
      return uint32_t(paths.size());
    default:
      return uint32_t(req.partitions_size());
  }
}

v1::SubmitProofResponse same_request(const v1::SubmitProofRequest& req, uint64_t digest, const std::string& job_id,
                                     uint64_t stored_digest, const std::string& detail) {
  if (detail::digests_differ(stored_digest, digest))
    throw Rejected(Rejected::AlreadyExists,
                   "request_id '" + req.request_id() + "' was used for another request (job " + job_id + detail + ")");
  v1::SubmitProofResponse resp;
  resp.set_job_id(job_id);
  resp.set_existing(true);
  return resp;
}

JournalSpace::JournalSpace(std::string dir, size_t reserve, FreeBytes free_bytes)
    : dir_(std::move(dir)), reserve_(reserve), free_bytes_(std::move(free_bytes)) {
  if (!free_bytes_)
    free_bytes_ = [d = dir_]() -> std::optional<uint64_t> {
      struct statvfs v {};
      if (::statvfs(d.c_str(), &v) != 0) return std::nullopt;
      return uint64_t(v.f_bavail) * v.f_frsize;
    };
}

// Under mu_, so that two reservations cannot both see the same free bytes.
void JournalSpace::take(size_t bytes) {
  std::lock_guard lk(mu_);
  // daemon.journal_reserve = 0: no reserve kept, nothing checked (the uploads are still counted).
  const std::optional<uint64_t> free_now = reserve_ == 0 ? std::nullopt : free_bytes_();
  if (free_now && *free_now < uint64_t(reserve_) + pending_ + bytes)
    throw Rejected(Rejected::ResourceExhausted,
                   "the journal's filesystem (" + dir_ + ") has " + std::to_string(*free_now) +
                       " bytes free; uploads in progress hold " + std::to_string(pending_) + ", this request needs " +
                       std::to_string(bytes) + " more and the daemon keeps " + std::to_string(reserve_) +
                       " free (daemon.journal_reserve); retry later");
  pending_ += bytes;
}

void JournalSpace::give_back(size_t bytes) {
  std::lock_guard lk(mu_);
  pending_ -= std::min(pending_, bytes);
}

size_t JournalSpace::reserved() const {
  std::lock_guard lk(mu_);
  return pending_;
}

JournalSpace::Reservation JournalSpace::reserve(size_t bytes) {
  take(bytes);
  Reservation r;
  r.space_ = this;
  r.pending_ = bytes;
  return r;
}

JournalSpace::Reservation& JournalSpace::Reservation::operator=(Reservation&& o) noexcept {
  if (this != &o) {
    release();
    space_ = std::exchange(o.space_, nullptr);
    pending_ = std::exchange(o.pending_, 0);
  }
  return *this;
}

void JournalSpace::Reservation::grow(size_t more) {
  space_->take(more);
  pending_ += more;
}

void JournalSpace::Reservation::need(size_t n) {
  if (n > pending_) grow(n - pending_);
}

void JournalSpace::Reservation::wrote(size_t n) {
  n = std::min(n, pending_);
  space_->give_back(n);
  pending_ -= n;
}

void JournalSpace::Reservation::release() {
  if (space_) space_->give_back(pending_);
  space_ = nullptr;
  pending_ = 0;
}

}  // namespace cuzk::daemon
