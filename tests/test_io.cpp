// SPDX-License-Identifier: MIT OR Apache-2.0
// Parsers of the snarkjs/circom container formats (.wtns, .zkey, .r1cs): valid files built in
// memory are read back; then each is corrupted one way at a time and must give a FormatError that
// names the file and the problem. The committed fixtures, where present, are read and cross-checked.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <tuple>

#include "ff/curve_id.hpp"
#include "io/binfile.hpp"
#include "io/json.hpp"
#include "io/json_parse.hpp"
#include "io/r1cs.hpp"
#include "io/wtns.hpp"
#include "io/zkey.hpp"
#include "testing.hpp"
#include "util/error.hpp"

using namespace cuzk;
using namespace cuzk::io;
namespace fs = std::filesystem;

namespace {

using Bytes = std::vector<uint8_t>;
const CurveId kCurves[] = {CurveId::bn254, CurveId::bls12_381};

// ------------------------------------------------------------------ a small writer
// (Byte-array inserts rather than push_back: g++ 12 warns falsely about the latter.)
void put_u32(Bytes& b, uint32_t v) {
  const uint8_t x[4] = {uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24)};
  b.insert(b.end(), x, x + 4);
}
void put_u64(Bytes& b, uint64_t v) {
  put_u32(b, uint32_t(v));
  put_u32(b, uint32_t(v >> 32));
}
void put(Bytes& b, std::span<const uint8_t> s) { b.insert(b.end(), s.begin(), s.end()); }
void set_u32(Bytes& b, size_t off, uint32_t v) {
  for (int i = 0; i < 4; ++i) b.at(off + i) = uint8_t(v >> (8 * i));
}

struct Section {
  uint32_t id;
  Bytes data;
};

struct Container {
  std::string magic;
  uint32_t version = 1;
  std::vector<Section> sections;

  Bytes build() const {
    Bytes b(magic.begin(), magic.end());
    put_u32(b, version);
    put_u32(b, uint32_t(sections.size()));
    for (auto& s : sections) {
      put_u32(b, s.id);
      put_u64(b, s.data.size());
      put(b, s.data);
    }
    return b;
  }
  Bytes& sec(uint32_t id) {
    for (auto& s : sections)
      if (s.id == id) return s.data;
    throw std::logic_error("test bug: no section " + std::to_string(id));
  }
  void remove(uint32_t id) {
    std::erase_if(sections, [&](const Section& s) { return s.id == id; });
  }
};

std::shared_ptr<FileBytes> buf(const std::string& name, Bytes b) { return FileBytes::from_buffer(name, std::move(b)); }

// Random n-byte little-endian value below the prime m (same length): top byte strictly smaller.
Bytes random_below(std::span<const uint8_t> m, std::mt19937_64& rng) {
  Bytes v(m.size());
  for (auto& x : v) x = uint8_t(rng());
  v.back() = uint8_t(rng() % m.back());
  return v;
}
Bytes small_value(uint64_t x, size_t n = 32) {
  Bytes v(n, 0);
  for (int i = 0; i < 8; ++i) v[i] = uint8_t(x >> (8 * i));
  return v;
}
Bytes to_bytes(std::span<const uint8_t> s) { return Bytes(s.begin(), s.end()); }
bool same(std::span<const uint8_t> a, std::span<const uint8_t> b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

// ------------------------------------------------------------------ error expectations
template <class F>
void expect_format_error(F&& f, const std::string& name, const std::vector<std::string>& needles, int line) {
  try {
    f();
  } catch (const FormatError& e) {
    std::string msg = e.what();
    CHECK_MSG(msg.rfind(name + ": ", 0) == 0,
              "line " << line << ": message '" << msg << "' does not start with '" << name << ": '");
    CHECK_MSG(e.path == name, "line " << line << ": path '" << e.path << "'");
    for (auto& n : needles) {
      CHECK_MSG(msg.find(n) != std::string::npos, "line " << line << ": message '" << msg << "' lacks '" << n << "'");
    }
    return;
  } catch (const std::exception& e) {
    CHECK_MSG(false, "line " << line << ": threw a non-FormatError: " << e.what());
  }
  CHECK_MSG(false, "line " << line << ": did not throw");
}
#define EXPECT_FMT(expr, name, ...) expect_format_error([&] { (void)(expr); }, name, {__VA_ARGS__}, __LINE__)

// Parsing must either succeed or throw FormatError (a fuzzer-style property).
template <class F>
bool parses_or_format_error(F&& f, std::string* why) {
  try {
    f();
    return true;
  } catch (const FormatError&) {
    return true;
  } catch (const std::exception& e) {
    *why = e.what();
    return false;
  }
}

// ------------------------------------------------------------------ .wtns
Container make_wtns(CurveId c, uint32_t n, std::mt19937_64& rng) {
  Container k{"wtns", 2, {}};
  Bytes h;
  put_u32(h, 32);
  put(h, scalar_prime_le(c));
  put_u32(h, n);
  Bytes v;
  for (uint32_t i = 0; i < n; ++i) put(v, i == 0 ? small_value(1) : random_below(scalar_prime_le(c), rng));
  k.sections = {{1, h}, {2, v}};
  return k;
}

// ------------------------------------------------------------------ .zkey
struct Coef {
  uint32_t matrix, row, signal;
  Bytes value;
};

struct ZkeySpec {
  CurveId curve = CurveId::bn254;
  uint32_t n_vars = 5, n_public = 2, domain = 8;
  std::vector<Coef> coefs;
};

size_t n8q_of(CurveId c) { return base_prime_le(c).size(); }

Bytes random_points(CurveId c, size_t count, size_t coords, std::mt19937_64& rng) {
  Bytes b;
  for (size_t i = 0; i < count * coords; ++i) put(b, random_below(base_prime_le(c), rng));
  return b;
}

ZkeySpec default_zkey_spec(CurveId c, std::mt19937_64& rng) {
  ZkeySpec s;
  s.curve = c;
  // Two constraints over 5 wires, then the nPublic + 1 rows snarkjs appends.
  s.coefs.push_back({0, 0, 1, random_below(scalar_prime_le(c), rng)});
  s.coefs.push_back({1, 0, 3, random_below(scalar_prime_le(c), rng)});
  s.coefs.push_back({0, 1, 4, random_below(scalar_prime_le(c), rng)});
  s.coefs.push_back({1, 1, 2, random_below(scalar_prime_le(c), rng)});
  for (uint32_t p = 0; p <= s.n_public; ++p) s.coefs.push_back({0, 2 + p, p, small_value(7)});
  return s;
}

Container make_zkey(const ZkeySpec& s, std::mt19937_64& rng) {
  const size_t n8q = n8q_of(s.curve);
  Container k{"zkey", 1, {}};
  Bytes s1;
  put_u32(s1, 1);
  Bytes s2;
  put_u32(s2, uint32_t(n8q));
  put(s2, base_prime_le(s.curve));
  put_u32(s2, 32);
  put(s2, scalar_prime_le(s.curve));
  put_u32(s2, s.n_vars);
  put_u32(s2, s.n_public);
  put_u32(s2, s.domain);
  for (int coords : {2, 2, 4, 4, 2, 4}) put(s2, random_points(s.curve, 1, coords, rng));
  Bytes s4;
  put_u32(s4, uint32_t(s.coefs.size()));
  for (auto& c : s.coefs) {
    put_u32(s4, c.matrix);
    put_u32(s4, c.row);
    put_u32(s4, c.signal);
    put(s4, c.value);
  }
  // snarkjs `groth16 setup` order: 1,2,4,3,9,8,5,6,7,10.
  k.sections = {{1, s1},
                {2, s2},
                {4, s4},
                {3, random_points(s.curve, s.n_public + 1, 2, rng)},
                {9, random_points(s.curve, s.domain, 2, rng)},
                {8, random_points(s.curve, s.n_vars > s.n_public ? s.n_vars - s.n_public - 1 : 0, 2, rng)},
                {5, random_points(s.curve, s.n_vars, 2, rng)},
                {6, random_points(s.curve, s.n_vars, 2, rng)},
                {7, random_points(s.curve, s.n_vars, 4, rng)},
                {10, Bytes(68, 0)}};
  return k;
}

// Offsets inside section 2 of a zkey.
size_t z_n8r_off(CurveId c) { return 4 + n8q_of(c); }
size_t z_nvars_off(CurveId c) { return 4 + n8q_of(c) + 4 + 32; }

// ------------------------------------------------------------------ .r1cs
using LC = std::vector<std::pair<uint32_t, Bytes>>;
struct Constraint {
  LC m[3];
};
struct R1csSpec {
  CurveId curve = CurveId::bn254;
  uint32_t n_wires = 6, pub_out = 1, pub_in = 1, prv_in = 2;
  uint64_t n_labels = 9;
  std::vector<Constraint> constraints;
};

R1csSpec default_r1cs_spec(CurveId c, std::mt19937_64& rng) {
  R1csSpec s;
  s.curve = c;
  auto v = [&] { return random_below(scalar_prime_le(c), rng); };
  s.constraints.push_back({{LC{{1, v()}, {3, v()}}, LC{{2, v()}}, LC{{0, v()}, {5, v()}}}});
  s.constraints.push_back({{LC{}, LC{{4, v()}}, LC{}}});
  s.constraints.push_back({{LC{{5, small_value(1)}}, LC{{0, small_value(1)}, {1, v()}, {2, v()}}, LC{{3, v()}}}});
  return s;
}

Bytes r1cs_constraints(const R1csSpec& s) {
  Bytes b;
  for (auto& c : s.constraints) {
    for (auto& lc : c.m) {
      put_u32(b, uint32_t(lc.size()));
      for (auto& [w, v] : lc) {
        put_u32(b, w);
        put(b, v);
      }
    }
  }
  return b;
}

Bytes r1cs_header(const R1csSpec& s) {
  Bytes h;
  put_u32(h, 32);
  put(h, scalar_prime_le(s.curve));
  put_u32(h, s.n_wires);
  put_u32(h, s.pub_out);
  put_u32(h, s.pub_in);
  put_u32(h, s.prv_in);
  put_u64(h, s.n_labels);
  put_u32(h, uint32_t(s.constraints.size()));
  return h;
}

Container make_r1cs(const R1csSpec& s) {
  Container k{"r1cs", 1, {}};
  Bytes map;
  for (uint32_t i = 0; i < s.n_wires; ++i) put_u64(map, i);
  // circom's order: 2, 1, 3.
  k.sections = {{2, r1cs_constraints(s)}, {1, r1cs_header(s)}, {3, map}};
  return k;
}

// r1cs header offsets (section 1)
constexpr size_t kR1csNWires = 36, kR1csPubOut = 40, kR1csNConstraints = 60;

// ------------------------------------------------------------------ 256-bit arithmetic mod r (for fixture checks)
using U256 = std::array<uint64_t, 4>;
U256 u256(std::span<const uint8_t> le) {
  U256 x{};
  for (size_t i = 0; i < 32; ++i) x[i / 8] |= uint64_t(le[i]) << (8 * (i % 8));
  return x;
}
bool geq(const U256& a, const U256& b) {
  for (int i = 3; i >= 0; --i)
    if (a[i] != b[i]) return a[i] > b[i];
  return true;
}
U256 sub(const U256& a, const U256& b) {
  U256 r{};
  unsigned __int128 borrow = 0;
  for (int i = 0; i < 4; ++i) {
    unsigned __int128 d = (unsigned __int128)a[i] - b[i] - borrow;
    r[i] = uint64_t(d);
    borrow = (d >> 64) ? 1 : 0;
  }
  return r;
}
// a, b < m < 2^255 (true for both curves' r): a + b fits in 256 bits.
U256 addmod(const U256& a, const U256& b, const U256& m) {
  U256 r{};
  unsigned __int128 carry = 0;
  for (int i = 0; i < 4; ++i) {
    unsigned __int128 s = (unsigned __int128)a[i] + b[i] + carry;
    r[i] = uint64_t(s);
    carry = s >> 64;
  }
  return geq(r, m) ? sub(r, m) : r;
}
U256 mulmod(const U256& a, const U256& b, const U256& m) {
  U256 r{};
  for (int i = 255; i >= 0; --i) {
    r = addmod(r, r, m);
    if ((a[i / 64] >> (i % 64)) & 1) r = addmod(r, b, m);
  }
  return r;
}

}  // namespace

