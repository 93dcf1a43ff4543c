// SPDX-License-Identifier: MIT OR Apache-2.0
#include "daemon/witness_files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "io/binfile.hpp"
#include "util/error.hpp"

namespace cuzk::daemon {

namespace fs = std::filesystem;

namespace {
int64_t ns(const struct timespec& t) { return int64_t(t.tv_sec) * 1000000000 + t.tv_nsec; }
uint32_t u32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
uint64_t u64(const uint8_t* p) { return uint64_t(u32(p)) | uint64_t(u32(p + 4)) << 32; }
FileIdentity identity_of(const struct stat& st) {
  return {uint64_t(st.st_dev), uint64_t(st.st_ino), uint64_t(st.st_size), ns(st.st_mtim), ns(st.st_ctim)};
}
const int kFileFlags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;

// `rel` (no "..", no leading '/') opened beneath the directory `dirfd`, following no link:
// one component at a time. -1 with errno set; ELOOP when a component is a link.
int open_walk(int dirfd, const std::string& rel) {
  int cur = dirfd;
  size_t from = 0;
  for (;;) {
    const size_t slash = rel.find('/', from);
    const std::string comp = rel.substr(from, slash == std::string::npos ? std::string::npos : slash - from);
    if (slash == std::string::npos) {
      const int fd = ::openat(cur, comp.c_str(), kFileFlags | O_NOFOLLOW);
      const int e = errno;
      if (cur != dirfd) ::close(cur);
      errno = e;
      return fd;
    }
    int next = ::openat(cur, comp.c_str(), O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
    int e = errno;
    if (next < 0 && e == ENOTDIR) {  // a link (O_NOFOLLOW opened the link itself), or a file
      struct stat st {};
      if (::fstatat(cur, comp.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) e = ELOOP;
    }
    if (cur != dirfd) ::close(cur);
    if (next < 0) {
      errno = e;
      return -1;
    }
    cur = next;
    from = slash + 1;
  }
}
}  // namespace

std::string FileIdentity::describe() const {
  return std::to_string(size) + " bytes, modified at " + std::to_string(mtime_ns) + " ns, changed at " +
         std::to_string(ctime_ns) + " ns, device " + std::to_string(dev) + ", inode " + std::to_string(ino);
}

WitnessFile::WitnessFile(int fd, std::string path, std::string shown)
    : fd_(fd), path_(std::move(path)), shown_(std::move(shown)) {
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    const int e = errno;
    ::close(fd_);
    throw InvalidArgument(shown_ + ": cannot stat: " + std::strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd_);
    throw InvalidArgument(shown_ + " is not a regular file");
  }
  id_ = identity_of(st);
}

WitnessFile::~WitnessFile() { ::close(fd_); }

FileIdentity WitnessFile::identity_now() const {
  struct stat st {};
  if (::fstat(fd_, &st) != 0) throw Error(shown_ + ": cannot stat: " + std::strerror(errno));
  return identity_of(st);
}

WitnessFile::Header WitnessFile::header() const {
  auto fail = [&](const std::string& m) -> void { throw FormatError(shown_, m); };
  auto pread_exact = [&](uint64_t off, void* dst, size_t n) {
    size_t got = 0;
    while (got < n) {
      const ssize_t k = ::pread(fd_, static_cast<char*>(dst) + got, n - got, off_t(off + got));
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0)
        fail("truncated: " + std::to_string(off + got) + " of the " + std::to_string(off + n) +
             " bytes the headers need");
      got += size_t(k);
    }
  };
  uint8_t head[12];
  pread_exact(0, head, 12);
  if (std::memcmp(head, "wtns", 4) != 0) fail("not a .wtns file (no 'wtns' magic)");
  if (u32(head + 4) != 2) fail("version " + std::to_string(u32(head + 4)) + ", expected 2");
  const uint32_t n_sections = u32(head + 8);
  if (n_sections > 64) fail(std::to_string(n_sections) + " sections (a witness has 2)");
  uint64_t off = 12, values = 0, other = 0;
  bool have_header = false, have_values = false;
  Header h;
  uint32_t n8 = 0;
  for (uint32_t i = 0; i < n_sections; ++i) {
    uint8_t sh[12];
    pread_exact(off, sh, 12);
    const uint32_t id = u32(sh);
    const uint64_t size = u64(sh + 4);
    off += 12;
    if (size > id_.size || off + size > id_.size)
      fail("section " + std::to_string(id) + " (" + std::to_string(size) + " bytes) runs past the end of the file");
    if (id == 1) {
      if (have_header || size > 4096) fail("section 1 (header) repeated or too long");
      std::vector<uint8_t> b(size);
      pread_exact(off, b.data(), b.size());
      io::Reader r(shown_, "section 1 (header)", b);
      auto f = io::read_scalar_field_header(r);
      n8 = f.n8, h.curve = f.curve;
      h.n_witness = r.u32();
      r.expect_end();
      have_header = true;
    } else if (id == 2) {
      if (have_values) fail("section 2 (witness values) repeated");
      values = size, have_values = true;
    } else if ((other += size) > (uint64_t(1) << 20)) {
      // The whole file is read to prove it: sections beyond the two of a witness stay small.
      fail("sections other than 1 and 2 hold " + std::to_string(other) + " bytes (at most 1 MiB)");
    }
    off += size;
  }
  if (off != id_.size) fail(std::to_string(id_.size - off) + " bytes after the last section");
  if (!have_header) fail("section 1 (header) missing");
  if (!have_values) fail("section 2 (witness values) missing");
  if (values != uint64_t(h.n_witness) * n8)
    fail("section 2 (witness values) is " + std::to_string(values) + " bytes, expected " +
         std::to_string(uint64_t(h.n_witness) * n8));
  return h;
}

std::vector<uint8_t> WitnessFile::read_all() const {
  std::vector<uint8_t> b(id_.size);
  size_t got = 0;
  while (got < b.size()) {
    const ssize_t k = ::pread(fd_, b.data() + got, b.size() - got, off_t(got));
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) throw Error(shown_ + ": cannot read: " + std::strerror(errno));
    if (k == 0)
      throw InvalidArgument(shown_ + ": shorter than when it was opened (" + std::to_string(got) + " of " +
                            std::to_string(b.size()) + " bytes)");
    got += size_t(k);
  }
  if (!(identity_now() == id_)) throw InvalidArgument(shown_ + ": changed while it was read");
  return b;
}

