// SPDX-License-Identifier: MIT OR Apache-2.0
#include "filecoin/c1.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "filecoin/param_names.hpp"
#include "io/json_parse.hpp"
#include "util/error.hpp"

namespace cuzk::filecoin {

namespace {

using io::Json;

constexpr size_t kNoOffset = SIZE_MAX;

// Where in the file: "vanilla_proofs.StackedDrg2KiBV1[0][1].comm_d_proofs", and for bincode the
// offset the member starts at.
struct At {
  const std::string& file;
  std::string where;
  size_t off = kNoOffset;
  [[noreturn]] void fail(const std::string& what) const {
    std::string s = where;
    if (off != kNoOffset) s += (s.empty() ? "" : " ") + std::string("at offset ") + std::to_string(off);
    throw FormatError(file, (s.empty() ? "" : s + ": ") + what);
  }
  At operator/(const std::string& m) const { return {file, where.empty() ? m : where + "." + m}; }
  At operator[](size_t i) const { return {file, where + "[" + std::to_string(i) + "]"}; }
  At at(size_t o) const { return {file, where, o}; }
};

// ---- The C1 output as both forms hold it (filecoin-proofs-api's SealCommitPhase1Output), filled
// by either reader, checked and converted by one. Offsets are bincode's (kNoOffset for JSON).

struct RawLevel {  // PathElement
  std::vector<PoseidonFr> hashes;
  uint64_t index = 0;
  size_t off = kNoOffset, index_off = kNoOffset;
};
struct RawPath {  // InclusionPath
  std::vector<RawLevel> levels;
  size_t off = kNoOffset;
};
struct RawMerkle {  // MerkleProof: "Single" {root, leaf, path}, "Sub" {base_proof, sub_proof, root, leaf}, "Top"
  std::string kind;
  RawPath base, sub, top;  // Single's path is `base`
  PoseidonFr root = PoseidonFr::zero(), leaf = PoseidonFr::zero();
  size_t off = kNoOffset;
};
struct RawColumn {  // ColumnProof
  uint64_t index = 0;
  std::vector<PoseidonFr> rows;
  RawMerkle inclusion;
  size_t off = kNoOffset, index_off = kNoOffset, rows_off = kNoOffset;
};
struct RawLabeling {  // LabelingProof, EncodingProof
  std::vector<PoseidonFr> parents;
  uint64_t layer_index = 0, node = 0;
  size_t off = kNoOffset, layer_off = kNoOffset, node_off = kNoOffset;
};
struct RawProof {  // stacked vanilla Proof
  RawMerkle comm_d, comm_r_last;
  RawColumn c_x;
  std::vector<RawColumn> drg, exp;
  std::vector<RawLabeling> labeling;
  RawLabeling encoding;
  size_t off = kNoOffset, drg_off = kNoOffset, exp_off = kNoOffset, labeling_off = kNoOffset;
};
struct RawBytes {
  Bytes32 v{};
  size_t off = kNoOffset;
};
struct RawC1 {
  std::string registered_proof, vanilla_key;
  size_t proof_off = kNoOffset, vanilla_off = kNoOffset;
  std::vector<std::vector<RawProof>> partitions;
  std::vector<size_t> partition_off;
  size_t partitions_off = kNoOffset;
  RawBytes comm_r, comm_d, replica_id, seed, ticket;
};

const char* const kProofKinds[3] = {"Single", "Sub", "Top"};
const uint64_t kSectorSizes[5] = {uint64_t(2) << 10, uint64_t(8) << 20, uint64_t(512) << 20, uint64_t(32) << 30,
                                  uint64_t(64) << 30};
// RegisteredSealProof's variants in declaration order (bincode's tag): each form over the five sizes.
const char* const kSealForms[4] = {"V1", "V1_1", "V1_1_Feat_SyntheticPoRep", "V1_2_Feat_NonInteractivePoRep"};
constexpr uint32_t kSealProofTags = 20;

std::string seal_proof_name(uint32_t tag) {
  return "StackedDrg" + sector_size_name(kSectorSizes[tag % 5]) + kSealForms[tag / 5];
}
std::string vanilla_key_name(uint32_t tag) { return "StackedDrg" + sector_size_name(kSectorSizes[tag]) + "V1"; }

// ---- JSON (serde_json's form)

const Json& member(const Json& o, const char* key, const At& at) {
  if (!o.is_object()) at.fail(std::string("expected an object, found ") + o.type_name());
  const Json* v = o.find(key);
  if (!v) at.fail(std::string("no member \"") + key + "\"");
  return *v;
}

const std::vector<Json>& array(const Json& j, const At& at, size_t want = SIZE_MAX) {
  if (!j.is_array()) at.fail(std::string("expected an array, found ") + j.type_name());
  if (want != SIZE_MAX && j.items.size() != want)
    at.fail("expected " + std::to_string(want) + " items, found " + std::to_string(j.items.size()));
  return j.items;
}

uint64_t number(const Json& j, const At& at, uint64_t most = UINT64_MAX) {
  auto v = j.as_u64();
  if (!v) at.fail("expected an unsigned integer");
  if (*v > most) at.fail(std::to_string(*v) + " is more than " + std::to_string(most));
  return *v;
}

Bytes32 bytes32(const Json& j, const At& at) {
  const auto& items = array(j, at, 32);
  Bytes32 b;
  for (size_t i = 0; i < 32; ++i) {
    auto v = items[i].as_u64();
    if (!v || *v > 255) at.fail("item " + std::to_string(i) + " is not a byte (0..255)");
    b[i] = uint8_t(*v);
  }
  return b;
}

PoseidonFr fr(const Bytes32& b, const At& at) {
  try {
    return fr_from_bytes(b, "value");
  } catch (const InvalidArgument& e) {
    at.fail(e.what());
  }
}

PoseidonFr fr(const Json& j, const At& at) { return fr(bytes32(j, at), at); }

std::vector<PoseidonFr> frs(const Json& j, const At& at) {
  std::vector<PoseidonFr> out;
  for (size_t k = 0; const Json& x : array(j, at)) out.push_back(fr(x, at[k++]));
  return out;
}

RawPath json_path(const Json& j, const At& at) {
  RawPath p;
  const At ap = at / "path";
  for (size_t l = 0; const Json& e : array(member(j, "path", at), ap)) {
    const At al = ap[l++];
    RawLevel lv;
    lv.hashes = frs(member(e, "hashes", al), al / "hashes");
    lv.index = number(member(e, "index", al), al / "index");
    p.levels.push_back(std::move(lv));
  }
  return p;
}

RawMerkle json_merkle(const Json& j, const At& at) {
  const At ad = at / "data";
  const Json& data = member(j, "data", at);
  if (!data.is_object() || data.fields.size() != 1) ad.fail("expected {\"Single\" | \"Sub\" | \"Top\": ...}");
  RawMerkle m;
  m.kind = data.fields[0].first;
  const Json& p = data.fields[0].second;
  const At ap = ad / m.kind;
  if (m.kind == "Single") {
    m.base = json_path(member(p, "path", ap), ap / "path");
  } else if (m.kind == "Sub" || m.kind == "Top") {
    m.base = json_path(member(p, "base_proof", ap), ap / "base_proof");
    m.sub = json_path(member(p, "sub_proof", ap), ap / "sub_proof");
    if (m.kind == "Top") m.top = json_path(member(p, "top_proof", ap), ap / "top_proof");
  } else {
    ad.fail("a \"" + m.kind + "\" proof, expected \"Single\", \"Sub\" or \"Top\"");
  }
  m.root = fr(member(p, "root", ap), ap / "root");
  m.leaf = fr(member(p, "leaf", ap), ap / "leaf");
  return m;
}

RawColumn json_column(const Json& j, const At& at) {
  RawColumn c;
  const At acol = at / "column";
  const Json& col = member(j, "column", at);
  c.index = number(member(col, "index", acol), acol / "index", UINT32_MAX);
  c.rows = frs(member(col, "rows", acol), acol / "rows");
  c.inclusion = json_merkle(member(j, "inclusion_proof", at), at / "inclusion_proof");
  return c;
}

RawLabeling json_labeling(const Json& j, const At& at) {
  RawLabeling l;
  l.parents = frs(member(j, "parents", at), at / "parents");
  l.layer_index = number(member(j, "layer_index", at), at / "layer_index", UINT32_MAX);
  l.node = number(member(j, "node", at), at / "node");
  return l;
}

RawProof json_proof(const Json& p, const At& a) {
  RawProof r;
  r.comm_d = json_merkle(member(p, "comm_d_proofs", a), a / "comm_d_proofs");
  r.comm_r_last = json_merkle(member(p, "comm_r_last_proof", a), a / "comm_r_last_proof");
  const At ac = a / "replica_column_proofs";
  const Json& rcp = member(p, "replica_column_proofs", a);
  r.c_x = json_column(member(rcp, "c_x", ac), ac / "c_x");
  for (size_t q = 0; const Json& c : array(member(rcp, "drg_parents", ac), ac / "drg_parents"))
    r.drg.push_back(json_column(c, (ac / "drg_parents")[q++]));
  for (size_t q = 0; const Json& c : array(member(rcp, "exp_parents", ac), ac / "exp_parents"))
    r.exp.push_back(json_column(c, (ac / "exp_parents")[q++]));
  for (size_t l = 0; const Json& x : array(member(p, "labeling_proofs", a), a / "labeling_proofs"))
    r.labeling.push_back(json_labeling(x, (a / "labeling_proofs")[l++]));
  r.encoding = json_labeling(member(p, "encoding_proof", a), a / "encoding_proof");
  return r;
}

RawC1 json_c1(const std::string& file, const std::string& text) {
  const At top{file, ""};
  Json j;
  try {
    j = io::parse_json(text);
  } catch (const io::JsonError& e) {
    top.fail(std::string("invalid JSON: ") + e.what());
  }
  RawC1 c;
  const Json& rp = member(j, "registered_proof", top);
  if (!rp.is_string()) (top / "registered_proof").fail("expected a string");
  c.registered_proof = rp.text;
  const At av = top / "vanilla_proofs";
  const Json& vp = member(j, "vanilla_proofs", top);
  if (!vp.is_object() || vp.fields.size() != 1) av.fail("expected {\"StackedDrg<size>V1\": [...]}");
  c.vanilla_key = vp.fields[0].first;
  const At ak = av / c.vanilla_key;
  for (size_t k = 0; const Json& part : array(vp.fields[0].second, ak)) {
    const At apk = ak[k++];
    std::vector<RawProof> proofs;
    for (size_t i = 0; const Json& p : array(part, apk)) proofs.push_back(json_proof(p, apk[i++]));
    c.partitions.push_back(std::move(proofs));
    c.partition_off.push_back(kNoOffset);
  }
  c.comm_r.v = bytes32(member(j, "comm_r", top), top / "comm_r");
  c.comm_d.v = bytes32(member(j, "comm_d", top), top / "comm_d");
  c.replica_id.v = bytes32(member(j, "replica_id", top), top / "replica_id");
  c.seed.v = bytes32(member(j, "seed", top), top / "seed");
  c.ticket.v = bytes32(member(j, "ticket", top), top / "ticket");
  return c;
}

// ---- Bincode (bincode 1, default options; filecoin-proofs-api's SealCommitPhase1Output):
// integers little-endian at their width, usize as u64, a Vec as a u64 length then its elements,
// an enum as a u32 variant tag then its fields, a struct as its fields in order, [u8; 32] and a
// domain element as 32 bytes, PhantomData as nothing.

class Bin {
 public:
  Bin(std::span<const uint8_t> b) : b_(b) {}
  size_t pos() const { return pos_; }
  size_t left() const { return b_.size() - pos_; }
  std::span<const uint8_t> take(const At& at, size_t n) {
    if (left() < n)
      at.at(pos_).fail("needs " + std::to_string(n) + " bytes, " + std::to_string(left()) + " left (cut short)");
    const auto s = b_.subspan(pos_, n);
    pos_ += n;
    return s;
  }
  uint64_t u64(const At& at) {
    const auto s = take(at, 8);
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= uint64_t(s[size_t(i)]) << (8 * i);
    return v;
  }
  uint32_t u32(const At& at) {
    const auto s = take(at, 4);
    return uint32_t(s[0]) | uint32_t(s[1]) << 8 | uint32_t(s[2]) << 16 | uint32_t(s[3]) << 24;
  }
  Bytes32 bytes(const At& at) {
    const auto s = take(at, 32);
    Bytes32 b;
    std::copy(s.begin(), s.end(), b.begin());
    return b;
  }
  PoseidonFr fr(const At& at) {
    const size_t off = pos_;
    return filecoin::fr(bytes(at), at.at(off));
  }
  // A Vec's length, each element at least min_bytes: a length the bytes left cannot hold is
  // refused before anything is allocated for it.
  size_t length(const At& at, size_t min_bytes) {
    const size_t off = pos_;
    const uint64_t n = u64(at);
    if (n > left() / min_bytes)
      at.at(off).fail("a length of " + std::to_string(n) + " elements of at least " + std::to_string(min_bytes) +
                      " bytes, but " + std::to_string(left()) + " bytes are left");
    return size_t(n);
  }
  std::vector<PoseidonFr> frs(const At& at) {
    std::vector<PoseidonFr> out(length(at, 32));
    for (size_t k = 0; k < out.size(); ++k) out[k] = fr(at[k]);
    return out;
  }