// ================================================================== curve ids
CUZK_TEST(curve_ids_and_primes) {
  for (CurveId c : kCurves) {
    CHECK(curve_from_scalar_prime(scalar_prime_le(c)) == c);
    CHECK(curve_from_base_prime(base_prime_le(c)) == c);
    CHECK(!curve_from_scalar_prime(base_prime_le(c)).has_value());
    CHECK(!curve_from_base_prime(scalar_prime_le(c)).has_value());
    CHECK(curve_from_name(curve_name(c)) == c);
    CHECK(curve_from_name(curve_snarkjs_name(c)) == c);
    CHECK_EQ(scalar_prime_le(c).size(), size_t(32));
    // r and q are odd, and r - 1 has the documented 2-adicity (28 / 32 trailing zero bits).
    CHECK(scalar_prime_le(c)[0] & 1);
    CHECK(base_prime_le(c)[0] & 1);
    U256 rm1 = sub(u256(scalar_prime_le(c)), U256{1, 0, 0, 0});
    int tz = 0;
    while (((rm1[tz / 64] >> (tz % 64)) & 1) == 0) ++tz;
    CHECK_EQ(tz, c == CurveId::bn254 ? 28 : 32);
  }
  CHECK_EQ(base_prime_le(CurveId::bn254).size(), size_t(32));
  CHECK_EQ(base_prime_le(CurveId::bls12_381).size(), size_t(48));
  CHECK_EQ(std::string(curve_name(CurveId::bls12_381)), std::string("bls12-381"));
  CHECK_EQ(std::string(curve_snarkjs_name(CurveId::bn254)), std::string("bn128"));
  CHECK(!curve_from_name("secp256k1").has_value());
  // Known high bytes: BN254 r and q share the top 16 bytes (0x30644e72e131a029 b85045b68181585d).
  CHECK_EQ(int(scalar_prime_le(CurveId::bn254)[31]), 0x30);
  CHECK_EQ(int(base_prime_le(CurveId::bls12_381)[47]), 0x1a);
  CHECK_EQ(int(scalar_prime_le(CurveId::bls12_381)[31]), 0x73);
  // BN254 r < q; a truncated prime matches nothing.
  CHECK(le_less(scalar_prime_le(CurveId::bn254), base_prime_le(CurveId::bn254)));
  CHECK(!curve_from_scalar_prime(scalar_prime_le(CurveId::bn254).first(31)).has_value());
}

CUZK_TEST(le_less_compares_little_endian) {
  auto r = scalar_prime_le(CurveId::bn254);
  Bytes x = to_bytes(r);
  CHECK(!le_less(x, r));  // r is not < r
  x[0] -= 1;
  CHECK(le_less(x, r));  // r - 1 < r
  x = to_bytes(r);
  x[0] += 1;
  CHECK(!le_less(x, r));
  x = to_bytes(r);
  x[31] = 0x31;
  x[0] = 0;
  CHECK(!le_less(x, r));  // high byte decides
  CHECK(le_less(small_value(0), r));
  Bytes ones(32, 0xff);
  CHECK(!le_less(ones, r));
  CHECK(le_less(Bytes{1, 0}, Bytes{2}));
  CHECK(!le_less(Bytes{1, 1}, Bytes{2}));
}

