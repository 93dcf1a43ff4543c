// SPDX-License-Identifier: MIT OR Apache-2.0
#include "filecoin/post_vanilla.hpp"

#include <cstdio>
#include <limits>

#include "circuit/cs.hpp"
#include "filecoin/post_circuit.hpp"
#include "filecoin/sha256.hpp"
#include "io/json_parse.hpp"
#include "util/error.hpp"

namespace cuzk::filecoin {

uint64_t post_leaf_challenge(const std::array<uint8_t, 32>& randomness, uint64_t sector_id, uint64_t challenge_index,
                             uint64_t leaves) {
  if (leaves == 0) throw InvalidArgument("post challenge: a sector without leaves");
  Sha256 h;
  h.update(std::span<const uint8_t>(randomness));
  uint8_t le[8];
  for (int i = 0; i < 8; ++i) le[i] = uint8_t(sector_id >> (8 * i));
  h.update(std::span<const uint8_t>(le, 8));
  for (int i = 0; i < 8; ++i) le[i] = uint8_t(challenge_index >> (8 * i));
  h.update(std::span<const uint8_t>(le, 8));
  const Sha256::Digest d = h.finish();
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t(d[i]) << (8 * i);
  return v % leaves;
}

PoseidonFr sealed_cid_comm_r(const std::string& cid) {
  if (cid.empty() || cid[0] != 'b')
    throw InvalidArgument("sealed CID '" + cid + "': expected multibase 'b' (base32, lower case)");
  std::vector<uint8_t> bytes;
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 1; i < cid.size(); ++i) {
    const char ch = cid[i];
    int v;
    if (ch >= 'a' && ch <= 'z')
      v = ch - 'a';
    else if (ch >= '2' && ch <= '7')
      v = 26 + (ch - '2');
    else
      throw InvalidArgument("sealed CID: character " + std::to_string(i) + " is not base32 (a-z, 2-7)");
    acc = (acc << 5) | uint32_t(v);
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes.push_back(uint8_t(acc >> bits));
      acc &= (1u << bits) - 1;
    }
  }
  if (bits >= 5 || acc != 0) throw InvalidArgument("sealed CID: base32 text with stray trailing bits");
  size_t pos = 0;
  auto varint = [&](const char* what) {
    uint64_t v = 0;
    for (int shift = 0; shift < 63; shift += 7) {
      if (pos >= bytes.size()) throw InvalidArgument(std::string("sealed CID: ends inside the ") + what);
      const uint8_t b = bytes[pos++];
      v |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    throw InvalidArgument(std::string("sealed CID: the ") + what + " is too long a varint");
  };
  const uint64_t version = varint("version");
  if (version != 1) throw InvalidArgument("sealed CID: version " + std::to_string(version) + ", expected CIDv1");
  const uint64_t codec = varint("codec");
  if (codec != 0xf102)
    throw InvalidArgument("sealed CID: codec " + std::to_string(codec) + ", expected fil-commitment-sealed (0xf102)");
  const uint64_t mh = varint("multihash code");
  if (mh != 0xb401)
    throw InvalidArgument("sealed CID: multihash code " + std::to_string(mh) +
                          ", expected poseidon-bls12_381-a2-fc1 (0xb401)");
  const uint64_t len = varint("digest length");
  if (len != 32) throw InvalidArgument("sealed CID: a digest of " + std::to_string(len) + " bytes, expected 32");
  if (bytes.size() - pos != 32)
    throw InvalidArgument("sealed CID: " + std::to_string(bytes.size() - pos) + " digest bytes, expected 32");
  return post_fr_from_le(std::span<const uint8_t>(bytes).subspan(pos), "sealed CID's comm_r");
}

std::string sealed_cid_of(const PoseidonFr& comm_r) {
  std::vector<uint8_t> bytes;
  auto varint = [&](uint64_t v) {
    for (; v >= 0x80; v >>= 7) bytes.push_back(uint8_t(v | 0x80));
    bytes.push_back(uint8_t(v));
  };
  varint(1), varint(0xf102), varint(0xb401), varint(32);
  const auto l = comm_r.to_std();
  for (size_t i = 0; i < 32; ++i) bytes.push_back(uint8_t(l.v[i / 8] >> (8 * (i % 8))));
  std::string out = "b";
  uint32_t acc = 0;
  int bits = 0;
  for (uint8_t b : bytes) {
    acc = (acc << 8) | b, bits += 8;
    for (; bits >= 5; bits -= 5) out += "abcdefghijklmnopqrstuvwxyz234567"[(acc >> (bits - 5)) & 31];
    acc &= (1u << bits) - 1;
  }
  if (bits) out += "abcdefghijklmnopqrstuvwxyz234567"[(acc << (5 - bits)) & 31];
  return out;
}