WitnessDirs::WitnessDirs(const std::vector<std::string>& dirs, bool no_openat2) : no_openat2_(no_openat2) {
  for (auto& d : dirs) {
    Dir x;
    x.configured = fs::path(d).lexically_normal().string();
    while (x.configured.size() > 1 && x.configured.back() == '/') x.configured.pop_back();
    x.fd = ::open(d.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    std::error_code e;
    if (x.fd >= 0) x.canonical = fs::canonical(d, e).string();
    if (x.fd < 0 || e) {
      const std::string why = x.fd < 0 ? std::strerror(errno) : e.message();
      if (x.fd >= 0) ::close(x.fd);
      throw InvalidArgument("daemon.witness_dirs: " + d + ": " + why);
    }
    dirs_.push_back(std::move(x));
  }
}

WitnessDirs::~WitnessDirs() {
  for (auto& d : dirs_) ::close(d.fd);
}

std::string WitnessDirs::list() const {
  std::string s;
  for (auto& d : dirs_) s += (s.empty() ? "" : ", ") + d.configured;
  return s;
}

bool WitnessDirs::locate(const std::string& path, size_t& dir, std::string& rel) const {
  if (path.empty() || path[0] != '/') return false;
  std::string lex = fs::path(path).lexically_normal().string();
  while (lex.size() > 1 && lex.back() == '/') lex.pop_back();
  for (size_t i = 0; i < dirs_.size(); ++i)
    for (const std::string* form : {&dirs_[i].configured, &dirs_[i].canonical}) {
      const std::string& f = *form;
      if (lex == f) {
        dir = i, rel.clear();
        return true;
      }
      const std::string prefix = f == "/" ? f : f + "/";
      if (lex.rfind(prefix, 0) == 0) {
        dir = i, rel = lex.substr(prefix.size());
        return true;
      }
    }
  return false;
}

std::unique_ptr<WitnessFile> WitnessDirs::open(const std::string& path) const {
  // A NUL byte would cut the path short for the kernel: another file than the one named.
  if (path.find('\0') != std::string::npos) throw InvalidArgument("a witness path contains a NUL byte");
  if (path.empty() || path[0] != '/') throw InvalidArgument("'" + path + "' is not an absolute path");
  size_t d = 0;
  std::string rel;
  if (!locate(path, d, rel)) throw InvalidArgument(path + " is not under the daemon's witness_dirs (" + list() + ")");
  if (rel.empty()) throw InvalidArgument(path + " is a witness directory, not a witness file");
  int fd = -1;
  bool walked = no_openat2_;
  if (!walked) {
    struct open_how how {};
    how.flags = uint64_t(kFileFlags);
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
    fd = int(::syscall(SYS_openat2, dirs_[d].fd, rel.c_str(), &how, sizeof how));
    walked = fd < 0 && (errno == ENOSYS || errno == EPERM);  // no openat2 here (or filtered)
  }
  if (walked) fd = open_walk(dirs_[d].fd, rel);
  if (fd < 0) {
    const int e = errno;
    if (e == EXDEV)
      throw InvalidArgument(path + " leads outside the daemon's witness_dirs (" + list() + ") through a link");
    if (e == ELOOP && walked)
      throw InvalidArgument(path + " goes through a link (without openat2, links in witness_dirs are not followed)");
    if (e == ELOOP) throw InvalidArgument(path + " goes through too many links");
    throw InvalidArgument(path + ": cannot open: " + std::strerror(e));
  }
  return std::unique_ptr<WitnessFile>(
      new WitnessFile(fd, dirs_[d].canonical + (dirs_[d].canonical == "/" ? "" : "/") + rel, path));
}

}  // namespace cuzk::daemon