 private:
  std::span<const uint8_t> b_;
  size_t pos_ = 0;
};

// The least bytes of each part: a MerkleProof (tag, root, leaf, an empty path), a ColumnProof
// (index, empty rows, MerkleProof), a LabelingProof (empty parents, layer_index, node), a Proof.
constexpr size_t kMinMerkle = 4 + 32 + 32 + 8;
constexpr size_t kMinColumn = 4 + 8 + kMinMerkle;
constexpr size_t kMinLabeling = 8 + 4 + 8;
constexpr size_t kMinProof = 2 * kMinMerkle + kMinColumn + 8 + 8 + 8 + kMinLabeling;

RawPath bin_path(Bin& r, const At& at) {
  RawPath p;
  const At ap = at / "path";
  p.off = r.pos();
  p.levels.resize(r.length(ap, 8 + 8));
  for (size_t l = 0; l < p.levels.size(); ++l) {
    const At al = ap[l];
    RawLevel& lv = p.levels[l];
    lv.off = r.pos();
    lv.hashes = r.frs(al / "hashes");
    lv.index_off = r.pos();
    lv.index = r.u64(al / "index");
  }
  return p;
}

RawMerkle bin_merkle(Bin& r, const At& at) {
  RawMerkle m;
  const At ad = at / "data";
  m.off = r.pos();
  const uint32_t tag = r.u32(ad);
  if (tag > 2) ad.at(m.off).fail("variant tag " + std::to_string(tag) + ", expected 0 Single, 1 Sub or 2 Top");
  m.kind = kProofKinds[tag];
  const At ap = ad / m.kind;
  if (tag == 0) {
    m.root = r.fr(ap / "root");
    m.leaf = r.fr(ap / "leaf");
    m.base = bin_path(r, ap / "path");
    return m;
  }
  m.base = bin_path(r, ap / "base_proof");
  m.sub = bin_path(r, ap / "sub_proof");
  if (tag == 2) m.top = bin_path(r, ap / "top_proof");
  m.root = r.fr(ap / "root");
  m.leaf = r.fr(ap / "leaf");
  return m;
}

RawColumn bin_column(Bin& r, const At& at) {
  RawColumn c;
  const At acol = at / "column";
  c.off = c.index_off = r.pos();
  c.index = r.u32(acol / "index");
  c.rows_off = r.pos();
  c.rows = r.frs(acol / "rows");
  c.inclusion = bin_merkle(r, at / "inclusion_proof");
  return c;
}

RawLabeling bin_labeling(Bin& r, const At& at) {
  RawLabeling l;
  l.off = r.pos();
  l.parents = r.frs(at / "parents");
  l.layer_off = r.pos();
  l.layer_index = r.u32(at / "layer_index");
  l.node_off = r.pos();
  l.node = r.u64(at / "node");
  return l;
}

RawProof bin_proof(Bin& r, const At& a) {
  RawProof p;
  p.off = r.pos();
  p.comm_d = bin_merkle(r, a / "comm_d_proofs");
  p.comm_r_last = bin_merkle(r, a / "comm_r_last_proof");
  const At ac = a / "replica_column_proofs";
  p.c_x = bin_column(r, ac / "c_x");
  p.drg_off = r.pos();
  p.drg.resize(r.length(ac / "drg_parents", kMinColumn));
  for (size_t q = 0; q < p.drg.size(); ++q) p.drg[q] = bin_column(r, (ac / "drg_parents")[q]);
  p.exp_off = r.pos();
  p.exp.resize(r.length(ac / "exp_parents", kMinColumn));
  for (size_t q = 0; q < p.exp.size(); ++q) p.exp[q] = bin_column(r, (ac / "exp_parents")[q]);
  p.labeling_off = r.pos();
  p.labeling.resize(r.length(a / "labeling_proofs", kMinLabeling));
  for (size_t l = 0; l < p.labeling.size(); ++l) p.labeling[l] = bin_labeling(r, (a / "labeling_proofs")[l]);
  p.encoding = bin_labeling(r, a / "encoding_proof");
  return p;
}

RawC1 bin_c1(const std::string& file, std::span<const uint8_t> bytes) {
  const At top{file, ""};
  Bin r(bytes);
  RawC1 c;
  const At arp = top / "registered_proof";
  c.proof_off = r.pos();
  const uint32_t proof = r.u32(arp);
  if (proof >= kSealProofTags)
    arp.at(c.proof_off)
        .fail("variant tag " + std::to_string(proof) + " is not a RegisteredSealProof (0.." +
              std::to_string(kSealProofTags - 1) + ")");
  c.registered_proof = seal_proof_name(proof);
  const At av = top / "vanilla_proofs";
  c.vanilla_off = r.pos();
  const uint32_t key = r.u32(av);
  if (key >= 5) av.at(c.vanilla_off).fail("variant tag " + std::to_string(key) + " is not a VanillaSealProof (0..4)");
  c.vanilla_key = vanilla_key_name(key);
  const At ak = av / c.vanilla_key;
  c.partitions_off = r.pos();
  c.partitions.resize(r.length(ak, 8));
  for (size_t k = 0; k < c.partitions.size(); ++k) {
    c.partition_off.push_back(r.pos());
    auto& proofs = c.partitions[k];
    proofs.resize(r.length(ak[k], kMinProof));
    for (size_t i = 0; i < proofs.size(); ++i) proofs[i] = bin_proof(r, ak[k][i]);
  }
  for (auto [b, name] : {std::pair{&c.comm_r, "comm_r"},
                         {&c.comm_d, "comm_d"},
                         {&c.replica_id, "replica_id"},
                         {&c.seed, "seed"},
                         {&c.ticket, "ticket"}}) {
    b->off = r.pos();
    b->v = r.bytes(top / name);
  }
  if (r.left())
    (top / "trailing data").at(r.pos()).fail(std::to_string(r.left()) + " bytes after the last member (ticket)");
  return c;
}

// ---- The checks both forms share, and the conversion to the circuit's witness.

// An opened Merkle path of the given tree over `nodes` leaves.
struct Opened {
  PoseidonFr root, leaf;
  std::vector<PorPathLevel> path;
  uint64_t index = 0;  // the leaf the path opens
};

void inclusion_path(const RawPath& p, const At& at, size_t arity, size_t levels, Opened& o, uint64_t& stride) {
  const At ap = at / "path";
  if (p.levels.size() != levels)
    ap.at(p.off).fail("expected " + std::to_string(levels) + " items, found " + std::to_string(p.levels.size()));
  for (size_t l = 0; l < levels; ++l) {
    const At al = ap[l];
    const RawLevel& e = p.levels[l];
    if (e.hashes.size() != arity - 1)
      (al / "hashes")
          .at(e.off)
          .fail("expected " + std::to_string(arity - 1) + " items, found " + std::to_string(e.hashes.size()));
    if (e.index >= arity)
      (al / "index").at(e.index_off).fail(std::to_string(e.index) + " is not below the arity " + std::to_string(arity));
    PorPathLevel lv;
    lv.siblings = e.hashes;
    lv.index = size_t(e.index);
    o.index += e.index * stride;
    stride *= arity;
    o.path.push_back(std::move(lv));
  }
}

Opened merkle_proof(const RawMerkle& m, const At& at, const TreeShape& shape, uint64_t nodes) {
  const At ad = at / "data";
  const char* kind = shape.top ? "Top" : shape.sub ? "Sub" : "Single";
  if (m.kind != kind)
    ad.at(m.off).fail("a \"" + m.kind + "\" proof, expected \"" + kind + "\" for a tree " + shape.name());
  const At ap = ad / kind;
  Opened o;
  uint64_t stride = 1;
  const size_t base_levels = shape.base_path_length(nodes);
  if (shape.sub) {
    inclusion_path(m.base, ap / "base_proof", shape.base, base_levels, o, stride);
    inclusion_path(m.sub, ap / "sub_proof", shape.sub, 1, o, stride);
    if (shape.top) inclusion_path(m.top, ap / "top_proof", shape.top, 1, o, stride);
  } else {
    inclusion_path(m.base, ap / "path", shape.base, base_levels, o, stride);
  }
  o.root = m.root;
  o.leaf = m.leaf;
  return o;
}

// A column proof: its rows and its opening in tree C, checked to open its own index.
PorepColumnWitness column_proof(const RawColumn& col, const At& at, const PorepCircuitConfig& c, uint32_t& index,
                                PoseidonFr& root) {
  const At acol = at / "column";
  index = uint32_t(col.index);
  PorepColumnWitness w;
  if (col.rows.size() != c.layers)
    (acol / "rows")
        .at(col.rows_off)
        .fail("expected " + std::to_string(c.layers) + " items, found " + std::to_string(col.rows.size()));
  w.rows = col.rows;
  const Opened o = merkle_proof(col.inclusion, at / "inclusion_proof", c.tree, c.nodes);
  if (o.index != col.index)
    (at / "inclusion_proof")
        .at(col.inclusion.off)
        .fail("opens node " + std::to_string(o.index) + ", the column is node " + std::to_string(col.index));
  w.path = o.path;
  root = o.root;
  return w;
}

C1Output check_c1(const std::string& file, const RawC1& raw) {
  const At top{file, ""};
  C1Output out;
  try {
    out.proof = seal_proof_type(raw.registered_proof);
  } catch (const InvalidArgument& e) {
    (top / "registered_proof").at(raw.proof_off).fail(e.what());
  }
  out.comm_r = raw.comm_r.v, out.comm_d = raw.comm_d.v, out.replica_id = raw.replica_id.v;
  out.seed = raw.seed.v, out.ticket = raw.ticket.v;
  const PoseidonFr replica_id = fr(raw.replica_id.v, (top / "replica_id").at(raw.replica_id.off));
  const PoseidonFr comm_r = fr(raw.comm_r.v, (top / "comm_r").at(raw.comm_r.off));
  const PoseidonFr comm_d = fr(raw.comm_d.v, (top / "comm_d").at(raw.comm_d.off));

  PorepSectorConfig sc = porep_sector_config(out.proof.sector_size);
  PorepRecord rec;  // the challenge counts and derivations, as a record of this proof would have them
  rec.sector_size = out.proof.sector_size;
  rec.kind = out.proof.kind;
  rec.partitions = out.proof.kind == PorepChallengeKind::non_interactive
                       ? (out.proof.sector_size >= (uint64_t(32) << 30) ? 126 : 13)
                       : sc.partitions;
  rec.comm_r = out.comm_r, rec.seed = out.seed;
  sc.circuit.challenges = rec.challenges_per_partition();
  out.config = sc.circuit;
  const PorepCircuitConfig& c = sc.circuit;
  const StackedGraph graph(c.nodes, porep_id_of(out.proof.porep_proof_id), out.proof.api);

  const At av = top / "vanilla_proofs";
  const std::string key = out.proof.vanilla_key();
  if (raw.vanilla_key != key)
    av.at(raw.vanilla_off)
        .fail("expected {\"" + key + "\": [...]} for " + out.proof.name + ", found \"" + raw.vanilla_key + "\"");
  const At ak = av / key;
  const auto& parts = raw.partitions;
  if (parts.empty() || parts.size() > rec.partitions)
    ak.at(raw.partitions_off)
        .fail(std::to_string(parts.size()) + " partitions, " + out.proof.name + " has " +
              std::to_string(rec.partitions));
  PoseidonFr comm_c = PoseidonFr::zero(), comm_r_last = PoseidonFr::zero();
  for (size_t k = 0; k < parts.size(); ++k) {
    const At apk = ak[k];
    const auto& proofs = parts[k];
    if (proofs.size() != c.challenges)
      apk.at(raw.partition_off[k])
          .fail("expected " + std::to_string(c.challenges) + " items, found " + std::to_string(proofs.size()));
    const std::vector<uint64_t> want = rec.challenges(out.replica_id, k);
    PorepWitness w;
    w.replica_id = replica_id, w.comm_d = comm_d, w.comm_r = comm_r;
    for (size_t i = 0; i < proofs.size(); ++i) {
      const At a = apk[i];
      const RawProof& p = proofs[i];
      PorepChallengeWitness ch;
      const At ad = a / "comm_d_proofs", ar = a / "comm_r_last_proof";
      const Opened d = merkle_proof(p.comm_d, ad, c.tree_d(), c.nodes);
      if (d.root != comm_d) ad.at(p.comm_d.off).fail("its root is not comm_d");
      ch.challenge = d.index, ch.data_leaf = d.leaf, ch.comm_d_path = d.path;
      if (ch.challenge != want[i])
        ad.at(p.comm_d.off)
            .fail("opens node " + std::to_string(ch.challenge) + ", but challenge " + std::to_string(i) +
                  " of partition " + std::to_string(k) + " is node " + std::to_string(want[i]) +
                  " (from replica_id, seed and comm_r)");
      const Opened r = merkle_proof(p.comm_r_last, ar, c.tree, c.nodes);
      if (r.index != ch.challenge)
        ar.at(p.comm_r_last.off).fail("opens node " + std::to_string(r.index) + ", not the challenge");
      ch.comm_r_last_path = r.path;
      const At ac = a / "replica_column_proofs";
      uint32_t idx = 0;
      PoseidonFr root;
      ch.comm_c_path = column_proof(p.c_x, ac / "c_x", c, idx, root).path;
      if (idx != ch.challenge) (ac / "c_x").at(p.c_x.off).fail("column " + std::to_string(idx) + ", not the challenge");
      if (k == 0 && i == 0) comm_c = root, comm_r_last = r.root;
      if (root != comm_c) (ac / "c_x").at(p.c_x.off).fail("its tree C root differs from the first proof's (comm_c)");
      if (r.root != comm_r_last) ar.at(p.comm_r_last.off).fail("its root differs from the first proof's (comm_r_last)");
      uint32_t parents[kGraphDegree];
      graph.parents(uint32_t(ch.challenge), parents);
      for (size_t g = 0; g < 2; ++g) {
        const At ag = ac / (g ? "exp_parents" : "drg_parents");
        const size_t n = g ? kGraphExpDegree : kGraphDrgDegree;
        const auto& cols = g ? p.exp : p.drg;
        if (cols.size() != n)
          ag.at(g ? p.exp_off : p.drg_off)
              .fail("expected " + std::to_string(n) + " items, found " + std::to_string(cols.size()));
        for (size_t q = 0; q < n; ++q) {
          auto col = column_proof(cols[q], ag[q], c, idx, root);
          const uint32_t want_parent = parents[g * kGraphDrgDegree + q];
          if (idx != want_parent)
            ag[q]
                .at(cols[q].off)
                .fail("column " + std::to_string(idx) + ", but the graph's parent is node " +
                      std::to_string(want_parent));
          if (root != comm_c) ag[q].at(cols[q].off).fail("its tree C root differs from comm_c");
          (g ? ch.exp_parents : ch.drg_parents).push_back(std::move(col));
        }
      }
      const At al = a / "labeling_proofs";
      if (p.labeling.size() != c.layers)
        al.at(p.labeling_off)
            .fail("expected " + std::to_string(c.layers) + " items, found " + std::to_string(p.labeling.size()));
      for (size_t l = 0; l < p.labeling.size(); ++l) {
        const RawLabeling& lp = p.labeling[l];
        if (lp.node != ch.challenge) (al[l] / "node").at(lp.node_off).fail("not the challenge");
        if (lp.layer_index != l + 1)
          (al[l] / "layer_index").at(lp.layer_off).fail("expected layer " + std::to_string(l + 1));
      }
      w.challenges.push_back(std::move(ch));
    }
    w.comm_c = comm_c, w.comm_r_last = comm_r_last;
    out.challenges.push_back(want);
    out.partitions.push_back(std::move(w));
  }
  const PoseidonFr pair[2] = {comm_c, comm_r_last};
  if (poseidon_hash(2, pair) != comm_r)
    (top / "comm_r").at(raw.comm_r.off).fail("is not Poseidon2(comm_c, comm_r_last) of the proofs' trees");
  return out;
}

// ---- The C1 output of a sector sealed here, as a RawC1, and its two forms.

RawMerkle raw_merkle(const TreeShape& shape, const std::vector<PorPathLevel>& path, const PoseidonFr& root,
                     const PoseidonFr& leaf) {
  RawMerkle m;
  m.kind = shape.top ? "Top" : shape.sub ? "Sub" : "Single";
  const size_t base = path.size() - (shape.sub ? 1 : 0) - (shape.top ? 1 : 0);
  auto part = [&](RawPath& p, size_t from, size_t to) {
    for (size_t l = from; l < to; ++l) p.levels.push_back({path[l].siblings, path[l].index});
  };
  part(m.base, 0, base);
  if (shape.sub) part(m.sub, base, base + 1);
  if (shape.top) part(m.top, base + 1, base + 2);
  m.root = root, m.leaf = leaf;
  return m;
}

RawC1 raw_of_sector(const SealedSector& sec, const SealProofType& proof, const Bytes32& seed, const Bytes32& ticket,
                    const StackedGraph& graph, const std::vector<std::vector<uint64_t>>& partition_challenges) {
  const PorepCircuitConfig& c = sec.config;
  RawC1 raw;
  raw.registered_proof = proof.name;
  raw.vanilla_key = proof.vanilla_key();
  auto column = [&](uint64_t node) {
    RawColumn col;
    col.index = node;
    for (size_t l = 0; l < c.layers; ++l) col.rows.push_back(sec.labels[l][node]);
    col.inclusion = raw_merkle(c.tree, sec.tree_c.path(node), sec.tree_c.root(), poseidon_hash(c.layers, col.rows));
    return col;
  };
  for (const auto& challenges : partition_challenges) {
    std::vector<RawProof> proofs;
    for (const uint64_t ch : challenges) {
      RawProof p;
      p.comm_d = raw_merkle(c.tree_d(), sec.tree_d.path(ch), sec.tree_d.root(), sec.data[ch]);
      p.comm_r_last = raw_merkle(c.tree, sec.tree_r.path(ch), sec.tree_r.root(), sec.data[ch] + sec.labels.back()[ch]);
      p.c_x = column(ch);
      uint32_t parents[kGraphDegree];
      graph.parents(uint32_t(ch), parents);
      for (size_t q = 0; q < kGraphDrgDegree; ++q) p.drg.push_back(column(parents[q]));
      for (size_t q = 0; q < kGraphExpDegree; ++q) p.exp.push_back(column(parents[kGraphDrgDegree + q]));
      for (size_t layer = 1; layer <= c.layers; ++layer) {
        // The parents' labels as the labeling hashes them, repeated to 37.
        const size_t n = layer == 1 ? kGraphDrgDegree : kGraphDegree;
        RawLabeling lp;
        for (size_t q = 0; q < circuit::kTotalParents; ++q) {
          const size_t at = q % n;
          lp.parents.push_back(sec.labels[at < kGraphDrgDegree ? layer - 1 : layer - 2][parents[at]]);
        }
        lp.layer_index = layer, lp.node = ch;
        p.labeling.push_back(std::move(lp));
      }
      p.encoding = p.labeling.back();
      proofs.push_back(std::move(p));
    }
    raw.partitions.push_back(std::move(proofs));
  }
  raw.comm_r.v = sec.comm_r, raw.comm_d.v = sec.comm_d, raw.replica_id.v = sec.replica_id;
  raw.seed.v = seed, raw.ticket.v = ticket;
  return raw;
}

// JSON, members in the order serde writes them.
struct JsonOut {
  std::string s;
  void bytes(const Bytes32& b) {
    s += '[';
    for (size_t i = 0; i < 32; ++i) s += (i ? "," : "") + std::to_string(b[i]);
    s += ']';
  }
  void fr(const PoseidonFr& x) { bytes(fr_to_bytes(x)); }
  void frs(const std::vector<PoseidonFr>& xs) {
    s += '[';
    for (size_t k = 0; k < xs.size(); ++k) s += k ? "," : "", fr(xs[k]);
    s += ']';
  }
  void path(const RawPath& p) {
    s += "{\"path\":[";
    for (size_t l = 0; l < p.levels.size(); ++l) {
      s += l ? ",{\"hashes\":" : "{\"hashes\":";
      frs(p.levels[l].hashes);
      s += ",\"index\":" + std::to_string(p.levels[l].index) + "}";
    }
    s += "]}";
  }
  void merkle(const RawMerkle& m) {
    s += "{\"data\":{\"" + m.kind + "\":{";
    if (m.kind == "Single") {
      s += "\"root\":", fr(m.root), s += ",\"leaf\":", fr(m.leaf), s += ",\"path\":", path(m.base);
    } else {
      s += "\"base_proof\":", path(m.base), s += ",\"sub_proof\":", path(m.sub);
      if (m.kind == "Top") s += ",\"top_proof\":", path(m.top);
      s += ",\"root\":", fr(m.root), s += ",\"leaf\":", fr(m.leaf);
    }
    s += "}}}";
  }
  void column(const RawColumn& c) {
    s += "{\"column\":{\"index\":" + std::to_string(c.index) + ",\"rows\":";
    frs(c.rows);
    s += ",\"_h\":null},\"inclusion_proof\":";
    merkle(c.inclusion);
    s += "}";
  }
  void columns(const std::vector<RawColumn>& cs) {
    s += '[';
    for (size_t q = 0; q < cs.size(); ++q) s += q ? "," : "", column(cs[q]);
    s += ']';
  }
  void labeling(const RawLabeling& l) {
    s += "{\"parents\":";
    frs(l.parents);
    s += ",\"layer_index\":" + std::to_string(l.layer_index) + ",\"node\":" + std::to_string(l.node) + "}";
  }
  void c1(const RawC1& raw) {
    s += "{\"registered_proof\":\"" + raw.registered_proof + "\",\"vanilla_proofs\":{\"" + raw.vanilla_key + "\":[";
    for (size_t k = 0; k < raw.partitions.size(); ++k) {
      s += k ? ",[" : "[";
      for (size_t i = 0; i < raw.partitions[k].size(); ++i) {
        const RawProof& p = raw.partitions[k][i];
        s += i ? ",{\"comm_d_proofs\":" : "{\"comm_d_proofs\":";
        merkle(p.comm_d);
        s += ",\"comm_r_last_proof\":", merkle(p.comm_r_last);
        s += ",\"replica_column_proofs\":{\"c_x\":", column(p.c_x);
        s += ",\"drg_parents\":", columns(p.drg);
        s += ",\"exp_parents\":", columns(p.exp);
        s += "},\"labeling_proofs\":[";
        for (size_t l = 0; l < p.labeling.size(); ++l) s += l ? "," : "", labeling(p.labeling[l]);
        s += "],\"encoding_proof\":", labeling(p.encoding);
        s += "}";
      }
      s += "]";
    }
    s += "]},\"comm_r\":", bytes(raw.comm_r.v);
    s += ",\"comm_d\":", bytes(raw.comm_d.v);
    s += ",\"replica_id\":", bytes(raw.replica_id.v);
    s += ",\"seed\":", bytes(raw.seed.v);
    s += ",\"ticket\":", bytes(raw.ticket.v);
    s += "}";
  }
};

// Bincode, the reader's inverse.
struct BinOut {
  std::vector<uint8_t> b;
  void u64(uint64_t v) {
    for (int i = 0; i < 8; ++i) b.push_back(uint8_t(v >> (8 * i)));
  }
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) b.push_back(uint8_t(v >> (8 * i)));
  }
  void bytes(const Bytes32& x) { b.insert(b.end(), x.begin(), x.end()); }
  void fr(const PoseidonFr& x) { bytes(fr_to_bytes(x)); }
  void frs(const std::vector<PoseidonFr>& xs) {
    u64(xs.size());
    for (const PoseidonFr& x : xs) fr(x);
  }
  void path(const RawPath& p) {
    u64(p.levels.size());
    for (const RawLevel& l : p.levels) frs(l.hashes), u64(l.index);
  }
  void merkle(const RawMerkle& m) {
    const uint32_t tag = m.kind == "Single" ? 0 : m.kind == "Sub" ? 1 : 2;
    u32(tag);
    if (tag == 0) {
      fr(m.root), fr(m.leaf), path(m.base);
      return;
    }
    path(m.base), path(m.sub);
    if (tag == 2) path(m.top);
    fr(m.root), fr(m.leaf);
  }
  void column(const RawColumn& c) { u32(uint32_t(c.index)), frs(c.rows), merkle(c.inclusion); }
  void labeling(const RawLabeling& l) { frs(l.parents), u32(uint32_t(l.layer_index)), u64(l.node); }
  void c1(const RawC1& raw) {
    uint32_t proof = 0, key = 0;
    while (proof < kSealProofTags && seal_proof_name(proof) != raw.registered_proof) ++proof;
    while (key < 5 && vanilla_key_name(key) != raw.vanilla_key) ++key;
    if (proof == kSealProofTags || key == 5)
      throw InvalidArgument("c1_bincode: registered proof '" + raw.registered_proof + "' has no bincode tag");
    u32(proof), u32(key);
    u64(raw.partitions.size());
    for (const auto& proofs : raw.partitions) {
      u64(proofs.size());
      for (const RawProof& p : proofs) {
        merkle(p.comm_d), merkle(p.comm_r_last);
        column(p.c_x);
        u64(p.drg.size());
        for (const RawColumn& c : p.drg) column(c);
        u64(p.exp.size());
        for (const RawColumn& c : p.exp) column(c);
        u64(p.labeling.size());
        for (const RawLabeling& l : p.labeling) labeling(l);
        labeling(p.encoding);
      }
    }
    for (const RawBytes* x : {&raw.comm_r, &raw.comm_d, &raw.replica_id, &raw.seed, &raw.ticket}) bytes(x->v);
  }
};

}  // namespace