// ================================================================== container
CUZK_TEST(binfile_reads_sections_by_table) {
  Container k{"ptau", 1, {{7, {1, 2, 3}}, {2, {}}, {5, {9}}}};
  auto bf = parse_binfile(buf("x.ptau", k.build()), "ptau", 1, 1);
  CHECK_EQ(bf.version, 1u);
  CHECK_EQ(bf.sections.size(), size_t(3));
  CHECK(same(bf.section(7, "seven"), Bytes{1, 2, 3}));
  CHECK(bf.section(2, "two").empty());
  CHECK(bf.has(5) && !bf.has(1));
  EXPECT_FMT(bf.section(1, "things"), "x.ptau", "missing section 1 (things)");
  Container empty{"ptau", 1, {}};
  CHECK(parse_binfile(buf("e", empty.build()), "ptau", 1, 1).sections.empty());
}

CUZK_TEST(binfile_rejects_malformed_containers) {
  Container k{"wtns", 2, {{1, {1, 2, 3, 4}}, {2, Bytes(10, 7)}}};
  const Bytes good = k.build();
  auto parse = [](Bytes b) { return parse_binfile(buf("c.wtns", std::move(b)), "wtns", 2, 2); };
  parse(good);
  EXPECT_FMT(parse({}), "c.wtns", "empty");
  EXPECT_FMT(parse({'w', 't'}), "c.wtns", "too short", "magic");
  Bytes b = good;
  b[0] = 'z';
  EXPECT_FMT(parse(b), "c.wtns", "not a .wtns file", "'ztns'");
  b = good;
  b[1] = 0;
  EXPECT_FMT(parse(b), "c.wtns", "magic is 'w\\x00ns'");
  b = good;
  set_u32(b, 4, 3);
  EXPECT_FMT(parse(b), "c.wtns", "unsupported .wtns version 3 (supported: 2)");
  EXPECT_FMT(parse_binfile(buf("c.r1cs", good), "r1cs", 1, 1), "c.r1cs", "not a .r1cs file");
  b = good;
  set_u32(b, 4, 0);
  EXPECT_FMT(parse_binfile(buf("v", b), "wtns", 1, 2), "v", "version 0 (supported: 1..2)");
  // Section count larger than the file can hold: rejected before anything is allocated.
  b = good;
  set_u32(b, 8, 0xffffffff);
  EXPECT_FMT(parse(b), "c.wtns", "declares 4294967295 sections");
  b = good;
  set_u32(b, 8, 4);
  EXPECT_FMT(parse(b), "c.wtns", "declares 4 sections", "at most 3");
  set_u32(b, 8, 3);
  EXPECT_FMT(parse(b), "c.wtns", "section table truncated");
  // A section running past the end of the file.
  b = good;
  b[32] = 11;  // the last section's size, 10 -> 11
  EXPECT_FMT(parse(b), "c.wtns", "section 2 (entry 1 at offset 28) declares 11 bytes but only 10 bytes remain");
  b = good;
  for (int i = 0; i < 8; ++i) b[32 + i] = 0xff;  // size 2^64-1: no overflow, clean error
  EXPECT_FMT(parse(b), "c.wtns", "declares 18446744073709551615 bytes");
  // A section id that occurs twice.
  Container dup{"wtns", 2, {{1, {1}}, {2, {2}}, {1, {3}}}};
  EXPECT_FMT(parse(dup.build()), "c.wtns", "section 1 occurs twice");
  // Trailing bytes after the declared sections.
  b = good;
  b.push_back(0);
  EXPECT_FMT(parse(b), "c.wtns", "1 trailing bytes");
  // Every truncation of the file is an error, never a crash.
  for (size_t n = 0; n < good.size(); ++n) {
    EXPECT_FMT(parse(Bytes(good.begin(), good.begin() + n)), "c.wtns", "");
  }
}

CUZK_TEST(reader_bounds_checks) {
  Bytes b{1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 9};
  Reader r("f", "section 9 (stuff)", b);
  CHECK_EQ(r.u32(), 1u);
  CHECK_EQ(r.u64(), uint64_t(2));
  CHECK_EQ(r.remaining(), size_t(1));
  EXPECT_FMT(r.expect_end(), "f", "section 9 (stuff)", "1 trailing bytes");
  EXPECT_FMT(r.u32(), "f", "section 9 (stuff)", "truncated", "needs 4 bytes at offset 12, only 1 left");
  EXPECT_FMT(r.take(size_t(-1)), "f", "truncated");
  CHECK_EQ(r.take(1)[0], uint8_t(9));
  r.expect_end();
  CHECK(r.take(0).empty());
  // A Reader built from a temporary name keeps its own copy.
  Reader r2("g", std::string("section 1 (temp)").c_str(), b);
  r2.take(13);
  EXPECT_FMT(r2.u32(), "g", "section 1 (temp)");
}

CUZK_TEST(filebytes_map_reads_files_and_reports_errors) {
  fs::path dir = fs::path(test::temp_dir()) / "map";
  fs::create_directories(dir);
  Bytes data(10000);
  std::mt19937_64 rng(test::seed());
  for (auto& x : data) x = uint8_t(rng());
  std::string p = (dir / "blob.bin").string();
  {
    std::ofstream f(p, std::ios::binary);
    f.write(reinterpret_cast<const char*>(data.data()), std::streamsize(data.size()));
  }
  auto fb = FileBytes::map(p);
  CHECK_EQ(fb->path(), p);
  CHECK(same(fb->bytes(), data));
  std::string missing = (dir / "nope.zkey").string();
  EXPECT_FMT(FileBytes::map(missing), missing, "cannot open", "No such file or directory");
  EXPECT_FMT(FileBytes::map(dir.string()), dir.string(), "directory");
  std::string empty = (dir / "empty.wtns").string();
  { std::ofstream f(empty); }
  EXPECT_FMT(FileBytes::map(empty), empty, "empty");
  EXPECT_FMT(read_wtns(missing), missing, "No such file or directory");
  EXPECT_FMT(read_zkey(empty), empty, "empty");
  EXPECT_FMT(read_r1cs(dir.string()), dir.string(), "directory");
  auto owned = FileBytes::from_buffer("mem", {});
  CHECK(owned->bytes().empty());
  CHECK_EQ(owned->path(), std::string("mem"));
}

// The resident pages of this process (/proc/self/statm, second field).
size_t resident_bytes() {
  std::ifstream f("/proc/self/statm");
  size_t total = 0, resident = 0;
  f >> total >> resident;
  return resident * size_t(::sysconf(_SC_PAGESIZE));
}

// release() lets a mapped part go from this process's memory (its bytes still read the same
// after), and leaves a buffer's bytes alone (dropping a heap page would zero it).
CUZK_TEST(filebytes_release_drops_mapped_pages_only) {
  fs::path dir = fs::path(test::temp_dir()) / "release";
  fs::create_directories(dir);
  const size_t size = size_t(48) << 20;
  Bytes data(size);
  std::mt19937_64 rng(test::seed());
  for (size_t i = 0; i < size; i += 8) {
    const uint64_t v = rng();
    std::memcpy(data.data() + i, &v, 8);
  }
  std::string p = (dir / "big.bin").string();
  {
    std::ofstream f(p, std::ios::binary);
    f.write(reinterpret_cast<const char*>(data.data()), std::streamsize(data.size()));
  }
  auto fb = FileBytes::map(p);
  const auto all = fb->bytes();
  uint64_t sum = 0;
  for (size_t i = 0; i < size; i += 4096) sum += all[i];  // every page resident
  const size_t touched = resident_bytes();
  fb->release(all.subspan(100, size - 200));  // all but the first and last partial pages
  const size_t after = resident_bytes();
  std::printf("  resident: %zu MiB with the file touched, %zu MiB after release (sum %llu)\n", touched >> 20,
              after >> 20, (unsigned long long)sum);
  CHECK_MSG(touched - after >= size - (size_t(1) << 20),
            "release let go of " << ((touched - after) >> 20) << " MiB of a 48 MiB mapping");
  CHECK(same(fb->bytes(), data));                          // read back from the file
  fb->release(std::span<const uint8_t>(data.data(), 10));  // not inside the mapping: nothing
  auto owned = FileBytes::from_buffer("mem", Bytes(data.begin(), data.begin() + (size_t(1) << 20)));
  owned->release(owned->bytes());
  CHECK(same(owned->bytes(), std::span<const uint8_t>(data.data(), size_t(1) << 20)));
}

