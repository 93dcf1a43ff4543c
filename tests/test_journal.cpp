// SPDX-License-Identifier: MIT OR Apache-2.0
// The daemon's journal through the Service, on a simulated device: a corrupt record fails its job
// (quarantined, never forgotten), every fsync is checked and files of no job are removed at start,
// concurrent uploads share the journal's reserve, kept results stay on disk with a bounded cache,
// expiry does not rescan the directory, and reapers are a fixed few.
//
// fsync and statvfs are replaced in this binary (the daemon's calls resolve to them): a test
// makes the directory sync fail, or the filesystem report a given free space.
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <thread>
#include <vector>

#include "daemon/journal.hpp"
#include "daemon/service.hpp"
#include "testing.hpp"
#include "util/error.hpp"

using namespace cuzk;
using namespace cuzk::daemon;
namespace fs = std::filesystem;

namespace {
std::atomic<bool> fail_dir_fsync{false};
std::atomic<uint64_t> fake_free_bytes{0};  // 0: the filesystem's own answer
}  // namespace

extern "C" int fsync(int fd) {
  struct stat st {};
  if (fail_dir_fsync && ::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    errno = EIO;
    return -1;
  }
  return int(::syscall(SYS_fsync, fd));
}

extern "C" int statvfs(const char* path, struct statvfs* v) {
  struct statfs sf {};
  if (::statfs(path, &sf) != 0) return -1;
  *v = {};
  v->f_bsize = v->f_frsize = 4096;
  const uint64_t fake = fake_free_bytes;
  v->f_bavail = v->f_bfree = fake ? fake / 4096 : uint64_t(sf.f_bavail) * uint64_t(sf.f_bsize) / 4096;
  v->f_blocks = uint64_t(sf.f_blocks) * uint64_t(sf.f_bsize) / 4096;
  return 0;
}

namespace {

// A fresh directory, removed when the binary exits: on tmpfs where there is one (thousands of
// synced writes cost nothing there).
std::string tmpdir() {
  static struct Made {
    std::vector<std::string> dirs;
    ~Made() {
      std::error_code ec;
      for (auto& d : dirs) fs::remove_all(d, ec);
    }
  } made;
  std::string base = ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  std::string t = base + "/cuzk-journal-test.XXXXXX";
  if (!::mkdtemp(t.data())) std::abort();
  made.dirs.push_back(t);
  return t;
}

std::string read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

void write_all(const std::string& path, const std::string& b) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(b.data(), std::streamsize(b.size()));
}

// The file named `name` anywhere under `dir` ("" when none).
std::string find_file(const std::string& dir, const std::string& name) {
  std::error_code ec;
  for (auto& de : fs::recursive_directory_iterator(dir, ec))
    if (de.path().filename() == name) return de.path().string();
  return "";
}

size_t count_files(const std::string& dir, const std::string& suffix) {
  size_t n = 0;
  std::error_code ec;
  for (auto& de : fs::recursive_directory_iterator(dir, ec))
    if (de.is_regular_file() && de.path().filename().string().ends_with(suffix)) ++n;
  return n;
}

// The most entries any directory under `dir` holds.
size_t widest_directory(const std::string& dir) {
  size_t most = 0, here = 0;
  std::error_code ec;
  for (auto& de : fs::directory_iterator(dir, ec)) {
    ++here;
    if (de.is_directory()) most = std::max(most, widest_directory(de.path().string()));
  }
  return std::max(most, here);
}

struct Logs {
  std::mutex mu;
  std::vector<std::string> lines;
  Log fn() {
    return [this](const std::string& s) {
      std::lock_guard lk(mu);
      lines.push_back(s);
    };
  }
  bool has(const std::string& needle) {
    std::lock_guard lk(mu);
    for (auto& l : lines)
      if (l.find(needle) != std::string::npos) return true;
    return false;
  }
  std::string all() {
    std::lock_guard lk(mu);
    std::string s;
    for (auto& l : lines) s += "  " + l + "\n";
    return s;
  }
};

const std::string kCircuit = "mul";

Config config(const std::string& journal, double kernel_ms = 0) {
  Config c;
  c.journal = journal;
  c.devices = {"sim:1"};
  c.workers_per_device = 1;
  c.synthesis_threads = 1;
  c.sim_kernel_ms = kernel_ms;
  c.verify = false;
  c.circuits = {{kCircuit, test::fixtures_dir() + "/bls12-381/mulchain/circuit.zkey", ""}};
  c.journal_reserve = 0;
  return c;
}

