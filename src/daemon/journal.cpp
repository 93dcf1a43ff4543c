// SPDX-License-Identifier: MIT OR Apache-2.0
#include "daemon/journal.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include "util/error.hpp"

namespace cuzk::daemon {

namespace fs = std::filesystem;

uint32_t crc32c(const void* data, size_t n, uint32_t crc) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;  // reflected 0x1EDC6F41
      t[i] = c;
    }
    return t;
  }();
  const auto* p = static_cast<const uint8_t*>(data);
  crc = ~crc;
  for (size_t i = 0; i < n; ++i) crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
  return ~crc;
}

namespace {

constexpr char kMagic[8] = {'\0', 'c', 'u', 'z', 'k', 'j', 'r', '1'};

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

// A directory's entries made durable (a rename, create or unlink in it). Throws Error.
void sync_dir(const std::string& dir) {
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) throw Error("journal: cannot open " + dir + " to sync it: " + errno_text());
  if (::fsync(dfd) != 0) {
    const std::string e = errno_text();
    ::close(dfd);
    throw Error("journal: cannot sync the directory " + dir + ": " + e);
  }
  ::close(dfd);
}

void put_u64(std::string& s, uint64_t v) {
  for (int i = 0; i < 8; ++i) s.push_back(char(v >> (8 * i)));
}
uint64_t get_u64(const std::string& s, size_t at) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t(uint8_t(s[at + size_t(i)])) << (8 * i);
  return v;
}

// One section's head: length and CRC-32C of its pieces.
std::string section_head(const std::vector<std::string_view>& pieces) {
  uint64_t n = 0;
  uint32_t crc = 0;
  for (auto p : pieces) n += p.size(), crc = crc32c(p.data(), p.size(), crc);
  std::string h;
  put_u64(h, n);
  put_u64(h, crc);
  return h;
}

enum class Read { Missing, Ok, Corrupt };
// A record's ids and body. A record of the first format (no magic) is its body alone;
// `ids_ok` then false. Corrupt: a checksum or a length does not match.
Read read_record(const std::string& path, std::string& ids, std::string& body, bool& ids_ok, bool& legacy) {
  ids_ok = false;
  legacy = false;
  std::string b;
  if (!read_file(path, b)) return errno == ENOENT ? Read::Missing : Read::Corrupt;
  if (b.size() < sizeof kMagic || std::memcmp(b.data(), kMagic, sizeof kMagic) != 0) {
    legacy = true;
    body = std::move(b);
    return Read::Ok;
  }
  size_t at = sizeof kMagic;
  auto section = [&](std::string& out) {
    if (b.size() - at < 16) return false;
    const uint64_t n = get_u64(b, at), crc = get_u64(b, at + 8);
    at += 16;
    if (n > b.size() - at) return false;
    const bool ok = crc32c(b.data() + at, size_t(n)) == crc;
    if (ok) out.assign(b, at, size_t(n));
    at += size_t(n);
    return ok;
  };
  ids_ok = section(ids);
  if (!ids_ok) return Read::Corrupt;
  if (!section(body) || at != b.size()) return Read::Corrupt;
  return Read::Ok;
}

// "<id>.job", "<id>.done", "<id>.p<i>.wtns": the id, or "" for a name of none of these forms.
std::string id_of(const std::string& name, std::string& kind) {
  for (const char* k : {".job", ".done"})
    if (name.size() > std::strlen(k) && name.ends_with(k)) {
      kind = k;
      return name.substr(0, name.size() - std::strlen(k));
    }
  if (name.ends_with(".wtns")) {
    const size_t p = name.rfind(".p", name.size() - 5);
    if (p != std::string::npos && p > 0) {
      kind = ".wtns";
      return name.substr(0, p);
    }
  }
  return "";
}

// Two hex digits of the job id's FNV-1a hash: its folder under jobs/.
std::string shard_of(const std::string& job_id) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : job_id) h = (h ^ c) * 0x100000001b3ull;
  const char* hex = "0123456789abcdef";
  return {hex[(h >> 4) & 15], hex[h & 15]};
}

std::string ids_of(const v1::JournalJob& job) {
  v1::JournalJob ids;
  ids.set_job_id(job.job_id());
  ids.set_request_id(job.request_id());
  return ids.SerializeAsString();
}

}  // namespace

