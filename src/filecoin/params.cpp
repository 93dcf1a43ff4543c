// SPDX-License-Identifier: MIT OR Apache-2.0
#include "filecoin/params.hpp"

#include <algorithm>
#include <cstring>

#include "ec/pairing.hpp"
#include "ec/uncompressed.hpp"
#include "groth16/encode.hpp"
#include "util/error.hpp"
#include "util/files.hpp"

namespace cuzk::filecoin {

namespace {

using Fq = Bls::Fq;
constexpr size_t kFq = Fq::BYTES;  // 48

uint32_t be32(const uint8_t* p) { return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3]; }

// The layout, from the counts alone: every section fits the file before any point is read.
class Layout {
 public:
  explicit Layout(ParamsFile& f) : f_(f), bytes_(f.file->bytes()) {}

  void point(PointSection& s, const char* name, bool g2) { run(s, name, g2, 1, false); }
  void counted(PointSection& s, const char* name, bool g2) {
    if (bytes_.size() - at_ < 4)
      fail(std::string("section ") + name + ": its u32 count at offset " + std::to_string(at_) +
           " runs past the end of the file");
    uint32_t n = be32(bytes_.data() + at_);
    at_ += 4;
    run(s, name, g2, n, true);
  }
  uint64_t at() const { return at_; }
  [[noreturn]] void fail(const std::string& what) const {
    throw FormatError(f_.path(), what + " (file of " + std::to_string(bytes_.size()) + " bytes)");
  }

 private:
  void run(PointSection& s, const char* name, bool g2, uint32_t n, bool counted) {
    s.name = name;
    s.g2 = g2;
    s.offset = at_;
    s.count = n;
    s.counted = counted;
    const uint64_t need = uint64_t(n) * s.point_bytes();
    if (need > bytes_.size() - at_) {
      std::string what = std::string("section ") + name + ": ";
      if (counted)
        what += "count " + std::to_string(n) + " x " + std::to_string(s.point_bytes()) +
                " bytes = " + std::to_string(need) + " bytes";
      else
        what += std::to_string(need) + " bytes";
      fail(what + " from offset " + std::to_string(at_) + ", but only " + std::to_string(bytes_.size() - at_) +
           " bytes are left");
    }
    s.bytes = bytes_.subspan(at_, need);
    at_ += need;
  }
  ParamsFile& f_;
  std::span<const uint8_t> bytes_;
  uint64_t at_ = 0;
};

struct PointCheck {
  bool subgroup;
  bool refuse_identity;
};

// A section's points decoded (into `out` when given) and checked in parallel chunks; throws for
// the first bad point (lowest index), naming the section, the index and the offset.
template <class P>
void decode_section(const ParamsFile& f, const PointSection& s, PointCheck c, P* out, ThreadPool& pool) {
  if (s.count == 0) return;
  const size_t chunks = std::min<size_t>(s.count, size_t(pool.size()) * 8);
  std::vector<size_t> bad(chunks, SIZE_MAX);
  std::vector<const char*> why(chunks, nullptr);
  pool.parallel_for(chunks, [&](size_t cb, size_t ce) {
    for (size_t ch = cb; ch < ce; ++ch) {
      const size_t b = s.count * ch / chunks, e = s.count * (ch + 1) / chunks;
      for (size_t i = b; i < e && !why[ch]; ++i) {
        P q;
        const char* err = decode_uncompressed(s.bytes.data() + i * s.point_bytes(), q, c.subgroup);
        if (!err && c.refuse_identity && q.is_inf()) err = "is the point at infinity, which bellperson refuses here";
        if (err) {
          bad[ch] = i;
          why[ch] = err;
        } else if (out) {
          out[i] = q;
        }
      }
    }
  });
  for (size_t ch = 0; ch < chunks; ++ch)
    if (why[ch]) f.fail_point(s, bad[ch], why[ch]);
}

void check_section(const ParamsFile& f, const PointSection& s, PointCheck c, ThreadPool& pool) {
  if (s.g2)
    decode_section<G2>(f, s, c, nullptr, pool);
  else
    decode_section<G1>(f, s, c, nullptr, pool);
}

template <class Points>
void put_points(std::vector<uint8_t>& out, const Points& pts, size_t size) {
  const uint32_t n = uint32_t(pts.size());
  if (pts.size() != n) throw InvalidArgument("a section of more than 2^32 - 1 points");
  for (int i = 3; i >= 0; --i) out.push_back(uint8_t(n >> (8 * i)));
  for (const auto& p : pts) {
    size_t at = out.size();
    out.resize(at + size);
    encode_uncompressed(p, out.data() + at);
  }
}
template <class P>
void put_point(std::vector<uint8_t>& out, const P& p, size_t size) {
  size_t at = out.size();
  out.resize(at + size);
  encode_uncompressed(p, out.data() + at);
}

}  // namespace