const std::string& witness() {
  static const std::string w = read_all(test::fixtures_dir() + "/bls12-381/mulchain/witness.wtns");
  return w;
}

v1::SubmitProofRequest request(const std::string& request_id) {
  v1::SubmitProofRequest r;
  r.set_circuit_id(kCircuit);
  r.set_request_id(request_id);
  r.add_partitions(witness());
  return r;
}

v1::JobResult await(Service& s, const std::string& job_id, const std::string& request_id = "",
                    uint64_t timeout_ms = 60000) {
  v1::AwaitProofRequest a;
  a.set_job_id(job_id);
  a.set_request_id(request_id);
  a.set_timeout_ms(timeout_ms);
  return s.await(a);
}

// A Rejected's code, or -1 when the call returned.
template <class F>
int rejected_code(F f, std::string* what = nullptr) {
  try {
    f();
  } catch (const Rejected& e) {
    if (what) *what = e.what();
    return int(e.code);
  }
  return -1;
}

// The value of a /metrics sample (-1 when absent).
double metric(Service& s, const std::string& sample) {
  const std::string text = s.metrics_text();
  size_t at = 0;
  while ((at = text.find(sample + " ", at)) != std::string::npos) {
    if (at == 0 || text[at - 1] == '\n') return std::stod(text.substr(at + sample.size() + 1));
    at += sample.size();
  }
  return -1;
}

// `n` ended jobs written straight into a journal (ids k0, k1, ...), each with a result of about
// 3 * `summary` bytes that ended at `ended_ms`.
void populate(const std::string& dir, int n, uint64_t ended_ms, size_t summary) {
  Journal j(dir);
  v1::JournalOutcome o;
  v1::JobResult& r = *o.mutable_result();
  r.set_circuit_id(kCircuit);
  r.set_state(v1::DONE);
  r.set_partitions(1);
  r.set_summary_json(std::string(summary, 's'));
  r.set_timeline_svg(std::string(2 * summary, 't'));
  r.add_results()->set_proof_json(std::string(summary / 10, 'p'));
  o.set_ended_unix_ms(ended_ms);
  for (int i = 0; i < n; ++i) {
    char id[17];
    std::snprintf(id, sizeof id, "%016llx", (unsigned long long)(uint64_t(i + 1) * 0x9e3779b97f4a7c15ull));
    v1::JournalJob job;
    job.set_job_id(id);
    job.set_request_id("k" + std::to_string(i));
    job.set_circuit_id(kCircuit);
    job.set_accepted_unix_ms(ended_ms);
    j.accept(job);
    r.set_job_id(id);
    r.set_request_id(job.request_id());
    j.finish(job, o);
  }
}

}  // namespace

// A .job whose bytes are garbage, and one with a byte flipped: both jobs answer FAILED naming the
// quarantine (by job id; by request_id where the ids survived), the records move to the
// quarantine folder, /metrics and /status count them; never NOT_FOUND.
CUZK_TEST(corrupt_job_record_fails_its_job_and_is_quarantined) {
  const std::string dir = tmpdir();
  std::string ja, jb;
  {
    Service s(config(dir), nullptr);
    ja = s.submit(request("ra")).job_id();
    jb = s.submit(request("rb")).job_id();
    CHECK_EQ(int(await(s, ja).state()), int(v1::DONE));
    CHECK_EQ(int(await(s, jb).state()), int(v1::DONE));
    s.shutdown(10);
  }
  const std::string fa = find_file(dir, ja + ".job"), fb = find_file(dir, jb + ".job");
  CHECK(!fa.empty() && !fb.empty());
  write_all(fa, std::string(read_all(fa).size(), '\xff'));
  std::string b = read_all(fb);
  b.back() ^= 0x5a;
  write_all(fb, b);
  Logs logs;
  Service s(config(dir), logs.fn());
  for (auto [id, rid] :
       {std::pair{ja, std::string()}, std::pair{jb, std::string()}, std::pair{std::string(), std::string("rb")}}) {
    v1::JobResult r;
    std::string why;
    const int code = rejected_code([&] { r = await(s, id, rid, 1000); }, &why);
    CHECK_MSG(code == -1, "await " << id << rid << " refused: " << why);
    CHECK_EQ(int(r.state()), int(v1::FAILED));
    CHECK_MSG(r.error().find("corrupt") != std::string::npos && r.error().find("quarantine") != std::string::npos,
              r.error());
  }
  CHECK(logs.has("quarantine"));
  CHECK(!find_file(dir + "/quarantine", ja + ".job").empty() && !find_file(dir + "/quarantine", jb + ".job").empty());
  CHECK_EQ(metric(s, "cuzk_journal_records_quarantined"), 2.0);
  CHECK_MSG(s.status_json().find("\"quarantined\": 2") != std::string::npos, s.status_json());
  // the same request_id is still that job's
  auto again = s.submit(request("rb"));
  CHECK(again.existing());
  CHECK_EQ(again.job_id(), jb);
}