// ================================================================== .wtns
CUZK_TEST(wtns_round_trip) {
  std::mt19937_64 rng(test::seed());
  for (CurveId c : kCurves) {
    Container k = make_wtns(c, 9, rng);
    auto w = parse_wtns(buf("w.wtns", k.build()));
    CHECK(w.curve == c);
    CHECK_EQ(w.n8, 32u);
    CHECK_EQ(w.n_witness, 9u);
    CHECK(same(w.values, k.sec(2)));
    CHECK(same(w.value(0), small_value(1)));
    CHECK(same(w.value(8), std::span<const uint8_t>(k.sec(2)).subspan(8 * 32, 32)));
    // Section order does not matter; unknown extra sections are ignored.
    std::swap(k.sections[0], k.sections[1]);
    k.sections.push_back({77, {1, 2}});
    CHECK_EQ(parse_wtns(buf("w.wtns", k.build())).n_witness, 9u);
    // From disk (mmap).
    std::string p = test::temp_dir() + "/w_" + curve_name(c) + ".wtns";
    Bytes b = k.build();
    {
      std::ofstream f(p, std::ios::binary);
      f.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
    }
    auto wd = read_wtns(p);
    CHECK_EQ(wd.path(), p);
    CHECK(same(wd.values, parse_wtns(buf("w", b)).values));
    // The largest reduced value, r - 1, is accepted.
    Bytes rm1 = to_bytes(scalar_prime_le(c));
    rm1[0] -= 1;
    std::copy(rm1.begin(), rm1.end(), k.sec(2).begin() + 3 * 32);
    CHECK(same(parse_wtns(buf("w", k.build())).value(3), rm1));
  }
}

CUZK_TEST(wtns_rejects_corruptions) {
  std::mt19937_64 rng(test::seed() + 1);
  for (CurveId c : kCurves) {
    const Container good = make_wtns(c, 20, rng);
    auto parse = [](const Container& k) { return parse_wtns(buf("bad.wtns", k.build())); };
    Container k = good;
    k.version = 1;
    EXPECT_FMT(parse(k), "bad.wtns", "unsupported .wtns version 1");
    k = good;
    k.magic = "zkey";
    EXPECT_FMT(parse(k), "bad.wtns", "not a .wtns file");
    k = good;
    set_u32(k.sec(1), 0, 48);
    EXPECT_FMT(parse(k), "bad.wtns", "section 1 (header)", "n8 is 48, expected 32");
    k = good;
    std::copy(base_prime_le(CurveId::bn254).begin(), base_prime_le(CurveId::bn254).end(), k.sec(1).begin() + 4);
    EXPECT_FMT(parse(k), "bad.wtns", "prime 0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47",
               "is not the scalar field r");
    k = good;
    set_u32(k.sec(1), 36, 21);
    EXPECT_FMT(parse(k), "bad.wtns", "section 2 (witness values) is 640 bytes, expected 672 = nWitness 21 x 32");
    k = good;
    set_u32(k.sec(1), 36, 0xffffffff);
    EXPECT_FMT(parse(k), "bad.wtns", "expected 137438953440 = nWitness 4294967295 x 32");
    k = good;
    set_u32(k.sec(1), 36, 0);
    EXPECT_FMT(parse(k), "bad.wtns", "nWitness is 0");
    k = good;
    k.sec(1).push_back(0);
    EXPECT_FMT(parse(k), "bad.wtns", "section 1 (header)", "1 trailing bytes");
    k = good;
    k.sec(1).resize(30);
    EXPECT_FMT(parse(k), "bad.wtns", "section 1 (header)", "truncated");
    k = good;
    k.sec(2).pop_back();
    EXPECT_FMT(parse(k), "bad.wtns", "is 639 bytes, expected 640");
    // An unreduced value: exactly r, and all ones.
    k = good;
    std::copy(scalar_prime_le(c).begin(), scalar_prime_le(c).end(), k.sec(2).begin() + 17 * 32);
    EXPECT_FMT(parse(k), "bad.wtns", "witness value 17 is not reduced modulo r");
    k = good;
    std::fill(k.sec(2).begin() + 19 * 32, k.sec(2).end(), 0xff);
    EXPECT_FMT(parse(k), "bad.wtns", "witness value 19 is not reduced modulo r");
    k = good;
    k.remove(2);
    EXPECT_FMT(parse(k), "bad.wtns", "missing section 2 (witness values)");
    k = good;
    k.remove(1);
    EXPECT_FMT(parse(k), "bad.wtns", "missing section 1 (header)");
    k = good;
    k.sections.push_back({2, k.sec(2)});
    EXPECT_FMT(parse(k), "bad.wtns", "section 2 occurs twice");
    // Every truncation.
    Bytes g = good.build();
    for (size_t n = 0; n < g.size(); ++n) {
      EXPECT_FMT(parse_wtns(buf("t.wtns", Bytes(g.begin(), g.begin() + n))), "t.wtns", "");
    }
  }
}

// ================================================================== .zkey
CUZK_TEST(zkey_round_trip) {
  std::mt19937_64 rng(test::seed() + 2);
  for (CurveId c : kCurves) {
    ZkeySpec s = default_zkey_spec(c, rng);
    Container k = make_zkey(s, rng);
    auto z = parse_zkey(buf("k.zkey", k.build()));
    const size_t n8q = n8q_of(c), g1 = 2 * n8q, g2 = 4 * n8q;
    CHECK(z.curve == c);
    CHECK_EQ(z.n8q, uint32_t(n8q));
    CHECK_EQ(z.n8r, 32u);
    CHECK_EQ(z.n_vars, 5u);
    CHECK_EQ(z.n_public, 2u);
    CHECK_EQ(z.domain_size, 8u);
    CHECK_EQ(z.g1_bytes(), g1);
    CHECK_EQ(z.g2_bytes(), g2);
    CHECK_EQ(z.coef_bytes(), size_t(44));
    std::span<const uint8_t> h2 = k.sec(2);
    size_t off = 4 + n8q + 4 + 32 + 12;
    CHECK(same(z.alpha1, h2.subspan(off, g1)));
    CHECK(same(z.beta1, h2.subspan(off + g1, g1)));
    CHECK(same(z.beta2, h2.subspan(off + 2 * g1, g2)));
    CHECK(same(z.gamma2, h2.subspan(off + 2 * g1 + g2, g2)));
    CHECK(same(z.delta1, h2.subspan(off + 2 * g1 + 2 * g2, g1)));
    CHECK(same(z.delta2, h2.subspan(off + 3 * g1 + 2 * g2, g2)));
    CHECK(same(z.ic, k.sec(3)));
    CHECK(same(z.a, k.sec(5)));
    CHECK(same(z.b1, k.sec(6)));
    CHECK(same(z.b2, k.sec(7)));
    CHECK(same(z.c, k.sec(8)));
    CHECK(same(z.h, k.sec(9)));
    CHECK_EQ(z.n_coefs, uint32_t(s.coefs.size()));
    CHECK(same(z.coefs, std::span<const uint8_t>(k.sec(4)).subspan(4)));
    // Spans point into the file's own bytes (zero copy).
    auto fb = z.file->bytes();
    CHECK(z.a.data() >= fb.data() && z.a.data() + z.a.size() <= fb.data() + fb.size());
    // Contribution section optional; ID order (after `zkey contribute`) parses too.
    k.remove(10);
    std::sort(k.sections.begin(), k.sections.end(), [](auto& a, auto& b) { return a.id < b.id; });
    CHECK_EQ(parse_zkey(buf("k.zkey", k.build())).n_coefs, uint32_t(s.coefs.size()));
    // Infinity (all-zero) points are fine; so is nPublic = 0 and nVars = nPublic + 1 (no C points).
    ZkeySpec s2;
    s2.curve = c;
    s2.n_vars = 3;
    s2.n_public = 2;
    s2.domain = 4;
    Container k2 = make_zkey(s2, rng);
    std::fill(k2.sec(5).begin(), k2.sec(5).end(), 0);
    auto z2 = parse_zkey(buf("k2", k2.build()));
    CHECK(z2.c.empty());
    CHECK_EQ(z2.n_coefs, 0u);
    s2.n_public = 0;
    s2.domain = 1;
    CHECK_EQ(parse_zkey(buf("k3", make_zkey(s2, rng).build())).domain_size, 1u);
  }
}

