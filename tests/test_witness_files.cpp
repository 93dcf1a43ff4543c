// SPDX-License-Identifier: MIT OR Apache-2.0
// Witness files named by path (daemon.witness_dirs): what lies outside is refused before it is
// looked up, links out are refused, the headers are read with pread and every malformed layout
// is an error naming the file, the identity catches a rewrite, a short file is an error.
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <vector>

#include "daemon/witness_files.hpp"
#include "testing.hpp"
#include "util/error.hpp"

using namespace cuzk;
using namespace cuzk::daemon;
namespace fs = std::filesystem;

namespace {
std::string tmpdir() {
  char t[] = "/tmp/cuzk-witness-files.XXXXXX";
  const char* d = ::mkdtemp(t);
  if (!d) std::abort();
  return d;
}
void put(std::vector<uint8_t>& b, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) b.push_back(uint8_t(v >> (8 * i)));
}
// BLS12-381's scalar field r, little-endian.
std::vector<uint8_t> bls_r() {
  const char* hex = "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001";
  std::vector<uint8_t> be;
  for (int i = 0; i < 64; i += 2) be.push_back(uint8_t(std::stoi(std::string(hex + i, 2), nullptr, 16)));
  return {be.rbegin(), be.rend()};
}
// A .wtns: magic, version, sections {1: n8, r, n}, {2: n values of 32 bytes}, then `extra`
// sections (id, size) of zero bytes; `n_sections` overrides the count written.
std::vector<uint8_t> wtns(uint32_t n, uint32_t version = 2, std::vector<std::pair<uint32_t, uint64_t>> extra = {},
                          int64_t n_sections = -1, uint64_t values_size = ~uint64_t(0)) {
  std::vector<uint8_t> b = {'w', 't', 'n', 's'};
  put(b, version, 4);
  put(b, n_sections >= 0 ? uint64_t(n_sections) : 2 + extra.size(), 4);
  put(b, 1, 4);
  put(b, 4 + 32 + 4, 8);
  put(b, 32, 4);
  for (auto x : bls_r()) b.push_back(x);
  put(b, n, 4);
  const uint64_t vs = values_size != ~uint64_t(0) ? values_size : uint64_t(n) * 32;
  put(b, 2, 4);
  put(b, vs, 8);
  for (uint64_t i = 0; i < vs; ++i) b.push_back(i % 32 == 0 ? 1 : 0);
  for (auto [id, size] : extra) {
    put(b, id, 4);
    put(b, size, 8);
    b.insert(b.end(), size, 0);
  }
  return b;
}
void write(const std::string& path, const std::vector<uint8_t>& b) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}
}  // namespace

std::string opened(const WitnessDirs& d, const std::string& path) { return d.open(path)->path(); }

// Both ways of opening beneath a directory: openat2 where the kernel has it, and the walk.
void refuse_outside(bool no_openat2) {
  const std::string t = tmpdir();
  fs::create_directories(t + "/wd/sub");
  fs::create_directories(t + "/out/deep");
  write(t + "/wd/a.wtns", wtns(4));
  write(t + "/wd/sub/c.wtns", wtns(4));
  write(t + "/out/b.wtns", wtns(4));
  fs::create_symlink(t + "/out/b.wtns", t + "/wd/link.wtns");
  fs::create_directory_symlink(t + "/out", t + "/wd/outdir");
  fs::create_symlink("sub/c.wtns", t + "/wd/inner.wtns");  // stays inside
  fs::create_directory_symlink(t + "/wd", t + "/alias");
  WitnessDirs dirs({t + "/alias/"}, no_openat2);  // configured through a link, with a trailing slash
  const std::string canon = fs::canonical(t + "/wd").string();
  CHECK(!dirs.empty());
  CHECK_EQ(opened(dirs, t + "/alias/a.wtns"), canon + "/a.wtns");
  CHECK_EQ(opened(dirs, t + "/wd/./sub/../a.wtns"), canon + "/a.wtns");
  CHECK_EQ(opened(dirs, t + "/wd//sub/c.wtns"), canon + "/sub/c.wtns");
  CHECK_THROWS_WITH(dirs.open("wd/a.wtns"), InvalidArgument, "is not an absolute path");
  CHECK_THROWS_WITH(dirs.open(t + "/wd/"), InvalidArgument, "is a witness directory, not a witness file");
  CHECK_THROWS_WITH(dirs.open(t + "/wd/sub"), InvalidArgument, "is not a regular file");
  // Outside: refused before anything is looked up, so a missing file gets the same answer.
  for (const char* x : {"/out/b.wtns", "/out/none.wtns", "/wd/../out/b.wtns", "/wdx/a.wtns"})
    CHECK_THROWS_WITH(dirs.open(t + x), InvalidArgument, "is not under the daemon's witness_dirs");
  CHECK_THROWS_WITH(dirs.open(t + "/alias/none.wtns"), InvalidArgument, "No such file");
  // Through a link out (to a file, or to a directory holding files that exist or not): refused
  // alike, nothing said of the target.
  for (const char* x : {"/wd/link.wtns", "/wd/outdir/b.wtns", "/wd/outdir/none.wtns", "/wd/outdir/deep/x"}) {
    try {
      dirs.open(t + x);
      CHECK_MSG(false, x << ": a path through a link out was opened");
    } catch (const InvalidArgument& e) {
      const std::string m = e.what();
      CHECK_MSG(
          m.find(no_openat2 ? "goes through a link" : "leads outside the daemon's witness_dirs") != std::string::npos,
          x << ": " << m);
      std::string rest = m;  // the message less the path as given: what it tells beyond that
      if (auto at = rest.find(t + x); at != std::string::npos) rest.erase(at, (t + x).size());
      CHECK_MSG(rest.find(t + "/out") == std::string::npos, x << ": the refusal names the link's target: " << m);
    }
  }
  if (no_openat2) {
    CHECK_THROWS_WITH(dirs.open(t + "/wd/inner.wtns"), InvalidArgument, "goes through a link");
  } else {
    CHECK_EQ(opened(dirs, t + "/wd/inner.wtns"), canon + "/inner.wtns");  // a link inside is followed
  }
  CHECK_EQ(opened(dirs, canon + "/a.wtns"), canon + "/a.wtns");  // the journal's form opens again
  CHECK_THROWS_WITH(WitnessDirs({t + "/wd/a.wtns"}), InvalidArgument, "daemon.witness_dirs");
  CHECK_THROWS_WITH(WitnessDirs({t + "/nope"}), InvalidArgument, "daemon.witness_dirs");
  fs::remove_all(t);
}