// A corrupt .done: while the job's witnesses are still journaled (a crash between the result and
// the job's rewrite) the job runs again and its result says so; once they are dropped it fails,
// naming the quarantine.
CUZK_TEST(corrupt_result_record_runs_again_only_with_witnesses) {
  const std::string dir = tmpdir();
  std::string jc, jd, saved_job;
  {
    Service s(config(dir, 1500), nullptr);
    jc = s.submit(request("rc")).job_id();
    saved_job = read_all(find_file(dir, jc + ".job"));  // as accepted: witnesses inside
    jd = s.submit(request("rd")).job_id();
    CHECK_EQ(int(await(s, jc).state()), int(v1::DONE));
    CHECK_EQ(int(await(s, jd).state()), int(v1::DONE));
    s.shutdown(10);
  }
  write_all(find_file(dir, jc + ".job"), saved_job);
  for (auto& id : {jc, jd}) {
    const std::string f = find_file(dir, id + ".done");
    CHECK(!f.empty());
    write_all(f, std::string(read_all(f).size(), '\x07'));
  }
  Logs logs;
  Service s(config(dir), logs.fn());
  const v1::JobResult c = await(s, jc);
  CHECK_MSG(c.state() == v1::DONE, c.error());
  CHECK_MSG(c.error().find("ran again") != std::string::npos, "'" << c.error() << "'");
  const v1::JobResult d = await(s, jd, "", 1000);
  CHECK_EQ(int(d.state()), int(v1::FAILED));
  CHECK_MSG(d.error().find("quarantine") != std::string::npos, d.error());
  CHECK_MSG(logs.has(jc) && logs.has("runs again"), logs.all());
}

// Records of the format without a checksum (plain protobuf, one directory) still load.
CUZK_TEST(records_without_checksum_still_load) {
  const std::string dir = tmpdir();
  v1::JournalJob job;
  job.set_job_id("00112233aabbccdd");
  job.set_request_id("old");
  job.set_circuit_id(kCircuit);
  job.set_accepted_unix_ms(uint64_t(std::time(nullptr)) * 1000);
  v1::JournalOutcome o;
  o.mutable_result()->set_job_id(job.job_id());
  o.mutable_result()->set_state(v1::DONE);
  o.mutable_result()->set_partitions(1);
  o.mutable_result()->set_summary_json("{\"old\":1}");
  o.set_ended_unix_ms(job.accepted_unix_ms());
  write_all(dir + "/" + job.job_id() + ".job", job.SerializeAsString());
  write_all(dir + "/" + job.job_id() + ".done", o.SerializeAsString());
  Service s(config(dir), nullptr);
  const v1::JobResult r = await(s, "", "old", 1000);
  CHECK_EQ(int(r.state()), int(v1::DONE));
  CHECK_EQ(r.summary_json(), std::string("{\"old\":1}"));
}