CUZK_TEST(zkey_rejects_corruptions) {
  std::mt19937_64 rng(test::seed() + 3);
  for (CurveId c : kCurves) {
    const ZkeySpec spec = default_zkey_spec(c, rng);
    const Container good = make_zkey(spec, rng);
    const size_t n8q = n8q_of(c), g1 = 2 * n8q;
    const std::string sg1 = std::to_string(g1);
    auto parse = [](const Container& k) { return parse_zkey(buf("bad.zkey", k.build())); };
    auto with_spec = [&](const ZkeySpec& s) { return parse_zkey(buf("bad.zkey", make_zkey(s, rng).build())); };

    Container k = good;
    k.version = 2;
    EXPECT_FMT(parse(k), "bad.zkey", "unsupported .zkey version 2 (supported: 1)");
    k = good;
    k.magic = "wtns";
    EXPECT_FMT(parse(k), "bad.zkey", "not a .zkey file: magic is 'wtns'");
    // Other protocols.
    k = good;
    set_u32(k.sec(1), 0, 2);
    EXPECT_FMT(parse(k), "bad.zkey", "not a Groth16 key (protocol 2 = PLONK");
    set_u32(k.sec(1), 0, 10);
    EXPECT_FMT(parse(k), "bad.zkey", "not a Groth16 key (protocol 10 = FFLONK");
    set_u32(k.sec(1), 0, 77);
    EXPECT_FMT(parse(k), "bad.zkey", "protocol 77");
    k = good;
    k.sec(1).push_back(0);
    EXPECT_FMT(parse(k), "bad.zkey", "section 1 (protocol)", "trailing");
    k = good;
    k.remove(1);
    EXPECT_FMT(parse(k), "bad.zkey", "missing section 1 (protocol)");
    // Field sizes and primes.
    k = good;
    set_u32(k.sec(2), 0, 40);
    EXPECT_FMT(parse(k), "bad.zkey", "section 2 (Groth16 header)", "n8q is 40, expected 32 (BN254) or 48 (BLS12-381)");
    k = good;
    set_u32(k.sec(2), z_n8r_off(c), 48);
    EXPECT_FMT(parse(k), "bad.zkey", "n8r is 48, expected 32");
    k = good;
    k.sec(2)[4] ^= 1;
    EXPECT_FMT(parse(k), "bad.zkey", "base field prime q", "is not that of BN254 or BLS12-381");
    k = good;
    k.sec(2)[z_n8r_off(c) + 4] ^= 2;
    EXPECT_FMT(parse(k), "bad.zkey", "scalar field prime r", "is not that of BN254 or BLS12-381");
    {  // r of the other curve
      CurveId other = c == CurveId::bn254 ? CurveId::bls12_381 : CurveId::bn254;
      k = good;
      auto ro = scalar_prime_le(other);
      std::copy(ro.begin(), ro.end(), k.sec(2).begin() + z_n8r_off(c) + 4);
      EXPECT_FMT(parse(k), "bad.zkey",
                 std::string("scalar field prime r is that of ") + curve_name(other) +
                     " but base field prime q is that of " + curve_name(c));
      // q of the other curve with this curve's n8q: the length does not match.
      k = good;
      Bytes& h = k.sec(2);
      auto qo = base_prime_le(other);
      h.erase(h.begin() + 4, h.begin() + 4 + n8q);
      h.insert(h.begin() + 4, qo.begin(), qo.end());
      EXPECT_FMT(parse(k), "bad.zkey", "base field prime q");
    }
    // Header counts.
    ZkeySpec s = spec;
    s.n_public = 5;
    s.coefs.clear();
    EXPECT_FMT(with_spec(s), "bad.zkey", "nPublic 5 must be less than nVars 5");
    s = spec;
    s.domain = 12;
    EXPECT_FMT(with_spec(s), "bad.zkey", "domainSize 12 is not a power of two");
    s = spec;
    s.domain = 0;
    EXPECT_FMT(with_spec(s), "bad.zkey", "domainSize 0 is not a power of two");
    s = spec;
    s.n_vars = 9;
    s.n_public = 4;
    s.domain = 4;
    s.coefs.clear();
    EXPECT_FMT(with_spec(s), "bad.zkey", "domainSize 4 is smaller than nPublic + 1 = 5");
    if (c == CurveId::bn254) {  // BLS12-381's 2^32 cannot be exceeded by a u32 domain size
      k = good;
      set_u32(k.sec(2), z_nvars_off(c) + 8, 1u << 29);
      EXPECT_FMT(parse(k), "bad.zkey", "domainSize 2^29 exceeds the largest power-of-two domain of bn254 (2^28)");
    }
    k = good;
    set_u32(k.sec(2), z_nvars_off(c), 0);
    EXPECT_FMT(parse(k), "bad.zkey", "nVars is 0");
    k = good;
    k.sec(2).push_back(0);
    EXPECT_FMT(parse(k), "bad.zkey", "section 2 (Groth16 header)", "1 trailing bytes");
    k = good;
    k.sec(2).resize(k.sec(2).size() - 1);
    EXPECT_FMT(parse(k), "bad.zkey", "section 2 (Groth16 header)", "truncated");
    // A header coordinate that is not reduced modulo q.
    k = good;
    {
      auto q = base_prime_le(c);
      std::copy(q.begin(), q.end(), k.sec(2).begin() + z_nvars_off(c) + 12 + 2 * g1 + n8q);  // beta2 x.c1
      EXPECT_FMT(parse(k), "bad.zkey", "beta2: point 0, coordinate 1 is not reduced modulo q");
    }
    k = good;
    std::fill(k.sec(3).begin() + g1 + n8q, k.sec(3).begin() + 2 * g1, 0xff);
    EXPECT_FMT(parse(k), "bad.zkey", "section 3 (IC points): point 1, coordinate 1 is not reduced modulo q");
    // Sections of the wrong size.
    k = good;
    k.sec(5).resize(k.sec(5).size() - g1);
    EXPECT_FMT(parse(k), "bad.zkey",
               "section 5 (A points) is " + std::to_string(4 * g1) + " bytes, expected " + std::to_string(5 * g1) +
                   " = nVars 5 x " + sg1);
    k = good;
    k.sec(3).push_back(0);
    EXPECT_FMT(parse(k), "bad.zkey", "section 3 (IC points) is", "= (nPublic 2 + 1) x " + sg1);
    k = good;
    k.sec(6).clear();
    EXPECT_FMT(parse(k), "bad.zkey", "section 6 (B1 points) is 0 bytes");
    k = good;
    k.sec(7).resize(5 * g1);
    EXPECT_FMT(parse(k), "bad.zkey", "section 7 (B2 points)", "= nVars 5 x " + std::to_string(2 * g1));
    k = good;
    k.sec(8).resize(3 * g1);
    EXPECT_FMT(parse(k), "bad.zkey", "section 8 (C points)", "= (nVars 5 - nPublic 2 - 1) x " + sg1);
    k = good;
    k.sec(9).resize(16 * g1);
    EXPECT_FMT(parse(k), "bad.zkey", "section 9 (H points)", "expected " + std::to_string(8 * g1),
               "= domainSize 8 x " + sg1);
    for (uint32_t id : {2u, 3u, 4u, 5u, 6u, 7u, 8u, 9u}) {
      k = good;
      k.remove(id);
      EXPECT_FMT(parse(k), "bad.zkey", "missing section " + std::to_string(id) + " (");
    }
    k = good;
    k.sections.push_back({9, k.sec(9)});
    EXPECT_FMT(parse(k), "bad.zkey", "section 9 occurs twice");
    // Section 4: count vs size, and each field of each coefficient.
    k = good;
    set_u32(k.sec(4), 0, uint32_t(spec.coefs.size() + 1));
    EXPECT_FMT(parse(k), "bad.zkey", "section 4 (coefficients) is " + std::to_string(4 + 44 * spec.coefs.size()),
               "expected " + std::to_string(4 + 44 * (spec.coefs.size() + 1)), "= 4 + nCoefs 8 x 44");
    k = good;
    set_u32(k.sec(4), 0, 0xffffffff);
    EXPECT_FMT(parse(k), "bad.zkey", "expected 188978560984 = 4 + nCoefs 4294967295 x 44");
    k = good;
    k.sec(4).resize(2);
    EXPECT_FMT(parse(k), "bad.zkey", "section 4 (coefficients)", "truncated");
    s = spec;
    s.coefs[3].matrix = 2;  // C is never stored in a zkey
    EXPECT_FMT(with_spec(s), "bad.zkey", "section 4 (coefficients): coefficient 3: matrix 2 is not 0 (A) or 1 (B)");
    s = spec;
    s.coefs[1].row = 8;
    EXPECT_FMT(with_spec(s), "bad.zkey", "coefficient 1: row 8 >= domainSize 8");
    s = spec;
    s.coefs[2].signal = 5;
    EXPECT_FMT(with_spec(s), "bad.zkey", "coefficient 2: signal 5 >= nVars 5");
    s = spec;
    s.coefs[6].value = to_bytes(scalar_prime_le(c));
    EXPECT_FMT(with_spec(s), "bad.zkey", "coefficient 6: value is not reduced modulo r");
    // Every truncation.
    Bytes g = good.build();
    for (size_t n = 0; n < g.size(); ++n) {
      EXPECT_FMT(parse_zkey(buf("t.zkey", Bytes(g.begin(), g.begin() + n))), "t.zkey", "");
    }
  }
}