std::string base64_encode(std::span<const uint8_t> b) {
  static const char* const k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < b.size(); i += 3) {
    const uint32_t n = uint32_t(b[i]) << 16 | (i + 1 < b.size() ? uint32_t(b[i + 1]) << 8 : 0) |
                       (i + 2 < b.size() ? uint32_t(b[i + 2]) : 0);
    out += k[n >> 18], out += k[(n >> 12) & 63];
    out += i + 1 < b.size() ? k[(n >> 6) & 63] : '=';
    out += i + 2 < b.size() ? k[n & 63] : '=';
  }
  return out;
}

namespace {

const char* const kSizeNames[5] = {"2KiB", "8MiB", "512MiB", "32GiB", "64GiB"};
const uint64_t kSizeBytes[5] = {uint64_t(1) << 11, uint64_t(1) << 23, uint64_t(1) << 29, uint64_t(1) << 35,
                                uint64_t(1) << 36};

std::vector<uint8_t> base64_decode(const std::string& s, const std::string& what) {
  if (s.size() % 4) throw InvalidArgument(what + ": base64 of " + std::to_string(s.size()) + " characters");
  std::vector<uint8_t> out;
  for (size_t i = 0; i < s.size(); i += 4) {
    uint32_t acc = 0;
    int pad = 0;
    for (size_t k = 0; k < 4; ++k) {
      const char c = s[i + k];
      int v;
      if (c >= 'A' && c <= 'Z')
        v = c - 'A';
      else if (c >= 'a' && c <= 'z')
        v = 26 + (c - 'a');
      else if (c >= '0' && c <= '9')
        v = 52 + (c - '0');
      else if (c == '+')
        v = 62;
      else if (c == '/')
        v = 63;
      else if (c == '=' && i + 4 == s.size() && k >= 2 && (k == 3 || s[i + 3] == '='))
        v = 0, ++pad;
      else
        throw InvalidArgument(what + ": character " + std::to_string(i + k) + " is not base64");
      if (pad && c != '=') throw InvalidArgument(what + ": base64 data after '='");
      acc = (acc << 6) | uint32_t(v);
    }
    const uint8_t b[3] = {uint8_t(acc >> 16), uint8_t(acc >> 8), uint8_t(acc)};
    // The bits '=' stands over must be zero (canonical base64).
    if ((pad == 1 && b[2]) || (pad == 2 && (b[1] || b[2])))
      throw InvalidArgument(what + ": base64 with stray bits before '='");
    out.insert(out.end(), b, b + 3 - pad);
  }
  return out;
}

}  // namespace

SealProofInfo seal_proof_info(uint64_t n) {
  static const char* const versions[4] = {"V1", "V1_1", "V1_1_Feat_SyntheticPoRep", "V1_2_Feat_NonInteractivePoRep"};
  if (n >= 20) throw InvalidArgument("seal proof " + std::to_string(n) + " is not a registered seal proof (0 to 19)");
  return {kSizeBytes[n % 5], std::string("StackedDrg") + kSizeNames[n % 5] + versions[n / 5]};
}

PostProofInfo post_proof_info(uint64_t n) {
  if (n >= 15) throw InvalidArgument("PoSt proof " + std::to_string(n) + " is not a registered PoSt proof (0 to 14)");
  PostProofInfo p;
  p.sector_bytes = kSizeBytes[n % 5];
  p.winning = n < 5;
  // Window V1_1 proofs are api version 1.2 (per-sector challenge numbering); V1 ones 1.0 / 1.1.
  p.api = n >= 10 ? PostApiVersion::v1_2 : PostApiVersion::v1_1;
  p.name =
      std::string("StackedDrg") + (p.winning ? "Winning" : "Window") + kSizeNames[n % 5] + (n >= 10 ? "V1_1" : "V1");
  return p;
}

