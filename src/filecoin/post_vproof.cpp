// SPDX-License-Identifier: MIT OR Apache-2.0
// The bincode reader of FallbackPoStSectorProof (post_vanilla.hpp), apart from the rest so that
// the fuzzer builds it alone.
#include <filesystem>
#include <fstream>
#include <limits>

#include "filecoin/post_vanilla.hpp"
#include "filecoin/update.hpp"
#include "util/error.hpp"

namespace cuzk::filecoin {

PoseidonFr post_fr_from_le(std::span<const uint8_t> b, const std::string& what) {
  if (b.size() != 32) throw InvalidArgument(what + ": " + std::to_string(b.size()) + " bytes, not 32");
  PoseidonFr::Limbs l{};
  for (size_t i = 0; i < 32; ++i) l.v[i / 8] |= uint64_t(b[i]) << (8 * (i % 8));
  if (ff::limbs_geq(l, PoseidonFr::K.p)) throw InvalidArgument(what + ": not a field element (at least r)");
  return PoseidonFr::from_std(l);
}

namespace {

// Bincode reader: every read names the field it reads and the offset it starts at.
class Bincode {
 public:
  Bincode(std::span<const uint8_t> b, const std::string& what) : b_(b), what_(what) {}

  [[noreturn]] void fail(const std::string& field, size_t at, const std::string& msg) const {
    throw FormatError(what_, field + " at offset " + std::to_string(at) + ": " + msg);
  }
  std::span<const uint8_t> take(const std::string& field, size_t n) {
    if (b_.size() - pos_ < n)
      fail(field, pos_,
           "needs " + std::to_string(n) + " bytes, " + std::to_string(b_.size() - pos_) + " left (file cut short)");
    const auto s = b_.subspan(pos_, n);
    pos_ += n;
    return s;
  }
  uint64_t u64(const std::string& field) {
    const auto s = take(field, 8);
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= uint64_t(s[i]) << (8 * i);
    return v;
  }
  uint32_t u32(const std::string& field) {
    const auto s = take(field, 4);
    return uint32_t(s[0]) | uint32_t(s[1]) << 8 | uint32_t(s[2]) << 16 | uint32_t(s[3]) << 24;
  }
  PoseidonFr fr(const std::string& field) {
    const size_t at = pos_;
    const auto s = take(field, 32);
    try {
      return post_fr_from_le(s, field);
    } catch (const InvalidArgument&) {
      fail(field, at, "not a field element (its 32 little-endian bytes are at least r)");
    }
  }
  // A sequence's length, each element at least min_bytes long: a length the bytes left cannot hold
  // is refused before anything is allocated for it; so is one above `most`.
  size_t length(const std::string& field, size_t min_bytes, uint64_t most) {
    const size_t at = pos_;
    const uint64_t n = u64(field + " length");
    if (n > most) fail(field + " length", at, std::to_string(n) + " is more than " + std::to_string(most));
    if (min_bytes && n > (b_.size() - pos_) / min_bytes)
      fail(field + " length", at,
           std::to_string(n) + " elements of at least " + std::to_string(min_bytes) + " bytes, but only " +
               std::to_string(b_.size() - pos_) + " bytes left");
    return size_t(n);
  }
  size_t pos() const { return pos_; }
  size_t left() const { return b_.size() - pos_; }

