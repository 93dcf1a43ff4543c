#include "filecoin/c1.hpp"

#include <fstream>
#include <sstream>

#include "filecoin/param_names.hpp"
#include "io/json_parse.hpp"
#include "util/error.hpp"

namespace cuzk::filecoin {

namespace {

using io::Json;

// Where in the file: "vanilla_proofs.StackedDrg2KiBV1[0][1].comm_d_proofs".
struct At {
  const std::string& file;
  std::string where;
  [[noreturn]] void fail(const std::string& what) const {
    throw FormatError(file, (where.empty() ? "" : where + ": ") + what);
  }
  At operator/(const std::string& m) const { return {file, where.empty() ? m : where + "." + m}; }
  At operator[](size_t i) const { return {file, where + "[" + std::to_string(i) + "]"}; }
};

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

uint64_t number(const Json& j, const At& at) {
  auto v = j.as_u64();
  if (!v) at.fail("expected an unsigned integer");
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

PoseidonFr fr(const Json& j, const At& at) {
  const Bytes32 b = bytes32(j, at);
  try {
    return fr_from_bytes(b, "value");
  } catch (const InvalidArgument& e) {
    at.fail(e.what());
  }
}

// An opened Merkle path of the given tree over `nodes` leaves.
struct Opened {
  PoseidonFr root, leaf;
  std::vector<PorPathLevel> path;
  uint64_t index = 0;  // the leaf the path opens
};

void inclusion_path(const Json& j, const At& at, size_t arity, size_t levels, Opened& o, uint64_t& stride) {
  const At ap = at / "path";
  const auto& els = array(member(j, "path", at), ap, levels);
  for (size_t l = 0; l < els.size(); ++l) {
    const At al = ap[l];
    PorPathLevel lv;
    const At ah = al / "hashes";
    for (size_t k = 0; const Json& h : array(member(els[l], "hashes", al), ah, arity - 1))
      lv.siblings.push_back(fr(h, ah[k++]));
    const uint64_t idx = number(member(els[l], "index", al), al / "index");
    if (idx >= arity) (al / "index").fail(std::to_string(idx) + " is not below the arity " + std::to_string(arity));
    lv.index = size_t(idx);
    o.index += idx * stride;
    stride *= arity;
    o.path.push_back(std::move(lv));
  }
}

Opened merkle_proof(const Json& j, const At& at, const TreeShape& shape, uint64_t nodes) {
  const At ad = at / "data";
  const Json& data = member(j, "data", at);
  const char* kind = shape.top ? "Top" : shape.sub ? "Sub" : "Single";
  if (!data.is_object() || data.fields.size() != 1)
    ad.fail(std::string("expected {\"") + kind + "\": ...} for a tree " + shape.name());
  if (data.fields[0].first != kind)
    ad.fail("a \"" + data.fields[0].first + "\" proof, expected \"" + kind + "\" for a tree " + shape.name());
  const Json& p = data.fields[0].second;
  const At ap = ad / kind;
  Opened o;
  uint64_t stride = 1;
  const size_t base_levels = shape.base_path_length(nodes);
  if (shape.sub) {
    inclusion_path(member(p, "base_proof", ap), ap / "base_proof", shape.base, base_levels, o, stride);
    inclusion_path(member(p, "sub_proof", ap), ap / "sub_proof", shape.sub, 1, o, stride);
    if (shape.top) inclusion_path(member(p, "top_proof", ap), ap / "top_proof", shape.top, 1, o, stride);
  } else {
    inclusion_path(member(p, "path", ap), ap / "path", shape.base, base_levels, o, stride);
  }
  o.root = fr(member(p, "root", ap), ap / "root");
  o.leaf = fr(member(p, "leaf", ap), ap / "leaf");
  return o;
}

// A column proof: its rows and its opening in tree C, checked to open its own index.
PorepColumnWitness column_proof(const Json& j, const At& at, const PorepCircuitConfig& c, uint32_t& index,
                                PoseidonFr& root) {
  const At acol = at / "column";
  const Json& col = member(j, "column", at);
  index = uint32_t(number(member(col, "index", acol), acol / "index"));
  PorepColumnWitness w;
  const At ar = acol / "rows";
  for (size_t k = 0; const Json& r : array(member(col, "rows", acol), ar, c.layers)) w.rows.push_back(fr(r, ar[k++]));
  const Opened o = merkle_proof(member(j, "inclusion_proof", at), at / "inclusion_proof", c.tree, c.nodes);
  if (o.index != index)
    (at / "inclusion_proof")
        .fail("opens node " + std::to_string(o.index) + ", the column is node " + std::to_string(index));
  w.path = o.path;
  root = o.root;
  return w;
}

}  // namespace

std::string SealProofType::vanilla_key() const { return "StackedDrg" + sector_size_name(sector_size) + "V1"; }

SealProofType seal_proof_type(const std::string& name) {
  const uint64_t sizes[] = {uint64_t(2) << 10, uint64_t(8) << 20, uint64_t(512) << 20, uint64_t(32) << 30,
                            uint64_t(64) << 30};
  for (size_t i = 0; i < 5; ++i) {
    const std::string base = "StackedDrg" + sector_size_name(sizes[i]);
    SealProofType t;
    t.sector_size = sizes[i];
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

C1Output parse_c1(const std::string& file, const std::string& text) {
  const At top{file, ""};
  Json j;
  try {
    j = io::parse_json(text);
  } catch (const io::JsonError& e) {
    top.fail(std::string("invalid JSON: ") + e.what());
  }
  C1Output out;
  const Json& rp = member(j, "registered_proof", top);
  if (!rp.is_string()) (top / "registered_proof").fail("expected a string");
  try {
    out.proof = seal_proof_type(rp.text);
  } catch (const InvalidArgument& e) {
    (top / "registered_proof").fail(e.what());
  }
  out.comm_r = bytes32(member(j, "comm_r", top), top / "comm_r");
  out.comm_d = bytes32(member(j, "comm_d", top), top / "comm_d");
  out.replica_id = bytes32(member(j, "replica_id", top), top / "replica_id");
  out.seed = bytes32(member(j, "seed", top), top / "seed");
  out.ticket = bytes32(member(j, "ticket", top), top / "ticket");
  const PoseidonFr replica_id = fr(member(j, "replica_id", top), top / "replica_id");
  const PoseidonFr comm_r = fr(member(j, "comm_r", top), top / "comm_r");
  const PoseidonFr comm_d = fr(member(j, "comm_d", top), top / "comm_d");

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
  const Json& vp = member(j, "vanilla_proofs", top);
  const std::string key = out.proof.vanilla_key();
  if (!vp.is_object() || vp.fields.size() != 1 || vp.fields[0].first != key)
    av.fail("expected {\"" + key + "\": [...]} for " + out.proof.name);
  const At ak = av / key;
  const auto& parts = array(vp.fields[0].second, ak);
  if (parts.empty() || parts.size() > rec.partitions)
    ak.fail(std::to_string(parts.size()) + " partitions, " + out.proof.name + " has " + std::to_string(rec.partitions));
  PoseidonFr comm_c = PoseidonFr::zero(), comm_r_last = PoseidonFr::zero();
  for (size_t k = 0; k < parts.size(); ++k) {
    const At apk = ak[k];
    const auto& proofs = array(parts[k], apk, c.challenges);
    const std::vector<uint64_t> want = rec.challenges(out.replica_id, k);
    PorepWitness w;
    w.replica_id = replica_id, w.comm_d = comm_d, w.comm_r = comm_r;
    for (size_t i = 0; i < proofs.size(); ++i) {
      const At a = apk[i];
      const Json& p = proofs[i];
      PorepChallengeWitness ch;
      const Opened d = merkle_proof(member(p, "comm_d_proofs", a), a / "comm_d_proofs", c.tree_d(), c.nodes);
      if (d.root != comm_d) (a / "comm_d_proofs").fail("its root is not comm_d");
      ch.challenge = d.index, ch.data_leaf = d.leaf, ch.comm_d_path = d.path;
      if (ch.challenge != want[i])
        (a / "comm_d_proofs")
            .fail("opens node " + std::to_string(ch.challenge) + ", but challenge " + std::to_string(i) +
                  " of partition " + std::to_string(k) + " is node " + std::to_string(want[i]) +
                  " (from replica_id, seed and comm_r)");
      const Opened r = merkle_proof(member(p, "comm_r_last_proof", a), a / "comm_r_last_proof", c.tree, c.nodes);
      if (r.index != ch.challenge)
        (a / "comm_r_last_proof").fail("opens node " + std::to_string(r.index) + ", not the challenge");
      ch.comm_r_last_path = r.path;
      const At ac = a / "replica_column_proofs";
      const Json& rcp = member(p, "replica_column_proofs", a);
      uint32_t idx = 0;
      PoseidonFr root;
      ch.comm_c_path = column_proof(member(rcp, "c_x", ac), ac / "c_x", c, idx, root).path;
      if (idx != ch.challenge) (ac / "c_x").fail("column " + std::to_string(idx) + ", not the challenge");
      if (k == 0 && i == 0) comm_c = root, comm_r_last = r.root;
      if (root != comm_c) (ac / "c_x").fail("its tree C root differs from the first proof's (comm_c)");
      if (r.root != comm_r_last)
        (a / "comm_r_last_proof").fail("its root differs from the first proof's (comm_r_last)");
      uint32_t parents[kGraphDegree];
      graph.parents(uint32_t(ch.challenge), parents);
      for (size_t g = 0; g < 2; ++g) {
        const char* name = g ? "exp_parents" : "drg_parents";
        const size_t n = g ? kGraphExpDegree : kGraphDrgDegree;
        const At ag = ac / name;
        const auto& cols = array(member(rcp, name, ac), ag, n);
        for (size_t q = 0; q < n; ++q) {
          auto col = column_proof(cols[q], ag[q], c, idx, root);
          const uint32_t want_parent = parents[g * kGraphDrgDegree + q];
          if (idx != want_parent)
            ag[q].fail("column " + std::to_string(idx) + ", but the graph's parent is node " +
                       std::to_string(want_parent));
          if (root != comm_c) ag[q].fail("its tree C root differs from comm_c");
          (g ? ch.exp_parents : ch.drg_parents).push_back(std::move(col));
        }
      }
      const auto& labeling = array(member(p, "labeling_proofs", a), a / "labeling_proofs", c.layers);
      for (size_t l = 0; l < labeling.size(); ++l) {
        const At al = (a / "labeling_proofs")[l];
        if (number(member(labeling[l], "node", al), al / "node") != ch.challenge)
          (al / "node").fail("not the challenge");
        if (number(member(labeling[l], "layer_index", al), al / "layer_index") != l + 1)
          (al / "layer_index").fail("expected layer " + std::to_string(l + 1));
      }
      member(p, "encoding_proof", a);
      w.challenges.push_back(std::move(ch));
    }
    w.comm_c = comm_c, w.comm_r_last = comm_r_last;
    out.challenges.push_back(want);
    out.partitions.push_back(std::move(w));
  }
  const PoseidonFr pair[2] = {comm_c, comm_r_last};
  if (poseidon_hash(2, pair) != comm_r)
    (top / "comm_r").fail("is not Poseidon2(comm_c, comm_r_last) of the proofs' trees");
  return out;
}

C1Output read_c1(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw FormatError(path, "cannot open");
  std::ostringstream ss;
  ss << f.rdbuf();
  if (f.bad()) throw FormatError(path, "read failed");
  return parse_c1(path, ss.str());
}

namespace {

void put_bytes(std::string& s, const Bytes32& b) {
  s += '[';
  for (size_t i = 0; i < 32; ++i) s += (i ? "," : "") + std::to_string(b[i]);
  s += ']';
}
void put_fr(std::string& s, const PoseidonFr& x) { put_bytes(s, fr_to_bytes(x)); }

void put_path(std::string& s, const std::vector<PorPathLevel>& levels, size_t from, size_t to) {
  s += "{\"path\":[";
  for (size_t l = from; l < to; ++l) {
    s += l > from ? ",{\"hashes\":[" : "{\"hashes\":[";
    for (size_t k = 0; k < levels[l].siblings.size(); ++k) {
      if (k) s += ',';
      put_fr(s, levels[l].siblings[k]);
    }
    s += "],\"index\":" + std::to_string(levels[l].index) + "}";
  }
  s += "]}";
}

void put_merkle(std::string& s, const TreeShape& shape, const std::vector<PorPathLevel>& path, const PoseidonFr& root,
                const PoseidonFr& leaf) {
  const size_t base = path.size() - (shape.sub ? 1 : 0) - (shape.top ? 1 : 0);
  s += shape.top ? "{\"data\":{\"Top\":{" : shape.sub ? "{\"data\":{\"Sub\":{" : "{\"data\":{\"Single\":{";
  if (shape.sub) {
    s += "\"base_proof\":", put_path(s, path, 0, base);
    s += ",\"sub_proof\":", put_path(s, path, base, base + 1);
    if (shape.top) s += ",\"top_proof\":", put_path(s, path, base + 1, base + 2);
    s += ",\"root\":", put_fr(s, root), s += ",\"leaf\":", put_fr(s, leaf);
  } else {
    s += "\"root\":", put_fr(s, root), s += ",\"leaf\":", put_fr(s, leaf), s += ",\"path\":";
    put_path(s, path, 0, base);
  }
  s += "}}}";
}

}  // namespace

std::string c1_json(const SealedSector& sec, const SealProofType& proof, const Bytes32& seed, const Bytes32& ticket,
                    const StackedGraph& graph, const std::vector<std::vector<uint64_t>>& partition_challenges) {
  const PorepCircuitConfig& c = sec.config;
  std::string s = "{\"registered_proof\":\"" + proof.name + "\",\"vanilla_proofs\":{\"" + proof.vanilla_key() + "\":[";
  auto column = [&](uint64_t node) {
    s += "{\"column\":{\"index\":" + std::to_string(node) + ",\"rows\":[";
    for (size_t l = 0; l < c.layers; ++l) {
      if (l) s += ',';
      put_fr(s, sec.labels[l][node]);
    }
    s += "],\"_h\":null},\"inclusion_proof\":";
    std::vector<PoseidonFr> col;
    for (size_t l = 0; l < c.layers; ++l) col.push_back(sec.labels[l][node]);
    put_merkle(s, c.tree, sec.tree_c.path(node), sec.tree_c.root(), poseidon_hash(c.layers, col));
    s += "}";
  };
  for (size_t k = 0; k < partition_challenges.size(); ++k) {
    s += k ? ",[" : "[";
    for (size_t i = 0; i < partition_challenges[k].size(); ++i) {
      const uint64_t ch = partition_challenges[k][i];
      s += i ? ",{" : "{";
      s += "\"comm_d_proofs\":";
      put_merkle(s, c.tree_d(), sec.tree_d.path(ch), sec.tree_d.root(), sec.data[ch]);
      s += ",\"comm_r_last_proof\":";
      put_merkle(s, c.tree, sec.tree_r.path(ch), sec.tree_r.root(), sec.data[ch] + sec.labels.back()[ch]);
      s += ",\"replica_column_proofs\":{\"c_x\":";
      column(ch);
      uint32_t p[kGraphDegree];
      graph.parents(uint32_t(ch), p);
      s += ",\"drg_parents\":[";
      for (size_t q = 0; q < kGraphDrgDegree; ++q) s += q ? "," : "", column(p[q]);
      s += "],\"exp_parents\":[";
      for (size_t q = 0; q < kGraphExpDegree; ++q) s += q ? "," : "", column(p[kGraphDrgDegree + q]);
      s += "]},\"labeling_proofs\":[";
      std::string encoding;
      for (size_t layer = 1; layer <= c.layers; ++layer) {
        // The parents' labels as the labeling hashes them, repeated to 37.
        const size_t n = layer == 1 ? kGraphDrgDegree : kGraphDegree;
        std::string lp = "{\"parents\":[";
        for (size_t q = 0; q < circuit::kTotalParents; ++q) {
          const size_t at = q % n;
          if (q) lp += ',';
          put_fr(lp, sec.labels[at < kGraphDrgDegree ? layer - 1 : layer - 2][p[at]]);
        }
        lp += "],\"layer_index\":" + std::to_string(layer) + ",\"node\":" + std::to_string(ch) + "}";
        s += (layer > 1 ? "," : "") + lp;
        if (layer == c.layers) encoding = lp;
      }
      s += "],\"encoding_proof\":" + encoding + "}";
    }
    s += "]";
  }
  s += "]},\"comm_r\":";
  put_bytes(s, sec.comm_r);
  s += ",\"comm_d\":", put_bytes(s, sec.comm_d);
  s += ",\"replica_id\":", put_bytes(s, sec.replica_id);
  s += ",\"seed\":", put_bytes(s, seed);
  s += ",\"ticket\":", put_bytes(s, ticket);
  s += "}";
  return s;
}

}  // namespace cuzk::filecoin