const char* decode_uncompressed(const uint8_t* in, G1& out, bool subgroup) {
  const ec::zcash::PointCode c = ec::zcash::decode(in, out, false);
  if (c != ec::zcash::PointCode::ok) return ec::zcash::message(c, false);
  if (subgroup && !ec::Pairing<Bls>::g1_in_subgroup(out)) return "is not in the prime-order subgroup G1";
  return nullptr;
}

const char* decode_uncompressed(const uint8_t* in, G2& out, bool subgroup) {
  const ec::zcash::PointCode c = ec::zcash::decode(in, out, false);
  if (c != ec::zcash::PointCode::ok) return ec::zcash::message(c, true);
  if (subgroup && !ec::Pairing<Bls>::g2_in_subgroup(out)) return "is not in the prime-order subgroup G2";
  return nullptr;
}

void encode_uncompressed(const G1& p, uint8_t* out) {
  std::memset(out, 0, kG1Bytes);
  if (p.is_inf()) {
    out[0] = 0x40;
    return;
  }
  groth16::detail::put_be(p.x, out);
  groth16::detail::put_be(p.y, out + kFq);
}

void encode_uncompressed(const G2& p, uint8_t* out) {
  std::memset(out, 0, kG2Bytes);
  if (p.is_inf()) {
    out[0] = 0x40;
    return;
  }
  groth16::detail::put_x(p.x, out);
  groth16::detail::put_x(p.y, out + 2 * kFq);
}

std::vector<const PointSection*> ParamsFile::sections() const {
  std::vector<const PointSection*> v = {&alpha_g1, &beta_g1, &beta_g2, &gamma_g2, &delta_g1, &delta_g2, &ic};
  if (!is_vk)
    for (const PointSection* s : {&h, &l, &a, &b_g1, &b_g2}) v.push_back(s);
  return v;
}

void ParamsFile::fail_point(const PointSection& s, size_t i, const char* why) const {
  throw FormatError(path(), std::string("section ") + s.name + ", point " + std::to_string(i) + " (offset " +
                                std::to_string(s.offset + i * s.point_bytes()) + ") " + why);
}

G1 ParamsFile::g1(const PointSection& s, size_t i) const {
  if (s.g2 || i >= s.count)
    throw InvalidArgument(path() + ": section " + s.name + " has no G1 point " + std::to_string(i));
  G1 p;
  if (const char* e = decode_uncompressed(s.raw(i).data(), p, false))
    throw FormatError(path(), std::string("section ") + s.name + ", point " + std::to_string(i) + " " + e);
  return p;
}

G2 ParamsFile::g2(const PointSection& s, size_t i) const {
  if (!s.g2 || i >= s.count)
    throw InvalidArgument(path() + ": section " + s.name + " has no G2 point " + std::to_string(i));
  G2 p;
  if (const char* e = decode_uncompressed(s.raw(i).data(), p, false))
    throw FormatError(path(), std::string("section ") + s.name + ", point " + std::to_string(i) + " " + e);
  return p;
}

FillVector<G1> ParamsFile::g1s(const PointSection& s, ThreadPool& pool, bool subgroup) const {
  if (s.g2) throw InvalidArgument(path() + ": section " + s.name + " holds G2 points");
  FillVector<G1> out(s.count);
  decode_section<G1>(*this, s, {subgroup, s.counted}, out.data(), pool);
  return out;
}