Journal::Journal(std::string dir) : dir_(std::move(dir)) {
  std::error_code ec;
  const bool existed = fs::exists(dir_, ec);
  fs::create_directories(dir_, ec);
  if (!existed && !ec)  // witnesses are private: a journal cuzk creates is its owner's alone
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::replace, ec);
  if (ec || !fs::is_directory(dir_))
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
  for (const char* sub : {"/jobs", "/quarantine"}) {
    if (::mkdir((dir_ + sub).c_str(), 0700) != 0 && errno != EEXIST)
      throw Error("journal " + dir_ + ": cannot create " + dir_ + sub + ": " + errno_text());
  }
  sync_dir(dir_);
  migrate_first_layout();
  std::error_code e2;
  for (auto& de : fs::directory_iterator(dir_ + "/quarantine", e2))
    if (de.is_regular_file()) ++quarantined_;
}

Journal::~Journal() {
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

std::string Journal::shard_dir(const std::string& job_id) {
  const std::string d = dir_ + "/jobs/" + shard_of(job_id);
  if (::mkdir(d.c_str(), 0700) == 0)
    sync_dir(dir_ + "/jobs");
  else if (errno != EEXIST)
    throw Error("journal: cannot create " + d + ": " + errno_text());
  return d;
}

std::string Journal::path_of(const std::string& job_id, const std::string& name) const {
  return dir_ + "/jobs/" + shard_of(job_id) + "/" + name;
}

// The first layout kept every file at the top of the journal: each moves into its folder.
void Journal::migrate_first_layout() {
  std::error_code ec;
  std::set<std::string> touched;
  for (auto& de : fs::directory_iterator(dir_, ec)) {
    const std::string name = de.path().filename().string();
    if (de.is_regular_file() && name.ends_with(".tmp")) {  // an interrupted write: never acknowledged
      std::error_code e2;
      fs::remove(de.path(), e2);
      continue;
    }
    std::string kind;
    const std::string id = id_of(name, kind);
    if (!de.is_regular_file() || id.empty()) continue;
    const std::string to = shard_dir(id) + "/" + name;
    if (::rename(de.path().c_str(), to.c_str()) != 0)
      throw Error("journal: cannot move " + de.path().string() + " to " + to + ": " + errno_text());
    touched.insert(shard_of(id));
  }
  if (touched.empty()) return;
  for (auto& s : touched) sync_dir(dir_ + "/jobs/" + s);
  sync_dir(dir_);
}

void Journal::write_record(const std::string& job_id, const std::string& name, const std::string& ids,
                           const std::vector<std::string_view>& body) {
  const std::string path = shard_dir(job_id) + "/" + name, tmp = path + ".tmp";
  const std::string ids_head = section_head({ids}), body_head = section_head(body);
  std::vector<std::string_view> pieces = {std::string_view(kMagic, sizeof kMagic), ids_head, ids, body_head};
  pieces.insert(pieces.end(), body.begin(), body.end());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) throw Error("journal: cannot write " + tmp + ": " + errno_text());
  auto fail = [&](const std::string& what) {
    const std::string e = errno_text();
    ::close(fd);
    ::unlink(tmp.c_str());
    throw Error("journal: cannot " + what + " " + tmp + ": " + e);
  };
  for (auto p : pieces) {
    size_t off = 0;
    while (off < p.size()) {
      ssize_t k = ::write(fd, p.data() + off, p.size() - off);
      if (k < 0 && errno == EINTR) continue;
      if (k < 0) fail("write");
      off += size_t(k);
    }
  }
  if (::fsync(fd) != 0) fail("sync");
  if (::close(fd) != 0) {
    const std::string e = errno_text();
    ::unlink(tmp.c_str());
    throw Error("journal: cannot write " + tmp + ": " + e);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string e = errno_text();
    ::unlink(tmp.c_str());
    throw Error("journal: cannot rename " + tmp + ": " + e);
  }
  try {
    sync_dir(fs::path(path).parent_path().string());
  } catch (...) {
    ::unlink(path.c_str());  // not durable: it does not count
    throw;
  }
}