std::string SealProofType::vanilla_key() const { return "StackedDrg" + sector_size_name(sector_size) + "V1"; }

SealProofType seal_proof_type(const std::string& name) {
  for (size_t i = 0; i < 5; ++i) {
    const std::string base = "StackedDrg" + sector_size_name(kSectorSizes[i]);
    SealProofType t;
    t.sector_size = kSectorSizes[i];
    t.name = name;
    if (name == base + "V1") {
      t.porep_proof_id = i, t.api = ApiVersion::v1_0_0;
      return t;
    }
    t.porep_proof_id = i + 5;
    if (name == base + "V1_1") return t;
    t.api = ApiVersion::v1_2_0;
    if (name == base + "V1_1_Feat_SyntheticPoRep") return t.kind = PorepChallengeKind::synthetic, t;
    if (name == base + "V1_2_Feat_NonInteractivePoRep") return t.kind = PorepChallengeKind::non_interactive, t;
  }
  throw InvalidArgument("registered proof '" + name +
                        "': expected StackedDrg{2KiB,8MiB,512MiB,32GiB,64GiB}V1, V1_1, V1_1_Feat_SyntheticPoRep "
                        "or V1_2_Feat_NonInteractivePoRep");
}

C1Output parse_c1(const std::string& file, const std::string& text) { return check_c1(file, json_c1(file, text)); }