// The exact message the brief gives as an example.
CUZK_TEST(zkey_size_message_example) {
  std::mt19937_64 rng(test::seed() + 4);
  ZkeySpec s;
  s.n_vars = 101;
  s.n_public = 1;
  s.domain = 128;
  Container k = make_zkey(s, rng);
  k.sec(5).resize(6400);
  EXPECT_FMT(parse_zkey(buf("m.zkey", k.build())), "m.zkey",
             "m.zkey: section 5 (A points) is 6400 bytes, expected 6464 = nVars 101 x 64");
}

// ================================================================== .r1cs
CUZK_TEST(r1cs_round_trip_builds_csr) {
  std::mt19937_64 rng(test::seed() + 5);
  for (CurveId c : kCurves) {
    R1csSpec s = default_r1cs_spec(c, rng);
    Container k = make_r1cs(s);
    auto check = [&](const R1cs& r) {
      CHECK(r.curve == c);
      CHECK_EQ(r.n8, 32u);
      CHECK_EQ(r.n_wires, 6u);
      CHECK_EQ(r.n_pub_out, 1u);
      CHECK_EQ(r.n_pub_in, 1u);
      CHECK_EQ(r.n_prv_in, 2u);
      CHECK_EQ(r.n_public(), 2u);
      CHECK_EQ(r.n_labels, uint64_t(9));
      CHECK_EQ(r.n_constraints, 3u);
      const SparseMatrix* m[3] = {&r.A, &r.B, &r.C};
      for (int j = 0; j < 3; ++j) {
        CHECK_EQ(m[j]->row_ptr.size(), size_t(4));
        CHECK_EQ(m[j]->row_ptr[0], uint64_t(0));
        CHECK_EQ(m[j]->coef.size(), m[j]->n_terms() * 32);
        for (size_t i = 0; i < s.constraints.size(); ++i) {
          const LC& lc = s.constraints[i].m[j];
          CHECK_EQ(m[j]->row_ptr[i + 1] - m[j]->row_ptr[i], uint64_t(lc.size()));
          for (size_t t = 0; t < lc.size(); ++t) {
            size_t at = m[j]->row_ptr[i] + t;
            CHECK_EQ(m[j]->wire[at], lc[t].first);
            CHECK(same(std::span<const uint8_t>(m[j]->coef).subspan(at * 32, 32), lc[t].second));
          }
        }
      }
    };
    auto r = parse_r1cs(buf("c.r1cs", k.build()));
    CHECK_EQ(r.path, std::string("c.r1cs"));
    check(r);
    CHECK_EQ(r.A.n_terms(), size_t(3));
    CHECK_EQ(r.B.n_terms(), size_t(5));
    CHECK_EQ(r.C.n_terms(), size_t(3));
    // Section 3 optional; custom-gate sections 4 and 5 ignored; ID order fine.
    k.remove(3);
    k.sections.push_back({4, {1, 2, 3}});
    k.sections.push_back({5, {}});
    std::sort(k.sections.begin(), k.sections.end(), [](auto& a, auto& b) { return a.id < b.id; });
    check(parse_r1cs(buf("c.r1cs", k.build())));
    // No constraints at all.
    R1csSpec e;
    e.curve = c;
    auto re = parse_r1cs(buf("e.r1cs", make_r1cs(e).build()));
    CHECK_EQ(re.n_constraints, 0u);
    CHECK_EQ(re.A.row_ptr.size(), size_t(1));
    // nPubOut + nPubIn + nPrvIn + 1 == nWires exactly is fine.
    e.n_wires = 5;
    CHECK_EQ(parse_r1cs(buf("e.r1cs", make_r1cs(e).build())).n_wires, 5u);
  }
}