void Journal::accept(const v1::JournalJob& job, const std::vector<const std::string*>& witnesses) {
  std::string head;
  if (!job.SerializeToString(&head)) throw Error("journal: cannot encode job " + job.job_id());
  // Each witness as field 5 (partitions) of JournalJob, appended to the encoded job: the
  // protobuf encoding of repeated bytes, written from the request's own strings.
  std::vector<std::string> tags;
  tags.reserve(witnesses.size());
  std::vector<std::string_view> body = {head};
  for (const std::string* w : witnesses) {
    std::string t(1, char((5 << 3) | 2));
    for (uint64_t n = w->size();; n >>= 7) {
      t.push_back(char((n & 0x7f) | (n >= 0x80 ? 0x80 : 0)));
      if (n < 0x80) break;
    }
    tags.push_back(std::move(t));
  }
  for (size_t i = 0; i < witnesses.size(); ++i) body.push_back(tags[i]), body.push_back(*witnesses[i]);
  write_record(job.job_id(), job.job_id() + ".job", ids_of(job), body);
}

void Journal::finish(const v1::JournalJob& job, const v1::JournalOutcome& outcome) {
  std::string bytes;
  if (!outcome.SerializeToString(&bytes)) throw Error("journal: cannot encode the result of " + job.job_id());
  write_record(job.job_id(), job.job_id() + ".done", ids_of(job), {bytes});
  v1::JournalJob light = job;
  light.clear_partitions();
  light.clear_partition_files();
  light.set_ended_unix_ms(outcome.ended_unix_ms());
  light.set_ended_state(outcome.result().state());
  if (!light.SerializeToString(&bytes)) throw Error("journal: cannot encode job " + job.job_id());
  write_record(job.job_id(), job.job_id() + ".job", ids_of(job), {bytes});
  for (auto& f : job.partition_files()) ::unlink(path_of(job.job_id(), f).c_str());
}

std::optional<v1::JournalOutcome> Journal::result(const std::string& job_id, bool* corrupt) {
  if (corrupt) *corrupt = false;
  std::string ids, body;
  bool ids_ok = false, legacy = false;
  const Read r = read_record(path_of(job_id, job_id + ".done"), ids, body, ids_ok, legacy);
  if (r == Read::Missing) return std::nullopt;
  v1::JournalOutcome o;
  if (r == Read::Ok && o.ParseFromString(body)) return o;
  quarantine(job_id, job_id + ".done");
  if (corrupt) *corrupt = true;
  return std::nullopt;
}

void Journal::quarantine(const std::string& job_id, const std::string& name) {
  std::string to = dir_ + "/quarantine/" + name;
  for (int i = 1; fs::exists(to); ++i) to = dir_ + "/quarantine/" + name + "." + std::to_string(i);
  if (::rename(path_of(job_id, name).c_str(), to.c_str()) != 0)
    throw Error("journal: cannot move " + path_of(job_id, name) + " into quarantine: " + errno_text());
  sync_dir(dir_ + "/quarantine");
  ++quarantined_;
}

std::vector<std::string> Journal::adopt(const std::string& job_id, const std::vector<std::string>& files) {
  std::vector<std::string> names;
  const std::string to = shard_dir(job_id);
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string name = job_id + ".p" + std::to_string(i) + ".wtns";
    int fd = ::open(files[i].c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0 || ::fsync(fd) != 0) {
      const std::string e = errno_text();
      if (fd >= 0) ::close(fd);
      throw Error("journal: cannot sync " + files[i] + ": " + e);
    }
    ::close(fd);
    if (::rename(files[i].c_str(), (to + "/" + name).c_str()) != 0)
      throw Error("journal: cannot move " + files[i] + " into " + to + ": " + errno_text());
    names.push_back(name);
  }
  sync_dir(to);
  return names;
}

void Journal::remove(const std::string& job_id) {
  // The job first: a crash in between leaves a result without its job, which load() drops.
  ::unlink(path_of(job_id, job_id + ".job").c_str());
  ::unlink(path_of(job_id, job_id + ".done").c_str());
  for (int i = 0; ::unlink(path_of(job_id, job_id + ".p" + std::to_string(i) + ".wtns").c_str()) == 0; ++i) {
  }
}

