#include "daemon/journal.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sys/file.h>

#include "util/error.hpp"

namespace cuzk::daemon {

// A job's witness files: <job>.p<i>.wtns.
static void remove_witness_files(const std::string& dir, const std::string& job_id) {
  std::error_code ec;
  for (auto& de : std::filesystem::directory_iterator(dir, ec)) {
    const std::string n = de.path().filename().string();
    if (n.rfind(job_id + ".p", 0) == 0 && n.ends_with(".wtns")) std::filesystem::remove(de.path(), ec);
  }
}

namespace {
std::string errno_text() { return std::strerror(errno); }

bool read_file(const std::string& path, std::string& out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  out.clear();
  char buf[1 << 16];
  for (;;) {
    ssize_t k = ::read(fd, buf, sizeof buf);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) {
      ::close(fd);
      return false;
    }
    if (k == 0) break;
    out.append(buf, size_t(k));
  }
  ::close(fd);
  return true;
}
}  // namespace

Journal::Journal(std::string dir) : dir_(std::move(dir)) {
  std::error_code ec;
  const bool existed = std::filesystem::exists(dir_, ec);
  std::filesystem::create_directories(dir_, ec);
  if (!existed && !ec)  // witnesses are private: a journal cuzk creates is its owner's alone
    std::filesystem::permissions(dir_, std::filesystem::perms::owner_all, std::filesystem::perm_options::replace, ec);
  if (ec || !std::filesystem::is_directory(dir_))
    throw Error("journal " + dir_ + ": cannot create the directory" + (ec ? ": " + ec.message() : ""));
  // One daemon per journal: a lock held for the process's life (released by the kernel when it
  // dies, also by kill -9).
  lock_fd_ = ::open((dir_ + "/.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock_fd_ < 0) throw Error("journal " + dir_ + ": cannot open its lock file: " + errno_text());
  if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(lock_fd_);
    lock_fd_ = -1;
    throw Error("journal " + dir_ + " is in use by another cuzk daemon");
  }
  const std::string probe = dir_ + "/.cuzk-probe";
  int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) throw Error("journal " + dir_ + ": not writable: " + errno_text());
  ::close(fd);
  ::unlink(probe.c_str());
}

void Journal::write_atomic(const std::string& name, const std::string& bytes) {
  const std::string path = dir_ + "/" + name, tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) throw Error("journal: cannot write " + tmp + ": " + errno_text());
  size_t off = 0;
  while (off < bytes.size()) {
    ssize_t k = ::write(fd, bytes.data() + off, bytes.size() - off);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) {
      const std::string e = errno_text();
      ::close(fd);
      ::unlink(tmp.c_str());
      throw Error("journal: cannot write " + tmp + ": " + e);
    }
    off += size_t(k);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const std::string e = errno_text();
    ::unlink(tmp.c_str());
    throw Error("journal: cannot sync " + tmp + ": " + e);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string e = errno_text();
    ::unlink(tmp.c_str());
    throw Error("journal: cannot rename " + tmp + ": " + e);
  }
  int dfd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

void Journal::accept(const cuzk::v1::JournalJob& job) {
  std::string bytes;
  if (!job.SerializeToString(&bytes)) throw Error("journal: cannot encode job " + job.job_id());
  write_atomic(job.job_id() + ".job", bytes);
}

void Journal::finish(const cuzk::v1::JournalJob& job, const cuzk::v1::JournalOutcome& outcome) {
  std::string bytes;
  if (!outcome.SerializeToString(&bytes)) throw Error("journal: cannot encode the result of " + job.job_id());
  write_atomic(job.job_id() + ".done", bytes);
  cuzk::v1::JournalJob light = job;
  light.clear_partitions();
  light.clear_partition_files();
  if (!light.SerializeToString(&bytes)) throw Error("journal: cannot encode job " + job.job_id());
  write_atomic(job.job_id() + ".job", bytes);
  remove_witness_files(dir_, job.job_id());
}

std::vector<std::string> Journal::adopt(const std::string& job_id, const std::vector<std::string>& files) {
  std::vector<std::string> names;
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string name = job_id + ".p" + std::to_string(i) + ".wtns";
    int fd = ::open(files[i].c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0 || ::fsync(fd) != 0) {
      if (fd >= 0) ::close(fd);
      throw Error("journal: cannot sync " + files[i] + ": " + errno_text());
    }
    ::close(fd);
    if (::rename(files[i].c_str(), (dir_ + "/" + name).c_str()) != 0)
      throw Error("journal: cannot move " + files[i] + " into " + dir_ + ": " + errno_text());
    names.push_back(name);
  }
  int dfd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return names;
}

Journal::~Journal() {
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

void Journal::remove(const std::string& job_id) {
  // The job first: a crash in between leaves a result without its job, which load() drops.
  ::unlink((dir_ + "/" + job_id + ".job").c_str());
  ::unlink((dir_ + "/" + job_id + ".done").c_str());
  remove_witness_files(dir_, job_id);
}

std::vector<Journal::Entry> Journal::load(const std::function<void(const std::string&)>& warn) const {
  std::vector<Entry> out;
  std::error_code ec;
  std::filesystem::remove_all(dir_ + "/incoming", ec);  // uploads that were never acknowledged
  ec.clear();
  for (auto& de : std::filesystem::directory_iterator(dir_, ec)) {
    const std::string name = de.path().filename().string();
    if (name.size() > 4 && name.ends_with(".tmp")) {  // an interrupted write: never acknowledged
      std::filesystem::remove(de.path(), ec);
      continue;
    }
    if (name.size() > 5 && name.ends_with(".done")) {  // a result whose job was removed
      std::error_code e2;
      if (!std::filesystem::exists(dir_ + "/" + name.substr(0, name.size() - 5) + ".job", e2))
        std::filesystem::remove(de.path(), e2);
      continue;
    }
    if (!name.ends_with(".job")) continue;
    std::string bytes;
    Entry e;
    if (!read_file(de.path().string(), bytes) || !e.job.ParseFromString(bytes) || e.job.job_id().empty() ||
        e.job.job_id() + ".job" != name) {
      if (warn) warn("journal: skipping unreadable " + de.path().string());
      continue;
    }
    const std::string done = dir_ + "/" + e.job.job_id() + ".done";
    if (read_file(done, bytes)) {
      cuzk::v1::JournalOutcome o;
      if (o.ParseFromString(bytes))
        e.outcome = std::move(o);
      else if (warn)
        warn("journal: unreadable result " + done + "; the job runs again");
    }
    out.push_back(std::move(e));
  }
  if (ec) throw Error("journal " + dir_ + ": " + ec.message());
  return out;
}

}  // namespace cuzk::daemon
