#include "daemon/witness_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

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
// d contains p (both canonical or both lexically normal, no trailing slash but for "/").
bool under(const std::string& d, const std::string& p) { return p.rfind(d == "/" ? d : d + "/", 0) == 0; }
}  // namespace

std::string FileIdentity::describe() const {
  return std::to_string(size) + " bytes, modified at " + std::to_string(mtime_ns) + " ns, changed at " +
         std::to_string(ctime_ns) + " ns, inode " + std::to_string(ino);
}

WitnessFile::WitnessFile(const std::string& canonical, const std::string& shown) : shown_(shown) {
  fd_ = ::open(canonical.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd_ < 0) throw InvalidArgument(shown + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    const int e = errno;
    ::close(fd_);
    throw InvalidArgument(shown + ": cannot stat: " + std::strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd_);
    throw InvalidArgument(shown + " is not a regular file");
  }
  id_ = {uint64_t(st.st_dev), uint64_t(st.st_ino), uint64_t(st.st_size), ns(st.st_mtim), ns(st.st_ctim)};
}

WitnessFile::~WitnessFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::string WitnessFile::path_now() const {
  char buf[4096];
  const std::string link = "/proc/self/fd/" + std::to_string(fd_);
  const ssize_t k = ::readlink(link.c_str(), buf, sizeof buf);
  return k > 0 && size_t(k) < sizeof buf ? std::string(buf, size_t(k)) : std::string();
}

WitnessFile::Header WitnessFile::header() const {
  auto fail = [&](const std::string& m) -> void { throw FormatError(shown_, m); };
  auto pread_exact = [&](uint64_t off, void* dst, size_t n) {
    size_t got = 0;
    while (got < n) {
      const ssize_t k = ::pread(fd_, static_cast<char*>(dst) + got, n - got, off_t(off + got));
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) fail("truncated: " + std::to_string(off + got) + " of the " + std::to_string(off + n) + " bytes the headers need");
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
  return b;
}

WitnessDirs::WitnessDirs(const std::vector<std::string>& dirs) {
  for (auto& d : dirs) {
    std::error_code e;
    auto c = fs::canonical(d, e);
    if (e || !fs::is_directory(c, e))
      throw InvalidArgument("daemon.witness_dirs: " + d + ": " + (e ? e.message() : "not a directory"));
    configured_.push_back(fs::path(d).lexically_normal().string());
    if (configured_.back().size() > 1 && configured_.back().back() == '/') configured_.back().pop_back();
    canonical_.push_back(c.string());
  }
}

std::string WitnessDirs::list() const {
  std::string s;
  for (auto& d : configured_) s += (s.empty() ? "" : ", ") + d;
  return s;
}

bool WitnessDirs::contains_canonical(const std::string& canonical) const {
  for (auto& d : canonical_)
    if (under(d, canonical)) return true;
  return false;
}

std::string WitnessDirs::resolve(const std::string& path) const {
  if (path.empty() || path[0] != '/') throw InvalidArgument("'" + path + "' is not an absolute path");
  const std::string lex = fs::path(path).lexically_normal().string();
  bool inside = false;
  for (size_t i = 0; i < configured_.size(); ++i) inside |= under(configured_[i], lex) || under(canonical_[i], lex);
  if (!inside) throw InvalidArgument(path + " is not under the daemon's witness_dirs (" + list() + ")");
  std::error_code e;
  const std::string canon = fs::canonical(lex, e).string();
  if (e) throw InvalidArgument(path + ": " + e.message());
  if (!contains_canonical(canon))
    throw InvalidArgument(path + " leads outside the daemon's witness_dirs (" + list() + ") through a link");
  return canon;
}

}  // namespace cuzk::daemon