std::vector<Journal::Entry> Journal::load(const std::function<void(const std::string&)>& say_fn) {
  auto say = [&](const std::string& s) {
    if (say_fn) say_fn(s);
  };
  std::error_code ec;
  fs::remove_all(dir_ + "/incoming", ec);  // uploads that were never acknowledged
  struct Files {
    bool job = false, done = false;
    std::set<std::string> witnesses;
  };
  std::map<std::string, Files> by_id;
  size_t removed = 0;
  auto drop = [&](const std::string& path, const std::string& why) {
    std::error_code e;
    fs::remove(path, e);
    if (++removed <= 20) say("journal: removed " + path + " (" + why + ")");
  };
  for (auto& shard : fs::directory_iterator(dir_ + "/jobs", ec)) {
    if (!shard.is_directory()) continue;
    std::error_code e2;
    for (auto& de : fs::directory_iterator(shard.path(), e2)) {
      const std::string name = de.path().filename().string();
      std::string kind;
      const std::string id = id_of(name, kind);
      if (name.ends_with(".tmp")) {
        drop(de.path().string(), "an interrupted write");
        continue;
      }
      if (id.empty()) {
        say("journal: ignoring " + de.path().string() + " (not a journal file)");
        continue;
      }
      if (shard_of(id) != shard.path().filename().string()) {  // moved by hand: back to its folder
        shard_dir(id);
        if (::rename(de.path().c_str(), path_of(id, name).c_str()) != 0)
          throw Error("journal: cannot move " + de.path().string() + " to " + path_of(id, name) + ": " + errno_text());
      }
      Files& f = by_id[id];
      if (kind == ".job") f.job = true;
      if (kind == ".done") f.done = true;
      if (kind == ".wtns") f.witnesses.insert(name);
    }
  }
  if (ec) throw Error("journal " + dir_ + ": " + ec.message());
  std::vector<Entry> out;
  for (auto& [id, f] : by_id) {
    if (!f.job) {  // a result or witnesses of no job: an interrupted accept or remove
      if (f.done) drop(path_of(id, id + ".done"), "a result of no job");
      for (auto& w : f.witnesses) drop(path_of(id, w), "a witness file of no job");
      continue;
    }
    Entry e;
    std::string ids, body;
    bool ids_ok = false, legacy = false;
    const Read r = read_record(path_of(id, id + ".job"), ids, body, ids_ok, legacy);
    if (r != Read::Ok || !e.job.ParseFromString(body) || e.job.job_id() != id) {
      e.job.Clear();
      v1::JournalJob known;
      if (ids_ok && known.ParseFromString(ids) && known.job_id() == id) e.job.set_request_id(known.request_id());
      e.job.set_job_id(id);
      quarantine(id, id + ".job");
      if (f.done) {  // the result of a job whose record is lost: kept beside it
        std::error_code e3;
        fs::create_directories(dir_ + "/quarantine/intact", e3);
        ::rename(path_of(id, id + ".done").c_str(), (dir_ + "/quarantine/intact/" + id + ".done").c_str());
      }
      for (auto& w : f.witnesses) drop(path_of(id, w), "a witness file of a job whose record is corrupt");
      e.job_corrupt = true;
      e.corrupt = "its journal record was corrupt and was quarantined (" + dir_ + "/quarantine/" + id + ".job)";
      say("journal: job " + id + ": " + e.corrupt + "; it fails");
      out.push_back(std::move(e));
      continue;
    }
    std::set<std::string> listed(e.job.partition_files().begin(), e.job.partition_files().end());
    for (auto& w : f.witnesses)
      if (e.job.ended_unix_ms() != 0 || !listed.count(w)) drop(path_of(id, w), "a witness file no job needs");
    for (auto& w : listed)
      if (!f.witnesses.count(w)) e.witnesses_present = false;
    if (e.job.ended_unix_ms() == 0 && f.done) {
      bool corrupt = false;
      e.outcome = result(id, &corrupt);
      if (corrupt) {
        e.witnesses_present = e.witnesses_present && (e.job.partitions_size() + e.job.partition_files_size() +
                                                      e.job.partition_paths_size()) > 0;
        e.corrupt = "its result record was corrupt and was quarantined (" + dir_ + "/quarantine/" + id + ".done)";
      }
    }
    out.push_back(std::move(e));
  }
  if (removed > 20) say("journal: removed " + std::to_string(removed) + " files in all");
  return out;
}

}  // namespace cuzk::daemon