// A directory sync that fails: the submission is refused and nothing of it stays.
CUZK_TEST(failed_directory_sync_refuses_the_submission) {
  const std::string dir = tmpdir();
  {
    Service s(config(dir), nullptr);
    fail_dir_fsync = true;
    std::string why;
    const int code = rejected_code([&] { s.submit(request("sync")); }, &why);
    // a streamed one: its files move in, then the sync fails
    fs::create_directories(s.incoming_dir() + "/u");
    write_all(s.incoming_dir() + "/u/p0.wtns", witness());
    v1::SubmitProofRequest head = request("sync-stream");
    head.clear_partitions();
    std::string why2;
    const int code2 = rejected_code([&] { s.submit_files(head, {s.incoming_dir() + "/u/p0.wtns"}, 2); }, &why2);
    fail_dir_fsync = false;
    CHECK_MSG(code == int(Rejected::Unavailable), "code " << code << " " << why);
    CHECK_MSG(code2 == int(Rejected::Unavailable), "code " << code2 << " " << why2);
    s.shutdown(10);
  }
  Service s(config(dir), nullptr);  // (uploads never acknowledged go at start)
  CHECK_EQ(count_files(dir, ".job"), size_t(0));
  CHECK_EQ(count_files(dir, ".wtns"), size_t(0));
  CHECK_EQ(rejected_code([&] { await(s, "", "sync", 0); }), int(Rejected::NotFound));
  CHECK_EQ(rejected_code([&] { await(s, "", "sync-stream", 0); }), int(Rejected::NotFound));
}

// Witness files of no job (a crash between moving them in and writing the job) go at start, and
// the log names them.
CUZK_TEST(orphan_witness_files_are_removed_at_start) {
  const std::string dir = tmpdir();
  { Service s(config(dir), nullptr); }
  write_all(dir + "/0123456789abcdef.p0.wtns", witness());
  write_all(dir + "/0123456789abcdef.p1.wtns", witness());
  Logs logs;
  Service s(config(dir), logs.fn());
  CHECK_EQ(find_file(dir, "0123456789abcdef.p0.wtns"), std::string());
  CHECK_EQ(find_file(dir, "0123456789abcdef.p1.wtns"), std::string());
  CHECK_MSG(logs.has("0123456789abcdef.p0.wtns"), logs.all());
}

// Eight uploads at once, each announcing 1 MiB, with 3.5 MiB free above the reserve: three get
// room, the others are refused (RESOURCE_EXHAUSTED) until a reservation ends.
CUZK_TEST(concurrent_uploads_share_the_journal_reserve) {
  const std::string dir = tmpdir();
  Config c = config(dir);
  c.journal_reserve = size_t(64) << 20;
  Service s(c, nullptr);
  const size_t mib = size_t(1) << 20;
  fake_free_bytes = c.journal_reserve + 3 * mib + mib / 2;
  std::atomic<int> ok{0}, refused{0};
  std::vector<JournalSpace::Reservation> held(8);
  std::vector<std::thread> ts;
  for (int i = 0; i < 8; ++i)
    ts.emplace_back([&, i] {
      if (rejected_code([&] { held[size_t(i)] = s.reserve_journal_space(mib); }) == int(Rejected::ResourceExhausted))
        ++refused;
      else
        ++ok;
    });
  for (auto& t : ts) t.join();
  CHECK_EQ(ok.load(), 3);
  CHECK_EQ(refused.load(), 5);
  // a piece beyond what was announced needs room too
  JournalSpace::Reservation* r = nullptr;
  for (auto& h : held)
    if (h) r = &h;
  CHECK(r != nullptr);
  CHECK_EQ(rejected_code([&] { r->grow(mib); }), int(Rejected::ResourceExhausted));
  r->release();
  CHECK_EQ(rejected_code([&] { s.reserve_journal_space(mib); }), -1);
  fake_free_bytes = 0;
}

// 5,000 ended jobs in the journal, each with a result of about 30 KB: at start only what
// identifies them is read into memory (the process grows by far less than their results), at
// most the cache's bound of results is held, the oldest is still answered, from disk, and no
// folder of the journal holds thousands of files.
CUZK_TEST(kept_results_stay_on_disk_memory_bounded) {
  const std::string dir = tmpdir();
  const int n = 5000;
  const uint64_t now = uint64_t(std::time(nullptr)) * 1000;
  populate(dir, n, now, 10000);
  auto rss = [] {
    std::ifstream f("/proc/self/statm");
    size_t pages = 0, resident = 0;
    f >> pages >> resident;
    return resident * size_t(::sysconf(_SC_PAGESIZE));
  };
  const size_t rss0 = rss();
  Service s(config(dir), nullptr);
  const size_t grown = rss() - std::min(rss(), rss0);
  CHECK_MSG(grown / n < 4096, "memory grew by " << grown << " bytes with " << n << " kept results");
  // a few jobs proved now go through the same cache
  for (int i = 0; i < 3; ++i)
    CHECK_EQ(int(await(s, s.submit(request("live" + std::to_string(i))).job_id()).state()), int(v1::DONE));
  for (int i = 0; i < n; i += 997)
    CHECK_EQ(await(s, "", "k" + std::to_string(i), 0).summary_json().size(), size_t(10000));
  const double cached = metric(s, "cuzk_journal_results_cached");
  CHECK_MSG(cached >= 0 && cached <= 256, "results in memory: " << cached);
  CHECK_EQ(metric(s, "cuzk_journal_results_kept"), double(n + 3));
  const v1::JobResult r = await(s, "", "k0", 0);
  CHECK_EQ(int(r.state()), int(v1::DONE));
  CHECK_EQ(r.timeline_svg().size(), size_t(20000));
  CHECK_MSG(widest_directory(dir) <= 256, "a folder of the journal holds " << widest_directory(dir) << " entries");
}