CUZK_TEST(witness_dirs_refuse_outside_openat2) { refuse_outside(false); }
CUZK_TEST(witness_dirs_refuse_outside_walk) { refuse_outside(true); }

CUZK_TEST(witness_file_headers_and_identity) {
  const std::string t = tmpdir();
  const std::string p = t + "/w.wtns";
  WitnessDirs dirs({t});
  write(p, wtns(5));
  {
    auto f = dirs.open(p);
    auto h = f->header();
    CHECK(h.curve == CurveId::bls12_381);
    CHECK_EQ(h.n_witness, 5u);
    CHECK_EQ(f->identity().size, uint64_t(12 + 12 + 40 + 12 + 160));
    CHECK_EQ(f->read_all().size(), size_t(f->identity().size));
  }
  auto bad = [&](const std::vector<uint8_t>& b, const std::string& needle) {
    write(p, b);
    auto f = dirs.open(p);
    CHECK_THROWS_WITH(f->header(), FormatError, needle);
  };
  bad({'w', 't', 'n'}, "truncated");
  bad(wtns(5, 3), "version 3, expected 2");
  bad(wtns(5, 2, {}, 70), "70 sections (a witness has 2)");
  auto only1 = wtns(5);
  only1.resize(12 + 12 + 40);
  only1[8] = 1;
  bad(only1, "section 2 (witness values) missing");
  bad(wtns(5, 2, {}, 1), "172 bytes after the last section");
  bad(wtns(5, 2, {}, -1, 5 * 32 - 1), "section 2 (witness values) is 159 bytes, expected 160");
  bad(wtns(5, 2, {{3, (1 << 20) + 1}}), "sections other than 1 and 2 hold 1048577 bytes");
  auto trailing = wtns(5);
  trailing.push_back(0);
  bad(trailing, "1 bytes after the last section");
  auto huge = wtns(5);
  for (int i = 0; i < 8; ++i) huge[12 + 4 + i] = 0xff;  // section 1's size: 2^64 - 1
  bad(huge, "runs past the end of the file");
  auto magic = wtns(5);
  magic[0] = 'x';
  bad(magic, "not a .wtns file");
  // Identity: a rewrite with the same size and mtime put back still changes ctime.
  write(p, wtns(5));
  const FileIdentity before = dirs.open(p)->identity();
  struct stat st {};
  ::stat(p.c_str(), &st);
  ::usleep(20000);
  auto other = wtns(5);
  other.back() = 7;
  write(p, other);
  const struct timespec times[2] = {st.st_atim, st.st_mtim};
  ::utimensat(AT_FDCWD, p.c_str(), times, 0);
  {
    auto f = dirs.open(p);
    CHECK_EQ(f->identity().size, before.size);
    CHECK_EQ(f->identity().mtime_ns, before.mtime_ns);
    CHECK_MSG(!(f->identity() == before), "a rewrite kept the identity: " << f->identity().describe());
  }
  // Shorter than when it was opened: an error, not a crash.
  {
    auto f = dirs.open(p);
    CHECK_EQ(::truncate(p.c_str(), 100), 0);
    CHECK_THROWS_WITH(f->read_all(), InvalidArgument, "shorter than when it was opened");
  }
  // Changed while it was read (here: before, as the read cannot be interrupted): an error.
  write(p, wtns(5));
  {
    auto f = dirs.open(p);
    ::usleep(20000);
    auto again = wtns(5);
    again.back() = 9;
    write(p, again);  // same size: the read completes, the identity tells
    CHECK_THROWS_WITH(f->read_all(), InvalidArgument, "changed while it was read");
  }
  // A FIFO inside: refused, without blocking.
  CHECK_EQ(::mkfifo((t + "/fifo").c_str(), 0600), 0);
  CHECK_THROWS_WITH(dirs.open(t + "/fifo"), InvalidArgument, "is not a regular file");
  fs::remove_all(t);
}