PostPublicData parse_post_public_json(const std::string& path) {
  const io::Json j = io::parse_json_file(path, size_t(64) << 20);
  auto fail = [&](const std::string& msg) -> void { throw FormatError(path, msg); };
  if (!j.is_object()) fail("expected a JSON object, got " + std::string(j.type_name()));
  auto member = [&](const io::Json& o, const std::string& where, const char* key, io::Json::Type type,
                    const char* type_name) -> const io::Json& {
    const io::Json* v = o.find(key);
    if (!v) throw FormatError(path, where + ": no \"" + key + "\"");
    if (v->type != type) throw FormatError(path, where + "." + key + ": " + v->type_name() + ", expected " + type_name);
    return *v;
  };
  auto only = [&](const io::Json& o, const std::string& where, std::initializer_list<const char*> keys) {
    for (const auto& [k, v] : o.fields) {
      bool known = false;
      for (const char* x : keys) known = known || k == x;
      if (!known) throw FormatError(path, where + ": unknown member \"" + k + "\"");
    }
  };
  auto u64 = [&](const io::Json& o, const std::string& where, const char* key) {
    const io::Json& v = member(o, where, key, io::Json::Type::Number, "a number");
    const auto n = v.as_u64();
    if (!n) throw FormatError(path, where + "." + key + ": " + v.text + " is not a 64-bit unsigned integer");
    return *n;
  };
  PostPublicData d;
  only(j, "the object", {"Randomness", "Proofs", "ChallengedSectors", "Prover"});
  const io::Json& rnd = member(j, "the object", "Randomness", io::Json::Type::String, "a string");
  std::vector<uint8_t> r;
  try {
    r = base64_decode(rnd.text, "Randomness");
  } catch (const InvalidArgument& e) {
    fail(e.what());
  }
  if (r.size() != 32) fail("Randomness: " + std::to_string(r.size()) + " bytes, expected 32");
  std::copy(r.begin(), r.end(), d.randomness.begin());
  // The randomness is a Poseidon domain element (as_safe_commitment refuses one at least r).
  try {
    (void)post_fr_from_le(r, "Randomness");
  } catch (const InvalidArgument& e) {
    fail(e.what());
  }
  const io::Json& proofs = member(j, "the object", "Proofs", io::Json::Type::Array, "an array");
  for (size_t i = 0; i < proofs.items.size(); ++i) {
    const std::string w = "Proofs[" + std::to_string(i) + "]";
    const io::Json& p = proofs.items[i];
    if (!p.is_object()) fail(w + ": " + p.type_name() + ", expected an object");
    only(p, w, {"PoStProof", "ProofBytes"});
    d.post_proofs.push_back(u64(p, w, "PoStProof"));
    const io::Json* pb = p.find("ProofBytes");
    if (!pb) fail(w + ": no \"ProofBytes\"");
    if (!pb->is_null() && !pb->is_string()) fail(w + ".ProofBytes: " + pb->type_name() + ", expected null or base64");
  }
  if (d.post_proofs.empty()) fail("Proofs: empty (the PoSt proof type is needed)");
  const io::Json& cs = member(j, "the object", "ChallengedSectors", io::Json::Type::Array, "an array");
  for (size_t i = 0; i < cs.items.size(); ++i) {
    const std::string w = "ChallengedSectors[" + std::to_string(i) + "]";
    const io::Json& s = cs.items[i];
    if (!s.is_object()) fail(w + ": " + s.type_name() + ", expected an object");
    only(s, w, {"SealProof", "SectorNumber", "SealedCID"});
    PostPublicSector ps;
    ps.seal_proof = u64(s, w, "SealProof");
    ps.sector_number = u64(s, w, "SectorNumber");
    const io::Json& cid = member(s, w, "SealedCID", io::Json::Type::Object, "an object");
    only(cid, w + ".SealedCID", {"/"});
    const io::Json& text = member(cid, w + ".SealedCID", "/", io::Json::Type::String, "a string");
    try {
      ps.comm_r = sealed_cid_comm_r(text.text);
    } catch (const InvalidArgument& e) {
      fail(w + ".SealedCID: " + e.what());
    }
    d.sectors.push_back(ps);
  }
  if (d.sectors.empty()) fail("ChallengedSectors: empty");
  d.prover = u64(j, "the object", "Prover");
  return d;
}

