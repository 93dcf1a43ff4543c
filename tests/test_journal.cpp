// The daemon's journal through the Service, on a simulated device: concurrent uploads share the
// journal's reserve.
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

std::string tmpdir() {
  // tmpfs where there is one: thousands of synced writes cost nothing there
  std::string base = ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  std::string t = base + "/cuzk-journal-test.XXXXXX";
  if (!::mkdtemp(t.data())) std::abort();
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

}  // namespace

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