C1Output parse_c1_bincode(const std::string& file, std::span<const uint8_t> bytes) {
  return check_c1(file, bin_c1(file, bytes));
}

C1Output parse_c1_any(const std::string& file, std::span<const uint8_t> bytes) {
  for (const uint8_t b : bytes) {
    if (b == ' ' || b == '\t' || b == '\n' || b == '\r') continue;
    if (b == '{') return parse_c1(file, std::string(bytes.begin(), bytes.end()));
    break;
  }
  return parse_c1_bincode(file, bytes);
}

C1Output read_c1(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw FormatError(path, "cannot open");
  std::ostringstream ss;
  ss << f.rdbuf();
  if (f.bad()) throw FormatError(path, "read failed");
  const std::string s = ss.str();
  return parse_c1_any(path, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
}

std::string c1_json(const SealedSector& sec, const SealProofType& proof, const Bytes32& seed, const Bytes32& ticket,
                    const StackedGraph& graph, const std::vector<std::vector<uint64_t>>& partition_challenges) {
  JsonOut o;
  o.c1(raw_of_sector(sec, proof, seed, ticket, graph, partition_challenges));
  return std::move(o.s);
}

std::vector<uint8_t> c1_bincode(const SealedSector& sec, const SealProofType& proof, const Bytes32& seed,
                                const Bytes32& ticket, const StackedGraph& graph,
                                const std::vector<std::vector<uint64_t>>& partition_challenges) {
  BinOut o;
  o.c1(raw_of_sector(sec, proof, seed, ticket, graph, partition_challenges));
  return std::move(o.b);
}

}  // namespace cuzk::filecoin