CUZK_TEST(r1cs_rejects_corruptions) {
  std::mt19937_64 rng(test::seed() + 6);
  for (CurveId c : kCurves) {
    const R1csSpec spec = default_r1cs_spec(c, rng);
    const Container good = make_r1cs(spec);
    auto parse = [](const Container& k) { return parse_r1cs(buf("bad.r1cs", k.build())); };
    auto with_spec = [&](const R1csSpec& s) { return parse(make_r1cs(s)); };

    Container k = good;
    k.version = 2;
    EXPECT_FMT(parse(k), "bad.r1cs", "unsupported .r1cs version 2 (supported: 1)");
    k = good;
    k.magic = "R1CS";
    EXPECT_FMT(parse(k), "bad.r1cs", "not a .r1cs file");
    k = good;
    set_u32(k.sec(1), 0, 48);
    EXPECT_FMT(parse(k), "bad.r1cs", "section 1 (header)", "n8 is 48, expected 32");
    k = good;
    k.sec(1)[10] ^= 0x40;
    EXPECT_FMT(parse(k), "bad.r1cs", "section 1 (header)", "is not the scalar field r");
    k = good;
    k.sec(1).pop_back();
    EXPECT_FMT(parse(k), "bad.r1cs", "section 1 (header)", "truncated");
    k = good;
    k.sec(1).push_back(1);
    EXPECT_FMT(parse(k), "bad.r1cs", "section 1 (header)", "1 trailing bytes");
    // Header inconsistent: more public/private wires than wires (with no 32-bit wrap-around).
    k = good;
    set_u32(k.sec(1), kR1csPubOut, 4);
    EXPECT_FMT(parse(k), "bad.r1cs", "nPubOut 4 + nPubIn 1 + nPrvIn 2 + 1 (the constant ONE) = 8 exceeds nWires 6");
    k = good;
    set_u32(k.sec(1), kR1csPubOut, 0xffffffff);
    EXPECT_FMT(parse(k), "bad.r1cs", "= 4294967299 exceeds nWires 6");
    // nConstraints disagreeing with section 2.
    k = good;
    set_u32(k.sec(1), kR1csNConstraints, 0xffffffff);
    EXPECT_FMT(parse(k), "bad.r1cs", "section 2 (constraints) is", "too small for nConstraints 4294967295");
    k = good;
    set_u32(k.sec(1), kR1csNConstraints, 2);
    EXPECT_FMT(parse(k), "bad.r1cs", "section 2 (constraints) has", "trailing bytes after nConstraints 2");
    k = good;
    set_u32(k.sec(1), kR1csNConstraints, 4);
    EXPECT_FMT(parse(k), "bad.r1cs", "constraint 3 (matrix A) is truncated");
    k = good;
    k.sec(2).push_back(0);
    EXPECT_FMT(parse(k), "bad.r1cs", "1 trailing bytes after nConstraints 3 constraints");
    k = good;
    k.sec(2).resize(k.sec(2).size() - 1);
    EXPECT_FMT(parse(k), "bad.r1cs", "constraint 2 (matrix C) is truncated: 1 terms need 36 bytes");
    k = good;
    set_u32(k.sec(2), 0, 0xfffffff0);  // constraint 0, A: absurd term count
    EXPECT_FMT(parse(k), "bad.r1cs", "constraint 0 (matrix A) is truncated: 4294967280 terms need");
    // Wire out of range, coefficient not reduced.
    R1csSpec s = spec;
    s.constraints[2].m[1][2].first = 6;
    EXPECT_FMT(with_spec(s), "bad.r1cs", "section 2 (constraints): constraint 2, matrix B, term 2: wire 6 >= nWires 6");
    s = spec;
    s.constraints[0].m[2][1].first = 0xffffffff;
    EXPECT_FMT(with_spec(s), "bad.r1cs", "constraint 0, matrix C, term 1: wire 4294967295 >= nWires 6");
    s = spec;
    s.constraints[1].m[1][0].second = to_bytes(scalar_prime_le(c));
    EXPECT_FMT(with_spec(s), "bad.r1cs", "constraint 1, matrix B, term 0 (wire 4): coefficient",
               "is not reduced modulo r");
    k = good;
    set_u32(k.sec(1), kR1csNWires, 5);
    k.sec(3).resize(5 * 8);
    EXPECT_FMT(parse(k), "bad.r1cs", "wire 5 >= nWires 5");
    // Section 3 (wire -> label map) of the wrong size.
    k = good;
    k.sec(3).resize(7 * 8);
    EXPECT_FMT(parse(k), "bad.r1cs", "section 3 (wire-to-label map) is 56 bytes, expected 48 = nWires 6 x 8");
    k = good;
    k.remove(2);
    EXPECT_FMT(parse(k), "bad.r1cs", "missing section 2 (constraints)");
    k = good;
    k.remove(1);
    EXPECT_FMT(parse(k), "bad.r1cs", "missing section 1 (header)");
    k = good;
    k.sections.push_back({2, {}});
    EXPECT_FMT(parse(k), "bad.r1cs", "section 2 occurs twice");
    // Every truncation.
    Bytes g = good.build();
    for (size_t n = 0; n < g.size(); ++n) {
      EXPECT_FMT(parse_r1cs(buf("t.r1cs", Bytes(g.begin(), g.begin() + n))), "t.r1cs", "");
    }
  }
}

// ================================================================== random corruption
// Flip bytes and overwrite 32-bit fields of valid files at random: each parse must succeed or
// throw FormatError, never anything else (the fuzzers in fuzz/ do this at length).
CUZK_TEST(random_corruptions_give_format_errors_only) {
  std::mt19937_64 rng(test::seed() + 7);
  std::vector<std::pair<int, Bytes>> files;
  for (CurveId c : kCurves) {
    files.push_back({0, make_wtns(c, 6, rng).build()});
    files.push_back({1, make_zkey(default_zkey_spec(c, rng), rng).build()});
    files.push_back({2, make_r1cs(default_r1cs_spec(c, rng)).build()});
  }
  const uint32_t specials[] = {0, 1, 2, 31, 32, 33, 48, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff};
  int accepted = 0, rejected = 0;
  for (int iter = 0; iter < 6000; ++iter) {
    const int kind = files[size_t(iter) % files.size()].first;  // (no structured binding: clang 14
    Bytes b = files[size_t(iter) % files.size()].second;        // cannot capture one in a lambda)
    int edits = 1 + int(rng() % 3);
    for (int e = 0; e < edits; ++e) {
      size_t at = size_t(rng() % b.size());
      switch (rng() % 3) {
        case 0:
          b[at] ^= uint8_t(1u << (rng() % 8));
          break;
        case 1:
          b[at] = uint8_t(rng());
          break;
        default:
          if (at + 4 <= b.size()) set_u32(b, at & ~size_t(3), specials[rng() % std::size(specials)]);
      }
    }
    if (rng() % 8 == 0) b.resize(size_t(rng() % b.size()));
    std::string why;
    bool parsed = false;
    bool ok = parses_or_format_error(
        [&] {
          auto fb = buf("fuzz", b);
          if (kind == 0)
            parse_wtns(fb);
          else if (kind == 1)
            parse_zkey(fb);
          else
            parse_r1cs(fb);
          parsed = true;
        },
        &why);
    CHECK_MSG(ok, "iteration " << iter << " (kind " << kind << "): non-FormatError exception: " << why);
    ++(parsed ? accepted : rejected);
  }
  // Many corruptions (a flipped bit inside a point, say) are not format errors; the rest must be.
  CHECK_MSG(rejected > 0, "accepted " << accepted << ", rejected " << rejected);
}