// Removing 5,000 ended jobs costs about the same per job as removing a few (no directory rescan
// per job).
CUZK_TEST(expiring_many_results_is_not_quadratic) {
  const std::string dir = tmpdir();
  Journal j(dir);
  std::vector<v1::JournalJob> jobs(5000);
  for (size_t i = 0; i < jobs.size(); ++i) {
    char id[17];
    std::snprintf(id, sizeof id, "%016llx", (unsigned long long)(i * 0x9e3779b97f4a7c15ull));
    jobs[i].set_job_id(id);
    jobs[i].set_circuit_id(kCircuit);
    j.accept(jobs[i]);
    v1::JournalOutcome o;
    o.mutable_result()->set_state(v1::DONE);
    o.set_ended_unix_ms(1);
    j.finish(jobs[i], o);
  }
  const auto t0 = std::chrono::steady_clock::now();
  for (auto& job : jobs) j.remove(job.job_id());
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK_EQ(count_files(dir, ".job") + count_files(dir, ".done"), size_t(0));
  CHECK_MSG(s < 3.0, "removing 5000 ended jobs took " << s << " s");
}

// 5,000 results expiring together: the pruner takes them from its index by end time and removes
// their files by name, from memory and from disk, in a few seconds.
CUZK_TEST(pruner_expires_many_results_by_their_end_time) {
  const std::string dir = tmpdir();
  const int n = 5000;
  const auto t0 = std::chrono::steady_clock::now();
  const uint64_t ends = uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(
                                     std::chrono::system_clock::now().time_since_epoch())
                                     .count()) +
                        8000;
  populate(dir, n, ends, 100);
  Config c = config(dir);
  c.keep_results_s = 1;
  Service s(c, nullptr);
  CHECK_MSG(metric(s, "cuzk_journal_results_kept") == double(n), "the results expired before the test could see them");
  auto left = [&] { return count_files(dir, ".job") + count_files(dir, ".done"); };
  while ((metric(s, "cuzk_journal_results_kept") > 0 || left() > 0) &&
         std::chrono::steady_clock::now() - t0 < std::chrono::seconds(40))
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() - 9;
  CHECK_EQ(metric(s, "cuzk_journal_results_kept"), 0.0);
  CHECK_EQ(left(), size_t(0));
  CHECK_EQ(rejected_code([&] { await(s, "", "k0", 0); }), int(Rejected::NotFound));
  CHECK_MSG(took < 10, "5000 results expired " << took << " s after their time");
}

// A hundred queued jobs: the daemon's threads do not grow with them.
CUZK_TEST(reapers_are_a_fixed_few) {
  const std::string dir = tmpdir();
  auto threads = [] {
    size_t n = 0;
    std::error_code ec;
    for ([[maybe_unused]] auto& de : fs::directory_iterator("/proc/self/task", ec)) ++n;
    return n;
  };
  Service s(config(dir, 200), nullptr);
  const size_t base = threads();
  std::vector<std::string> ids;
  for (int i = 0; i < 100; ++i) ids.push_back(s.submit(request("t" + std::to_string(i))).job_id());
  const size_t during = threads();
  for (auto& id : ids) {
    v1::CancelProofRequest c;
    c.set_job_id(id);
    s.cancel(c);
  }
  CHECK_MSG(during <= base + 8, during - base << " more threads with 100 jobs queued");
  for (auto& id : ids) CHECK_EQ(int(await(s, id).state()), int(v1::CANCELLED));
}