PostCheckResult check_fallback_post(const FallbackPostSectorProof& proof, const PostPublicData& pub) {
  PostCheckResult res;
  auto pass = [&](const std::string& s) { res.passed.push_back(s); };
  auto fail = [&](const std::string& s) {
    res.failure = s;
    return res;
  };
  // The challenged sector this proof is for, and what its registered proofs say.
  size_t index = pub.sectors.size();
  for (size_t i = 0; i < pub.sectors.size() && index == pub.sectors.size(); ++i)
    if (pub.sectors[i].sector_number == proof.sector_id) index = i;
  if (index == pub.sectors.size())
    return fail("sector id: the proof's sector " + std::to_string(proof.sector_id) +
                " is not among the challenged sectors");
  const PostPublicSector& ps = pub.sectors[index];
  SealProofInfo seal;
  PostProofInfo post;
  try {
    seal = seal_proof_info(ps.seal_proof);
    post = post_proof_info(pub.post_proofs[0]);
  } catch (const InvalidArgument& e) {
    return fail(e.what());
  }
  for (uint64_t other : pub.post_proofs)
    if (other != pub.post_proofs[0])
      return fail("Proofs: PoSt proof types " + std::to_string(pub.post_proofs[0]) + " and " + std::to_string(other) +
                  " in one PoSt");
  if (post.sector_bytes != seal.sector_bytes)
    return fail("proof types: PoSt proof " + post.name + " does not fit seal proof " + seal.name);
  PostCircuitConfig c = post_sector_config(post.winning ? PostKind::winning : PostKind::window, seal.sector_bytes);
  const size_t challenges = post.winning ? c.sectors * c.challenges : c.challenges;  // per sector
  pass("sector " + std::to_string(proof.sector_id) + " is challenged sector " + std::to_string(index) + " of " +
       std::to_string(pub.sectors.size()) + "; seal proof " + std::to_string(ps.seal_proof) + " = " + seal.name +
       " (tree " + c.tree.name() + ", " + std::to_string(c.leaves) + " leaves), PoSt proof " +
       std::to_string(pub.post_proofs[0]) + " = " + post.name);
  if (proof.sectors.size() != 1)
    return fail("vanilla_proof.sectors: " + std::to_string(proof.sectors.size()) + " sector proofs, expected 1");
  const PostSectorProof& sp = proof.sectors[0];
  if (sp.inclusion_proofs.size() != challenges)
    return fail("vanilla_proof.sectors[0].inclusion_proofs: " + std::to_string(sp.inclusion_proofs.size()) +
                " proofs, expected " + std::to_string(challenges) + " challenges per sector");

  // comm_r: the CID's, the proof's, and Poseidon2(comm_c, comm_r_last).
  if (proof.comm_r != ps.comm_r)
    return fail("comm_r: the proof's " + poseidon_fr_to_hex(proof.comm_r) + " differs from the sealed CID's " +
                poseidon_fr_to_hex(ps.comm_r));
  const PoseidonFr pair[2] = {sp.comm_c, sp.comm_r_last};
  const PoseidonFr h = poseidon_hash(2, pair);
  if (h != ps.comm_r)
    return fail("comm_r: Poseidon2(comm_c, comm_r_last) = " + poseidon_fr_to_hex(h) + ", not the sealed CID's " +
                poseidon_fr_to_hex(ps.comm_r));
  pass("comm_r " + poseidon_fr_to_hex(ps.comm_r) + " (the sealed CID's, the proof's) = Poseidon2(comm_c, comm_r_last)");

  // The paths: shape, challenge, root.
  const std::vector<size_t> arities = c.tree.path_arities(c.leaves);
  const PostMerkleProof::Kind kind = c.tree.top   ? PostMerkleProof::top
                                     : c.tree.sub ? PostMerkleProof::sub
                                                  : PostMerkleProof::single;
  const size_t base_levels = arities.size() - (c.tree.sub ? 1 : 0) - (c.tree.top ? 1 : 0);
  std::vector<uint64_t> chs;
  for (size_t n = 0; n < sp.inclusion_proofs.size(); ++n) {
    const PostMerkleProof& m = sp.inclusion_proofs[n];
    const std::string f = "inclusion_proofs[" + std::to_string(n) + "]";
    if (m.kind != kind)
      return fail(f + ": variant " + std::to_string(m.kind) + ", the tree takes " + std::to_string(kind));
    if (m.base_levels != base_levels || m.sub_levels != (c.tree.sub ? 1u : 0u) ||
        m.top_levels != (c.tree.top ? 1u : 0u))
      return fail(f + ": a path of " + std::to_string(m.base_levels) + "+" + std::to_string(m.sub_levels) + "+" +
                  std::to_string(m.top_levels) + " levels, the tree has " + std::to_string(base_levels) + "+" +
                  std::to_string(c.tree.sub ? 1 : 0) + "+" + std::to_string(c.tree.top ? 1 : 0));
    for (size_t l = 0; l < arities.size(); ++l)
      if (m.path[l].siblings.size() != arities[l] - 1)
        return fail(f + ": level " + std::to_string(l) + " has " + std::to_string(m.path[l].siblings.size()) +
                    " siblings, its arity is " + std::to_string(arities[l]));
    const uint64_t want = post_leaf_challenge(pub.randomness, proof.sector_id,
                                              post_challenge_index(post.api, index, challenges, n), c.leaves);
    const uint64_t got = post_path_index(c.tree, c.leaves, m.path);
    if (got != want)
      return fail(f + ": proves leaf " + std::to_string(got) + ", but challenge " + std::to_string(n) + " is leaf " +
                  std::to_string(want));
    chs.push_back(want);
    PoseidonFr cur = m.leaf;
    for (const PorPathLevel& l : m.path) {
      std::vector<PoseidonFr> nodes = l.siblings;
      nodes.insert(nodes.begin() + ptrdiff_t(l.index), cur);
      cur = poseidon_hash(nodes.size(), nodes);
    }
    if (cur != m.root) return fail(f + ": the path hashes to " + poseidon_fr_to_hex(cur) + ", not its root");
    if (m.root != sp.comm_r_last)
      return fail(f + ": root " + poseidon_fr_to_hex(m.root) + " is not comm_r_last " +
                  poseidon_fr_to_hex(sp.comm_r_last));
  }
  std::string list;
  for (uint64_t ch : chs) list += (list.empty() ? "" : " ") + std::to_string(ch);
  const std::string numbering =
      post.api == PostApiVersion::v1_2
          ? "challenge index n (api 1.2)"
          : "challenge index " + std::to_string(index) + " * " + std::to_string(challenges) + " + n (api 1.0 / 1.1)";
  pass(std::to_string(chs.size()) + " challenges from SHA-256(randomness, sector " + std::to_string(proof.sector_id) +
       ", " + numbering + ") mod leaves: " + list + "; each proof opens its leaf");
  pass(std::to_string(chs.size()) + " Merkle paths (" + c.tree.name() + ") hash to comm_r_last " +
       poseidon_fr_to_hex(sp.comm_r_last));

  // The circuit of this one sector, with its values.
  PostCircuitConfig one = c;
  one.sectors = 1, one.challenges = challenges;
  PostWitness w;
  PostSectorWitness sw;
  sw.comm_r = ps.comm_r, sw.comm_c = sp.comm_c, sw.comm_r_last = sp.comm_r_last;
  for (const PostMerkleProof& m : sp.inclusion_proofs) sw.challenges.push_back({m.leaf, m.path});
  w.sectors.push_back(std::move(sw));
  circuit::RecordCs<PoseidonFr> cs;
  post_circuit(cs, one, w);
  const size_t bad = cs.first_unsatisfied();
  if (bad != std::numeric_limits<size_t>::max())
    return fail("circuit: row " + std::to_string(bad) + " of " + std::to_string(cs.num_constraints()) + " unsatisfied");
  const PoseidonFr comm_r[1] = {ps.comm_r};
  const std::vector<uint64_t> per[1] = {chs};
  const std::vector<PoseidonFr> inputs = post_public_inputs(one, comm_r, per);
  if (cs.inputs.size() != inputs.size() + 1 || !std::equal(inputs.begin(), inputs.end(), cs.inputs.begin() + 1))
    return fail("circuit: its public inputs differ from generate_public_inputs'");
  pass("circuit (1 sector, " + std::to_string(challenges) + " challenges): " + std::to_string(cs.num_constraints()) +
       " constraints satisfied, " + std::to_string(cs.num_inputs()) +
       " inputs = ONE, comm_r, the challenged leaves (generate_public_inputs)");
  return res;
}

}  // namespace cuzk::filecoin