FillVector<G2> ParamsFile::g2s(const PointSection& s, ThreadPool& pool, bool subgroup) const {
  if (!s.g2) throw InvalidArgument(path() + ": section " + s.name + " holds G1 points");
  FillVector<G2> out(s.count);
  decode_section<G2>(*this, s, {subgroup, s.counted}, out.data(), pool);
  return out;
}

ParamsFile parse_params(std::shared_ptr<io::FileBytes> file, ThreadPool& pool, bool check, bool defer) {
  ParamsFile f;
  f.file = std::move(file);
  Layout lay(f);
  if (f.size() < kVkFixedBytes)
    lay.fail("shorter than a verifying key's fixed part (" + std::to_string(kVkFixedBytes) +
             " bytes: six points and ic's count)");
  lay.point(f.alpha_g1, "alpha_g1", false);
  lay.point(f.beta_g1, "beta_g1", false);
  lay.point(f.beta_g2, "beta_g2", true);
  lay.point(f.gamma_g2, "gamma_g2", true);
  lay.point(f.delta_g1, "delta_g1", false);
  lay.point(f.delta_g2, "delta_g2", true);
  lay.counted(f.ic, "ic", false);
  f.is_vk = lay.at() == f.size();
  if (!f.is_vk) {
    lay.counted(f.h, "h", false);
    lay.counted(f.l, "l", false);
    lay.counted(f.a, "a", false);
    lay.counted(f.b_g1, "b_g1", false);
    lay.counted(f.b_g2, "b_g2", true);
    if (lay.at() != f.size())
      lay.fail(std::to_string(f.size() - lay.at()) + " bytes after section b_g2 (offset " + std::to_string(lay.at()) +
               "), where the file should end");
  }
  if (f.ic.count == 0) lay.fail("section ic is empty (it holds at least the point of the constant ONE)");
  // bellperson reads the verifying key checked (subgroup included); ic may not hold the identity.
  for (const PointSection* s : {&f.alpha_g1, &f.beta_g1, &f.beta_g2, &f.gamma_g2, &f.delta_g1, &f.delta_g2})
    check_section(f, *s, {true, false}, pool);
  check_section(f, f.ic, {true, true}, pool);
  if (!f.is_vk && !defer)
    for (const PointSection* s : {&f.h, &f.l, &f.a, &f.b_g1, &f.b_g2}) check_section(f, *s, {check, true}, pool);
  return f;
}

ParamsFile read_params(const std::string& path, ThreadPool& pool, bool check, bool defer) {
  return parse_params(io::FileBytes::map(path), pool, check, defer);
}

std::vector<uint8_t> encode_vk(const ParamsData& d) {
  std::vector<uint8_t> out;
  out.reserve(kVkFixedBytes + d.ic.size() * kG1Bytes);
  put_point(out, d.alpha_g1, kG1Bytes);
  put_point(out, d.beta_g1, kG1Bytes);
  put_point(out, d.beta_g2, kG2Bytes);
  put_point(out, d.gamma_g2, kG2Bytes);
  put_point(out, d.delta_g1, kG1Bytes);
  put_point(out, d.delta_g2, kG2Bytes);
  put_points(out, d.ic, kG1Bytes);
  return out;
}

std::vector<uint8_t> encode_params(const ParamsData& d) {
  std::vector<uint8_t> out = encode_vk(d);
  out.reserve(out.size() + 20 + (d.h.size() + d.l.size() + d.a.size() + d.b_g1.size()) * kG1Bytes +
              d.b_g2.size() * kG2Bytes);
  put_points(out, d.h, kG1Bytes);
  put_points(out, d.l, kG1Bytes);
  put_points(out, d.a, kG1Bytes);
  put_points(out, d.b_g1, kG1Bytes);
  put_points(out, d.b_g2, kG2Bytes);
  return out;
}

void write_vk(const std::string& path, const ParamsData& d) {
  auto b = encode_vk(d);
  write_files_atomically({{path, std::string(b.begin(), b.end())}});
}

void write_params(const std::string& path, const ParamsData& d) {
  auto b = encode_params(d);
  write_files_atomically({{path, std::string(b.begin(), b.end())}});
}

}  // namespace cuzk::filecoin