// ================================================================== committed fixtures
namespace {

// One zkey against its r1cs: sizes, curve, domain, and section 4 = the r1cs's A and B terms with
// each value * R^2 mod r, plus A = 1 * w_s on the nPublic + 1 extra rows (compared as sorted lists).
void check_zkey_against_r1cs(const ZkeyGroth16& z, const R1cs& r, CurveId curve) {
  const std::string where = z.path();
  CHECK_MSG(z.curve == curve && r.curve == curve, where << ": curve");
  CHECK_MSG(z.n8q == (curve == CurveId::bn254 ? 32u : 48u), where);
  CHECK_MSG(z.n_vars == r.n_wires, where << ": nVars " << z.n_vars << ", r1cs nWires " << r.n_wires);
  CHECK_MSG(z.n_public == r.n_public(), where << ": zkey nPublic " << z.n_public << ", r1cs " << r.n_public());
  uint64_t need = uint64_t(r.n_constraints) + z.n_public + 1, pow2 = 1;
  while (pow2 < need) pow2 <<= 1;
  CHECK_MSG(z.domain_size == pow2, where << ": domainSize " << z.domain_size << ", expected " << pow2);

  U256 m = u256(scalar_prime_le(curve));
  U256 r2{1, 0, 0, 0};
  for (int i = 0; i < 512; ++i) r2 = addmod(r2, r2, m);  // R^2 = 2^512 mod r
  CHECK_MSG(z.n_coefs == r.A.n_terms() + r.B.n_terms() + z.n_public + 1,
            where << ": nCoefs " << z.n_coefs << " vs " << r.A.n_terms() << " + " << r.B.n_terms() << " + "
                  << z.n_public + 1);
  using E = std::tuple<uint32_t, uint32_t, uint32_t, U256>;
  std::vector<E> from_zkey, from_r1cs;
  const bool check_values = r.A.n_terms() + r.B.n_terms() <= 400000;  // mulmod is slow-ish
  auto rd = [](std::span<const uint8_t> e, size_t o) {
    return uint32_t(e[o]) | uint32_t(e[o + 1]) << 8 | uint32_t(e[o + 2]) << 16 | uint32_t(e[o + 3]) << 24;
  };
  for (uint32_t i = 0; i < z.n_coefs; ++i) {
    auto e = z.coefs.subspan(size_t(i) * z.coef_bytes(), z.coef_bytes());
    from_zkey.emplace_back(rd(e, 0), rd(e, 4), rd(e, 8), check_values ? u256(e.subspan(12, 32)) : U256{});
  }
  const SparseMatrix* ab[2] = {&r.A, &r.B};
  for (uint32_t mat = 0; mat < 2; ++mat) {
    for (uint32_t row = 0; row < r.n_constraints; ++row) {
      for (uint64_t t = ab[mat]->row_ptr[row]; t < ab[mat]->row_ptr[row + 1]; ++t) {
        U256 v =
            check_values ? mulmod(u256(std::span<const uint8_t>(ab[mat]->coef).subspan(t * 32, 32)), r2, m) : U256{};
        from_r1cs.emplace_back(mat, row, ab[mat]->wire[t], v);
      }
    }
  }
  for (uint32_t s = 0; s <= z.n_public; ++s) {
    from_r1cs.emplace_back(0, r.n_constraints + s, s, check_values ? r2 : U256{});
  }
  std::sort(from_zkey.begin(), from_zkey.end());
  std::sort(from_r1cs.begin(), from_r1cs.end());
  CHECK_MSG(from_zkey == from_r1cs, where << ": section 4 differs from the r1cs A/B terms");
}

// One witness against its r1cs: size, curve, w[0] = 1, and (A.w)(B.w) = C.w on the first rows.
void check_wtns_against_r1cs(const Wtns& w, const R1cs& r, CurveId curve) {
  const std::string where = w.path();
  CHECK_MSG(w.curve == curve, where << ": curve");
  CHECK_MSG(w.n_witness == r.n_wires, where << ": nWitness " << w.n_witness << ", r1cs nWires " << r.n_wires);
  CHECK_MSG(same(w.value(0), small_value(1)), where << ": w[0] != 1");
  U256 m = u256(scalar_prime_le(curve));
  auto dot = [&](const SparseMatrix& mx, uint32_t row) {
    U256 acc{};
    for (uint64_t t = mx.row_ptr[row]; t < mx.row_ptr[row + 1]; ++t) {
      U256 c = u256(std::span<const uint8_t>(mx.coef).subspan(t * 32, 32));
      acc = addmod(acc, mulmod(c, u256(w.value(mx.wire[t])), m), m);
    }
    return acc;
  };
  for (uint32_t row = 0; row < std::min<uint32_t>(r.n_constraints, 512); ++row) {
    CHECK_MSG(mulmod(dot(r.A, row), dot(r.B, row), m) == dot(r.C, row),
              where << ": constraint " << row << " is not satisfied");
  }
}

}  // namespace

// Every .zkey and .wtns under tests/fixtures/<curve>/<circuit>/ parses and agrees with circuit.r1cs.
CUZK_TEST(fixtures_are_consistent) {
  fs::path root = test::fixtures_dir();
  if (!fs::is_directory(root)) SKIP("no fixtures directory " + root.string());
  int zkeys = 0, wtnss = 0, r1css = 0;
  for (CurveId curve : kCurves) {
    fs::path cdir = root / curve_name(curve);
    if (!fs::is_directory(cdir)) continue;
    std::vector<fs::path> circuits;
    for (auto& e : fs::directory_iterator(cdir))
      if (e.is_directory()) circuits.push_back(e.path());
    std::sort(circuits.begin(), circuits.end());
    for (auto& dir : circuits) {
      fs::path rp = dir / "circuit.r1cs";
      if (!fs::exists(rp)) continue;  // incomplete (being generated?)
      auto r = read_r1cs(rp.string());
      CHECK_MSG(r.curve == curve, rp.string() << ": curve " << curve_name(r.curve));
      ++r1css;
      std::vector<fs::path> files;
      for (auto& e : fs::directory_iterator(dir)) files.push_back(e.path());
      std::sort(files.begin(), files.end());
      for (auto& f : files) {
        if (f.extension() == ".zkey") {
          check_zkey_against_r1cs(read_zkey(f.string()), r, curve);
          ++zkeys;
        } else if (f.extension() == ".wtns") {
          check_wtns_against_r1cs(read_wtns(f.string()), r, curve);
          ++wtnss;
        }
      }
    }
  }
  std::printf("  fixtures: %d r1cs, %d zkey, %d wtns checked\n", r1css, zkeys, wtnss);
  if (r1css == 0) SKIP("fixtures directory has no circuit yet");
}

// Real files cut short anywhere (at random and at every section boundary) are FormatErrors, and a
// real zkey relabelled as PLONK is refused as such.
CUZK_TEST(fixtures_truncated_are_format_errors) {
  fs::path root = test::fixtures_dir();
  if (!fs::is_directory(root)) SKIP("no fixtures directory " + root.string());
  std::mt19937_64 rng(test::seed() + 8);
  int files = 0;
  for (auto& e : fs::recursive_directory_iterator(root)) {
    const std::string ext = e.path().extension().string();
    if (!e.is_regular_file() || (ext != ".zkey" && ext != ".wtns" && ext != ".r1cs")) continue;
    auto mapped = FileBytes::map(e.path().string());
    Bytes all = to_bytes(mapped->bytes());
    auto parse = [&](Bytes b) {
      auto fb = buf("cut" + ext, std::move(b));
      if (ext == ".zkey")
        parse_zkey(fb);
      else if (ext == ".wtns")
        parse_wtns(fb);
      else
        parse_r1cs(fb);
    };
    parse(all);
    std::vector<size_t> cuts;
    for (int i = 0; i < 24; ++i) cuts.push_back(size_t(rng() % all.size()));
    auto bf = parse_binfile(mapped, ext.c_str() + 1, 1, 2);
    for (auto& [id, s] : bf.sections) {
      const size_t start = size_t(s.data() - mapped->bytes().data());
      for (size_t at : {start - 12, start - 1, start, start + 1, start + s.size() - 1}) {
        if (at < all.size()) cuts.push_back(at);
      }
    }
    for (size_t n : cuts) EXPECT_FMT(parse(Bytes(all.begin(), all.begin() + n)), "cut" + ext, "");
    if (ext == ".zkey") {
      // Section 1 is the 4-byte protocol: find it through the table and make it PLONK.
      size_t p1 = size_t(bf.section(1, "protocol").data() - mapped->bytes().data());
      Bytes b = all;
      set_u32(b, p1, 2);
      EXPECT_FMT(parse(b), "cut.zkey", "not a Groth16 key (protocol 2 = PLONK");
    }
    ++files;
  }
  if (files == 0) SKIP("no fixture files yet");
}

// The JSON writer escapes what RFC 8259 requires and never emits invalid UTF-8: whatever string
// goes in (error messages carry paths and control characters) comes back through the parser.
CUZK_TEST(json_writer_escapes_every_string) {
  using cuzk::io::JsonValue;
  const std::string tricky = std::string("q\"b\\n\nt\tc\x01\x1f e\xc3\xa9 ") + char(0xff) + "end";
  auto v = JsonValue::object();
  v.add("s", JsonValue::string(tricky));
  v.add("k\"ey", JsonValue::boolean(true));
  v.add("f", JsonValue::boolean(false));
  const std::string text = cuzk::io::to_json(v);
  for (char c : text) CHECK(c == '\n' || uint8_t(c) >= 0x20);  // only the layout's newlines are raw
  CHECK(text.find(char(0xff)) == std::string::npos);
  auto j = cuzk::io::parse_json(text);
  const auto* s = j.find("s");
  CHECK(s && s->is_string());
  CHECK_EQ(s->text, std::string("q\"b\\n\nt\tc\x01\x1f e\xc3\xa9 \xef\xbf\xbd") + "end");
  const auto* k = j.find("k\"ey");
  CHECK(k && k->is_bool() && k->boolean);
  CHECK(j.find("f") && j.find("f")->is_bool() && !j.find("f")->boolean);
}