 private:
  std::span<const uint8_t> b_;
  std::string what_;
  size_t pos_ = 0;
};

// Arities in Filecoin's trees are at most 8 (base 8, sub 2/4/8, top 2); the reader allows up to
// 32 (TreeShape's limit) and 64 levels, the check then holds each path to the sector's tree.
constexpr uint64_t kMaxArity = 32;
constexpr uint64_t kMaxLevels = 64;

// InclusionPath: levels appended to `out`; returns their count.
size_t read_inclusion_path(Bincode& r, const std::string& field, std::vector<PorPathLevel>& out) {
  const size_t levels = r.length(field + ".path", 16, kMaxLevels);
  for (size_t l = 0; l < levels; ++l) {
    const std::string f = field + ".path[" + std::to_string(l) + "]";
    const size_t n = r.length(f + ".hashes", 32, kMaxArity - 1);
    PorPathLevel level;
    for (size_t k = 0; k < n; ++k) level.siblings.push_back(r.fr(f + ".hashes[" + std::to_string(k) + "]"));
    const size_t at = r.pos();
    const uint64_t index = r.u64(f + ".index");
    if (index > n) r.fail(f + ".index", at, std::to_string(index) + " beyond the " + std::to_string(n + 1) + " nodes");
    level.index = size_t(index);
    out.push_back(std::move(level));
  }
  return levels;
}

PostMerkleProof read_merkle_proof(Bincode& r, const std::string& field) {
  PostMerkleProof p;
  const size_t at = r.pos();
  const uint32_t tag = r.u32(field + " variant");
  if (tag > 2) r.fail(field + " variant", at, "tag " + std::to_string(tag) + " (expected 0 Single, 1 Sub or 2 Top)");
  p.kind = PostMerkleProof::Kind(tag);
  if (p.kind == PostMerkleProof::single) {
    p.root = r.fr(field + ".root");
    p.leaf = r.fr(field + ".leaf");
    p.base_levels = read_inclusion_path(r, field + ".path", p.path);
    return p;
  }
  p.base_levels = read_inclusion_path(r, field + ".base_proof", p.path);
  p.sub_levels = read_inclusion_path(r, field + ".sub_proof", p.path);
  if (p.kind == PostMerkleProof::top) p.top_levels = read_inclusion_path(r, field + ".top_proof", p.path);
  p.root = r.fr(field + ".root");
  p.leaf = r.fr(field + ".leaf");
  return p;
}

}  // namespace

FallbackPostSectorProof parse_fallback_post_sector_proof(std::span<const uint8_t> bytes, const std::string& what) {
  Bincode r(bytes, what);
  FallbackPostSectorProof p;
  p.sector_id = r.u64("sector_id");
  p.comm_r = r.fr("comm_r");
  // A SectorProof is at least 8 + 64 bytes, a MerkleProof at least 4 + 64 + 8.
  const size_t sectors = r.length("vanilla_proof.sectors", 72, std::numeric_limits<uint32_t>::max());
  for (size_t s = 0; s < sectors; ++s) {
    const std::string f = "vanilla_proof.sectors[" + std::to_string(s) + "]";
    PostSectorProof sp;
    const size_t n = r.length(f + ".inclusion_proofs", 76, std::numeric_limits<uint32_t>::max());
    for (size_t k = 0; k < n; ++k)
      sp.inclusion_proofs.push_back(read_merkle_proof(r, f + ".inclusion_proofs[" + std::to_string(k) + "]"));
    sp.comm_c = r.fr(f + ".comm_c");
    sp.comm_r_last = r.fr(f + ".comm_r_last");
    p.sectors.push_back(std::move(sp));
  }
  if (r.left())
    r.fail("trailing data", r.pos(), std::to_string(r.left()) + " bytes after the proof's last field (comm_r_last)");
  return p;
}

UpdatePartitionProof parse_update_partition_proof(std::span<const uint8_t> bytes, const std::string& what) {
  Bincode r(bytes, what);
  UpdatePartitionProof p;
  p.comm_c = r.fr("comm_c");
  const size_t apex = r.length("apex_leafs", 32, std::numeric_limits<uint32_t>::max());
  for (size_t i = 0; i < apex; ++i) p.apex_leaves.push_back(r.fr("apex_leafs[" + std::to_string(i) + "]"));
  // A ChallengeProof is three MerkleProofs of at least 4 + 64 + 8 bytes.
  const size_t n = r.length("challenge_proofs", 3 * 76, std::numeric_limits<uint32_t>::max());
  for (size_t i = 0; i < n; ++i) {
    const std::string f = "challenge_proofs[" + std::to_string(i) + "]";
    UpdateChallengeProof cp;
    cp.r_old = read_merkle_proof(r, f + ".proof_r_old");
    cp.d_new = read_merkle_proof(r, f + ".proof_d_new");
    cp.r_new = read_merkle_proof(r, f + ".proof_r_new");
    p.challenges.push_back(std::move(cp));
  }
  if (r.left()) r.fail("trailing data", r.pos(), std::to_string(r.left()) + " bytes after the last challenge proof");
  return p;
}

std::vector<uint8_t> read_post_vproof_bytes(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw FormatError(path, "not a regular file (or missing)");
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) throw FormatError(path, "cannot read its size: " + ec.message());
  if (size > (uint64_t(64) << 20))
    throw FormatError(path, std::to_string(size) + " bytes: too large for a vanilla proof");
  std::ifstream f(path, std::ios::binary);
  std::vector<uint8_t> b(size);
  if (!f.read(reinterpret_cast<char*>(b.data()), std::streamsize(size))) throw FormatError(path, "cannot be read");
  return b;
}

namespace {

struct BincodeWriter {
  std::vector<uint8_t> out;
  void u64(uint64_t v) {
    for (int i = 0; i < 8; ++i) out.push_back(uint8_t(v >> (8 * i)));
  }
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(uint8_t(v >> (8 * i)));
  }
  void fr(const PoseidonFr& x) {
    const auto l = x.to_std();
    for (size_t i = 0; i < 32; ++i) out.push_back(uint8_t(l.v[i / 8] >> (8 * (i % 8))));
  }
  void path(std::span<const PorPathLevel> levels) {
    u64(levels.size());
    for (const PorPathLevel& l : levels) {
      u64(l.siblings.size());
      for (const PoseidonFr& h : l.siblings) fr(h);
      u64(l.index);
    }
  }
  void merkle(const PostMerkleProof& m) {
    u32(uint32_t(m.kind));
    const std::span<const PorPathLevel> all(m.path);
    if (m.kind == PostMerkleProof::single) {
      fr(m.root), fr(m.leaf), path(all);
      return;
    }
    path(all.first(m.base_levels));
    path(all.subspan(m.base_levels, m.sub_levels));
    if (m.kind == PostMerkleProof::top) path(all.subspan(m.base_levels + m.sub_levels, m.top_levels));
    fr(m.root), fr(m.leaf);
  }
};

}  // namespace

std::vector<uint8_t> encode_fallback_post_sector_proof(const FallbackPostSectorProof& p) {
  BincodeWriter w;
  w.u64(p.sector_id);
  w.fr(p.comm_r);
  w.u64(p.sectors.size());
  for (const PostSectorProof& sp : p.sectors) {
    w.u64(sp.inclusion_proofs.size());
    for (const PostMerkleProof& m : sp.inclusion_proofs) w.merkle(m);
    w.fr(sp.comm_c);
    w.fr(sp.comm_r_last);
  }
  return std::move(w.out);
}

std::vector<uint8_t> encode_update_partition_proof(const UpdatePartitionProof& p) {
  BincodeWriter w;
  w.fr(p.comm_c);
  w.u64(p.apex_leaves.size());
  for (const PoseidonFr& x : p.apex_leaves) w.fr(x);
  w.u64(p.challenges.size());
  for (const UpdateChallengeProof& cp : p.challenges) w.merkle(cp.r_old), w.merkle(cp.d_new), w.merkle(cp.r_new);
  return std::move(w.out);
}

}  // namespace cuzk::filecoin
