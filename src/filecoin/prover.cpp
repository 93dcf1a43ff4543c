// SPDX-License-Identifier: MIT OR Apache-2.0
#include "filecoin/prover.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "circuit/cs.hpp"
#include "filecoin/c1.hpp"
#include "filecoin/params.hpp"
#include "filecoin/params_key.hpp"
#include "filecoin/porep_circuit.hpp"
#include "filecoin/post_circuit.hpp"
#include "filecoin/post_vanilla.hpp"
#include "filecoin/proof_bytes.hpp"
#include "filecoin/setup_params.hpp"
#include "filecoin/update.hpp"
#include "filecoin/update_circuit.hpp"
#include "groth16/verifier.hpp"
#include "util/error.hpp"
#include "util/files.hpp"
#include "util/time.hpp"

namespace cuzk::filecoin {

namespace {

using Fr = PoseidonFr;

// Circuits up to this many constraints keep their rows to check every witness against them.
constexpr uint64_t kCheckedConstraints = uint64_t(1) << 24;

bool is_post(ProofKind k) { return k == ProofKind::window_post || k == ProofKind::winning_post; }

// The circuit with zeros for every value: its rows are those of every proof of it.
template <class CS>
void synthesize_blank(CS& cs, const FilecoinCircuit& c, ThreadPool* pool) {
  if (c.kind == ProofKind::porep) {
    const PorepCircuitConfig pc = porep_sector_config(c.sector_bytes).circuit;
    porep_circuit(cs, pc, porep_blank_witness(pc), pool);
  } else if (is_post(c.kind)) {
    const PostCircuitConfig pc =
        post_sector_config(c.kind == ProofKind::winning_post ? PostKind::winning : PostKind::window, c.sector_bytes);
    post_circuit(cs, pc, post_blank_witness(pc), pool);
  } else {
    const UpdateCircuitConfig uc =
        update_sector_config(c.sector_bytes, c.kind == ProofKind::snap_deals_poseidon).circuit;
    update_circuit(cs, uc, update_blank_witness(uc), pool);
  }
}

// One matrix of recorded rows as the .r1cs form holds it (standard-form coefficients; zero ones
// left out, as bellperson's prover skips them).
void fill_matrix(const circuit::CsrRows<Fr>& m, uint64_t n_inputs, io::SparseMatrix& out) {
  const size_t rows = m.ptr.size() - 1;
  out.row_ptr.assign(1, 0);
  out.row_ptr.reserve(rows + 1);
  size_t nnz = 0;
  for (const auto& t : m.terms) nnz += t.coeff.is_zero() ? 0 : 1;
  out.wire.reserve(nnz);
  out.coef.reserve(nnz * 32);
  for (size_t i = 0; i < rows; ++i) {
    for (const circuit::Term<Fr>* t = m.begin(i); t != m.end(i); ++t) {
      if (t->coeff.is_zero()) continue;
      out.wire.push_back(t->var.is_input() ? t->var.index() : uint32_t(n_inputs + t->var.index()));
      const auto v = t->coeff.to_std();
      const auto* b = reinterpret_cast<const uint8_t*>(v.v);
      out.coef.insert(out.coef.end(), b, b + 32);
    }
    out.row_ptr.push_back(out.wire.size());
  }
}

// The witness in standard form (inputs then aux) into `w`, which the engine sized to the
// circuit's n_vars: every value is written, the aux ones by the pool's threads.
void write_witness(const circuit::WitnessCs<Fr>& cs, std::span<cpu::Scalar> w, ThreadPool* pool,
                   const std::string& what) {
  const size_t ni = cs.inputs.size(), na = cs.aux.size();
  if (w.size() != ni + na)
    throw InvalidArgument(what + ": the synthesized witness has " + std::to_string(ni + na) +
                          " values, the circuit's key expects " + std::to_string(w.size()));
  for (size_t i = 0; i < ni; ++i) w[i] = cs.inputs[i].to_std();
  auto conv = [&](size_t lo, size_t hi) {
    for (size_t j = lo; j < hi; ++j) w[ni + j] = cs.aux[j].to_std();
  };
  if (pool)
    pool->parallel_for(na, conv, 1 << 16);
  else
    conv(0, na);
}

// The inputs the circuit allocated (ONE first) against those the public data give.
void check_inputs(const circuit::WitnessCs<Fr>& cs, const std::vector<Fr>& want, const std::string& what) {
  if (cs.inputs.size() != want.size() + 1)
    throw InvalidArgument(what + ": the circuit has " + std::to_string(cs.inputs.size() - 1) + " public inputs, not " +
                          std::to_string(want.size()));
  for (size_t i = 0; i < want.size(); ++i)
    if (cs.inputs[i + 1] != want[i])
      throw InvalidArgument(what + ": public input " + std::to_string(i) +
                            " of the vanilla proof differs from the one the public data give");
}

std::string hex_of(const Fr& x) { return poseidon_fr_to_hex(x); }

// ---- PoRep ----

PreparedProof prepare_porep(const ProofRequest& r, ThreadPool* pool) {
  if (r.vanilla_proof.empty()) throw InvalidArgument("vanilla_proof: empty (a PoRep request carries the C1 output)");
  auto c1 = std::make_shared<const C1Output>(parse_c1_any("vanilla_proof (C1 output)", r.vanilla_proof));
  if (seal_proof_info(r.registered_proof).name != c1->proof.name)
    throw InvalidArgument("registered_proof " + std::to_string(r.registered_proof) + " (" +
                          seal_proof_info(r.registered_proof).name + ") is not the C1 output's " + c1->proof.name);
  const uint64_t bytes = c1->proof.sector_size;
  if (r.sector_size && r.sector_size != bytes)
    throw InvalidArgument("sector_size " + std::to_string(r.sector_size) + " is not the C1 output's " +
                          std::to_string(bytes));
  PreparedProof p;
  p.circuit = filecoin_circuit(ProofKind::porep, bytes);
  const StackedGraph graph(c1->config.nodes, porep_id_of(c1->proof.porep_proof_id), c1->proof.api);
  for (size_t k = 0; k < c1->partitions.size(); ++k) {
    p.public_inputs.push_back(porep_public_inputs(graph, c1->replica_id, c1->comm_d, c1->comm_r, c1->challenges[k]));
    p.witnesses.push_back([c1, k, pool, want = p.public_inputs.back()](std::span<cpu::Scalar> values) {
      circuit::WitnessCs<Fr> cs;
      porep_circuit(cs, c1->config, c1->partitions[k], pool);
      const std::string what = "partition " + std::to_string(k);
      check_inputs(cs, want, what);
      write_witness(cs, values, pool, what);
    });
  }
  return p;
}

// ---- Fallback PoSt ----

// Why the Merkle proof m does not open leaf `want` of a tree of c's shape under `root`, or "".
std::string post_path_problem(const PostCircuitConfig& c, const PostMerkleProof& m, uint64_t want, const Fr& root) {
  const std::vector<size_t> ar = c.tree.path_arities(c.leaves);
  const auto kind = c.tree.top ? PostMerkleProof::top : c.tree.sub ? PostMerkleProof::sub : PostMerkleProof::single;
  if (m.kind != kind)
    return "variant " + std::to_string(m.kind) + ", the tree " + c.tree.name() + " takes " + std::to_string(kind);
  if (m.path.size() != ar.size())
    return "a path of " + std::to_string(m.path.size()) + " levels, the tree has " + std::to_string(ar.size());
  const size_t base = ar.size() - (c.tree.sub ? 1 : 0) - (c.tree.top ? 1 : 0);
  if (m.base_levels != base)
    return "a base path of " + std::to_string(m.base_levels) + " levels, not " + std::to_string(base);
  for (size_t l = 0; l < ar.size(); ++l)
    if (m.path[l].siblings.size() != ar[l] - 1)
      return "level " + std::to_string(l) + " has " + std::to_string(m.path[l].siblings.size()) +
             " siblings, its arity is " + std::to_string(ar[l]);
  const uint64_t got = post_path_index(c.tree, c.leaves, m.path);
  if (got != want) return "opens leaf " + std::to_string(got) + ", the challenge is leaf " + std::to_string(want);
  Fr cur = m.leaf;
  for (const PorPathLevel& l : m.path) {
    std::vector<Fr> nodes = l.siblings;
    nodes.insert(nodes.begin() + ptrdiff_t(l.index), cur);
    cur = poseidon_hash(nodes.size(), nodes);
  }
  if (cur != m.root) return "the path hashes to " + hex_of(cur) + ", not its root " + hex_of(m.root);
  if (m.root != root) return "root " + hex_of(m.root) + " is not comm_r_last " + hex_of(root);
  return "";
}

struct PostSetting {
  PostProofInfo info;
  PostCircuitConfig c;
  uint64_t challenges_per_sector = 0;  // of a sector's vanilla proof (WinningPoSt: 66)
};

PostSetting post_setting(ProofKind kind, uint64_t registered_proof, uint64_t sector_size) {
  PostSetting s;
  s.info = post_proof_info(registered_proof);
  if (s.info.winning != (kind == ProofKind::winning_post))
    throw InvalidArgument("registered_proof " + std::to_string(registered_proof) + " is " + s.info.name + ", not a " +
                          (kind == ProofKind::winning_post ? "WinningPoSt" : "WindowPoSt") + " proof");
  if (sector_size && sector_size != s.info.sector_bytes)
    throw InvalidArgument("sector_size " + std::to_string(sector_size) + " is not that of " + s.info.name + " (" +
                          std::to_string(s.info.sector_bytes) + ")");
  s.c = post_sector_config(s.info.winning ? PostKind::winning : PostKind::window, s.info.sector_bytes);
  s.challenges_per_sector = s.info.winning ? s.c.sectors * s.c.challenges : s.c.challenges;
  return s;
}

// The challenged leaves of one sector (rust-fil-proofs' generate_public_inputs: WindowPoSt's
// sector i of partition k is sector k * sector_count + i; WinningPoSt's circuit sector i is its
// one sector's challenge i).
std::vector<uint64_t> post_sector_challenges(const PostSetting& s, const Bytes32& randomness, uint64_t sector_id,
                                             uint64_t sector_index) {
  std::vector<uint64_t> chs;
  for (uint64_t n = 0; n < s.challenges_per_sector; ++n) {
    const uint64_t index = s.info.winning ? post_challenge_index(s.info.api, n, 1, 0)
                                          : post_challenge_index(s.info.api, sector_index, s.c.challenges, n);
    chs.push_back(post_leaf_challenge(randomness, sector_id, index, s.c.leaves));
  }
  return chs;
}

PreparedProof prepare_post(const ProofRequest& r, ThreadPool* pool) {
  const PostSetting s = post_setting(r.kind, r.registered_proof, r.sector_size);
  post_fr_from_le(r.randomness, "randomness");  // rust-fil-proofs' as_safe_commitment
  const size_t n = r.vanilla_proofs.size();
  if (n == 0) throw InvalidArgument("vanilla_proofs: none (one FallbackPoStSectorProof per sector)");
  if (s.info.winning && n != 1)
    throw InvalidArgument("vanilla_proofs: " + std::to_string(n) + " sector proofs; WinningPoSt proves one sector");
  if (!s.info.winning && n > s.c.sectors)
    throw InvalidArgument("vanilla_proofs: " + std::to_string(n) + " sector proofs; a " + s.info.name +
                          " partition holds at most " + std::to_string(s.c.sectors));
  if (s.info.winning && r.partition_index != 0)
    throw InvalidArgument("partition_index " + std::to_string(r.partition_index) + ": WinningPoSt has one partition");
  auto w = std::make_shared<PostWitness>();
  std::vector<Fr> comm_r;
  std::vector<std::vector<uint64_t>> challenges;
  for (size_t i = 0; i < n; ++i) {
    const std::string what = "vanilla_proofs[" + std::to_string(i) + "]";
    const FallbackPostSectorProof p = parse_fallback_post_sector_proof(r.vanilla_proofs[i], what);
    if (p.sectors.size() != 1)
      throw InvalidArgument(what + ": " + std::to_string(p.sectors.size()) + " sector proofs in vanilla_proof, not 1");
    const PostSectorProof& sp = p.sectors[0];
    if (sp.inclusion_proofs.size() != s.challenges_per_sector)
      throw InvalidArgument(what + ": " + std::to_string(sp.inclusion_proofs.size()) + " inclusion proofs, " +
                            s.info.name + " challenges " + std::to_string(s.challenges_per_sector) + " leaves");
    const Fr pair[2] = {sp.comm_c, sp.comm_r_last};
    if (poseidon_hash(2, pair) != p.comm_r)
      throw InvalidArgument(what + ": Poseidon2(comm_c, comm_r_last) is not its comm_r " + hex_of(p.comm_r));
    const uint64_t sector_index = uint64_t(r.partition_index) * s.c.sectors + i;
    const std::vector<uint64_t> chs = post_sector_challenges(s, r.randomness, p.sector_id, sector_index);
    for (size_t k = 0; k < chs.size(); ++k) {
      const std::string e = post_path_problem(s.c, sp.inclusion_proofs[k], chs[k], sp.comm_r_last);
      if (!e.empty()) throw InvalidArgument(what + ".inclusion_proofs[" + std::to_string(k) + "]: " + e);
    }
    auto sector = [&](size_t first, size_t count) {
      PostSectorWitness sw;
      sw.comm_r = p.comm_r, sw.comm_c = sp.comm_c, sw.comm_r_last = sp.comm_r_last;
      for (size_t k = first; k < first + count; ++k)
        sw.challenges.push_back({sp.inclusion_proofs[k].leaf, sp.inclusion_proofs[k].path});
      return sw;
    };
    if (s.info.winning) {
      for (size_t k = 0; k < chs.size(); ++k) {
        w->sectors.push_back(sector(k, 1));
        comm_r.push_back(p.comm_r);
        challenges.push_back({chs[k]});
      }
    } else {
      w->sectors.push_back(sector(0, chs.size()));
      comm_r.push_back(p.comm_r);
      challenges.push_back(chs);
    }
  }
  while (w->sectors.size() < s.c.sectors) w->sectors.push_back(w->sectors.back());  // as rust-fil-proofs pads
  PreparedProof out;
  out.circuit = filecoin_circuit(r.kind, s.info.sector_bytes);
  out.public_inputs.push_back(post_public_inputs(s.c, comm_r, challenges));
  out.witnesses.push_back([w, c = s.c, pool, want = out.public_inputs.back()](std::span<cpu::Scalar> values) {
    circuit::WitnessCs<Fr> cs;
    post_circuit(cs, c, *w, pool);
    check_inputs(cs, want, "partition 0");
    write_witness(cs, values, pool, "partition 0");
  });
  return out;
}

// ---- SnapDeals ----

PreparedProof prepare_snap(const ProofRequest& r, ThreadPool* pool) {
  const uint64_t bytes = snap_sector_bytes(r.registered_proof);
  if (r.sector_size && r.sector_size != bytes)
    throw InvalidArgument("sector_size " + std::to_string(r.sector_size) + " is not that of registered update proof " +
                          std::to_string(r.registered_proof) + " (" + std::to_string(bytes) + ")");
  const bool poseidon = r.kind == ProofKind::snap_deals_poseidon;
  const UpdateSectorConfig sc = update_sector_config(bytes, poseidon);
  const UpdateCircuitConfig& c = sc.circuit;
  if (r.vanilla_proofs.size() != sc.partitions)
    throw InvalidArgument("vanilla_proofs: " + std::to_string(r.vanilla_proofs.size()) + " partition proofs, a " +
                          sector_size_name(bytes) + " sector update has " + std::to_string(sc.partitions));
  const Fr comm_r_old = fr_from_bytes(r.comm_r_old, "comm_r_old");
  const Fr comm_d_new = fr_from_bytes(r.comm_d_new, "comm_d_new");
  const Fr comm_r_new = fr_from_bytes(r.comm_r_new, "comm_r_new");
  const size_t h = c.hs[3];  // storage-proofs-update's h_default
  PreparedProof out;
  out.circuit = filecoin_circuit(r.kind, bytes);
  for (size_t k = 0; k < sc.partitions; ++k) {
    const std::string what = "vanilla_proofs[" + std::to_string(k) + "]";
    auto w = std::make_shared<const UpdateWitness>(update_witness_of(
        c, k, h, comm_r_old, comm_d_new, comm_r_new, parse_update_partition_proof(r.vanilla_proofs[k], what), what));
    out.public_inputs.push_back(update_public_inputs(c, k, h, comm_r_old, comm_d_new, comm_r_new));
    out.witnesses.push_back([w, c, pool, k, want = out.public_inputs.back()](std::span<cpu::Scalar> values) {
      circuit::WitnessCs<Fr> cs;
      update_circuit(cs, c, *w, pool);
      const std::string what = "partition " + std::to_string(k);
      check_inputs(cs, want, what);
      write_witness(cs, values, pool, what);
    });
  }
  return out;
}

}  // namespace

uint64_t snap_sector_bytes(uint64_t registered_update_proof) {
  static const uint64_t sizes[5] = {uint64_t(1) << 11, uint64_t(1) << 23, uint64_t(1) << 29, uint64_t(1) << 35,
                                    uint64_t(1) << 36};
  if (registered_update_proof > 4)
    throw InvalidArgument("registered update proof " + std::to_string(registered_update_proof) +
                          " is not one (0 to 4: StackedDrg2KiBV1 .. StackedDrg64GiBV1)");
  return sizes[registered_update_proof];
}

std::vector<std::vector<PoseidonFr>> snap_partition_inputs(ProofKind kind, uint64_t registered_update_proof,
                                                           const Bytes32& comm_r_old, const Bytes32& comm_d_new,
                                                           const Bytes32& comm_r_new) {
  const UpdateSectorConfig sc =
      update_sector_config(snap_sector_bytes(registered_update_proof), kind == ProofKind::snap_deals_poseidon);
  std::vector<std::vector<PoseidonFr>> out;
  for (size_t k = 0; k < sc.partitions; ++k)
    out.push_back(update_public_inputs(sc.circuit, k, sc.circuit.hs[3], fr_from_bytes(comm_r_old, "comm_r_old"),
                                       fr_from_bytes(comm_d_new, "comm_d_new"),
                                       fr_from_bytes(comm_r_new, "comm_r_new")));
  return out;
}

std::vector<uint64_t> post_challenged_leaves(uint64_t registered_post_proof, const Bytes32& randomness,
                                             uint64_t sector_id, uint64_t sector_index) {
  const PostProofInfo info = post_proof_info(registered_post_proof);
  const PostSetting s =
      post_setting(info.winning ? ProofKind::winning_post : ProofKind::window_post, registered_post_proof, 0);
  return post_sector_challenges(s, randomness, sector_id, sector_index);
}

std::vector<std::vector<PoseidonFr>> post_partition_inputs(ProofKind kind, uint64_t registered_post_proof,
                                                           const Bytes32& randomness,
                                                           std::span<const PostSector> sectors,
                                                           uint32_t first_partition) {
  const PostSetting s = post_setting(kind, registered_post_proof, 0);
  post_fr_from_le(randomness, "randomness");
  if (sectors.empty()) throw InvalidArgument("a PoSt of no sectors");
  std::vector<std::vector<PoseidonFr>> out;
  if (s.info.winning) {
    if (sectors.size() != 1)
      throw InvalidArgument(std::to_string(sectors.size()) + " sectors; WinningPoSt proves one sector");
    const std::vector<uint64_t> chs = post_sector_challenges(s, randomness, sectors[0].id, 0);
    std::vector<Fr> comm_r(chs.size(), sectors[0].comm_r);
    std::vector<std::vector<uint64_t>> per;
    for (uint64_t ch : chs) per.push_back({ch});
    out.push_back(post_public_inputs(s.c, comm_r, per));
    return out;
  }
  for (size_t first = 0, k = first_partition; first < sectors.size(); first += s.c.sectors, ++k) {
    std::vector<Fr> comm_r;
    std::vector<std::vector<uint64_t>> per;
    for (size_t i = 0; i < s.c.sectors && first + i < sectors.size(); ++i) {
      comm_r.push_back(sectors[first + i].comm_r);
      per.push_back(post_sector_challenges(s, randomness, sectors[first + i].id, k * s.c.sectors + i));
    }
    out.push_back(post_public_inputs(s.c, comm_r, per));
  }
  return out;
}

std::string FilecoinCircuit::id() const {
  return std::string(proof_kind_name(kind)) + "-" + sector_size_name(sector_bytes);
}

FilecoinCircuit filecoin_circuit(ProofKind kind, uint64_t sector_bytes) {
  for (const CircuitParams& p : published_circuits())
    if (p.kind == kind && p.sector_size == sector_bytes) return FilecoinCircuit{kind, sector_bytes, p};
  throw InvalidArgument(std::string(proof_kind_name(kind)) + ": no published circuit of sector size " +
                        std::to_string(sector_bytes) + " bytes (2KiB, 8MiB, 512MiB, 32GiB, 64GiB" +
                        (kind == ProofKind::snap_deals_poseidon ? "; the Poseidon variant at 32GiB and 64GiB" : "") +
                        ")");
}

io::R1cs compile_circuit(const FilecoinCircuit& c, ThreadPool& pool) {
  circuit::RecordCs<Fr, false> cs;
  synthesize_blank(cs, c, &pool);
  io::R1cs r;
  r.path = c.id() + " (recorded)";
  r.curve = CurveId::bls12_381;
  r.n8 = 32;
  if (cs.num_inputs() + cs.num_aux() > std::numeric_limits<uint32_t>::max() ||
      cs.num_constraints() > std::numeric_limits<uint32_t>::max())
    throw InvalidArgument(c.id() + ": more than 2^32 variables or constraints");
  r.n_wires = uint32_t(cs.num_inputs() + cs.num_aux());
  r.n_pub_in = uint32_t(cs.num_inputs() - 1);
  r.n_labels = r.n_wires;
  r.n_constraints = uint32_t(cs.num_constraints());
  // One matrix at a time, each recorded one freed once converted: the peak is the recorded rows
  // and one converted matrix (a 32GiB PoRep partition: ~29 GB of rows, A ~11 GB).
  std::array<circuit::CsrRows<Fr>, 3> rows = cs.take_rows();
  io::SparseMatrix* out[3] = {&r.A, &r.B, &r.C};
  for (size_t m = 0; m < 3; ++m) {
    fill_matrix(rows[m], cs.num_inputs(), *out[m]);
    rows[m] = circuit::CsrRows<Fr>{};
  }
  return r;
}

SetupResult setup_insecure(const FilecoinCircuit& c, const std::string& dir, std::optional<uint64_t> seed,
                           setup::SetupDevice dev, ThreadPool& pool, const setup::Log& log) {
  SetupResult res;
  const std::filesystem::path d(dir);
  res.params_path = (d / (c.params.stem() + ".params")).string();
  res.vk_path = (d / (c.params.stem() + ".vk")).string();
  check_output_path(res.params_path);  // before the work, not after it
  check_output_path(res.vk_path);
  const auto t0 = SteadyClock::now();
  const io::R1cs cs = compile_circuit(c, pool);
  res.record_ms = ms_since(t0);
  res.constraints = cs.n_constraints;
  const auto t1 = SteadyClock::now();
  setup::SetupStats st;
  const ParamsData data =
      params_data_of(setup::setup_key_bls12_381(cs, seed, dev, pool, log, backend::HForm::Coefficients, st));
  write_params(res.params_path, data);
  write_vk(res.vk_path, data);
  res.setup_ms = ms_since(t1);
  return res;
}

PreparedProof prepare_proof(const ProofRequest& r, ThreadPool* pool) {
  switch (r.kind) {
    case ProofKind::porep:
      return prepare_porep(r, pool);
    case ProofKind::window_post:
    case ProofKind::winning_post:
      return prepare_post(r, pool);
    case ProofKind::snap_deals:
    case ProofKind::snap_deals_poseidon:
      return prepare_snap(r, pool);
  }
  throw InvalidArgument("unknown proof kind");
}

Prover::Prover(engine::Engine& engine, ProverConfig cfg, ThreadPool& pool)
    : engine_(engine), cfg_(std::move(cfg)), pool_(pool) {}

std::string Prover::ensure_circuit(const FilecoinCircuit& c) {
  const std::string id = c.id();
  std::shared_ptr<std::once_flag> flag;
  {
    std::lock_guard lk(mu_);
    auto& f = loaded_[id];
    if (!f) f = std::make_shared<std::once_flag>();
    flag = f;
  }
  // A failed load leaves the flag unset: the next request tries again (the file may have come).
  std::call_once(*flag, [&] {
    const std::string path = (std::filesystem::path(cfg_.params_dir) / (c.params.stem() + ".params")).string();
    if (!std::filesystem::exists(path))
      throw InvalidArgument(id + ": no parameter file " + path +
                            " (Filecoin's published parameters, or cuzk filecoin setup --insecure for tests)");
    const auto t0 = SteadyClock::now();
    io::R1cs cs = compile_circuit(c, pool_);
    const double record_ms = ms_since(t0);
    const ParamsFile p = read_params(path, pool_, false, /*defer=*/true);
    ParamsLoadStats st;
    groth16::ProvingKey<ec::Bls12381> pk = proving_key_of(p, cs, pool_, false, &st);
    // The key holds the A and B rows the prover evaluates (the PCE). The recorded system is kept
    // beside it only for circuits small enough that checking every witness against it costs
    // little (the test sizes); a 32GiB partition's (~26 GB, and a check of 130 M rows per
    // witness) is dropped: its witnesses come from vanilla proofs checked path by path, and
    // every proof is self-verified.
    std::optional<io::R1cs> rows;
    if (cs.n_constraints <= kCheckedConstraints) rows = std::move(cs);
    engine_.register_circuit(id, engine::make_circuit(id, std::move(pk), std::move(rows)));
    if (cfg_.log) {
      char line[256];
      std::snprintf(line, sizeof line, ": rows recorded in %.0f ms, %.2f GB of points read in %.0f ms, %.0f ms in all",
                    record_ms, st.point_bytes / 1e9, st.points_ms, ms_since(t0));
      cfg_.log(id + " (" + path + ")" + line);
    }
  });
  return id;
}

uint64_t Prover::submit(const ProofRequest& r, engine::Priority priority, std::string label) {
  PreparedProof p = prepare_proof(r, &pool_);
  engine::JobRequest req;
  req.circuit = ensure_circuit(p.circuit);
  req.priority = priority;
  for (size_t k = 0; k < p.partitions(); ++k) {
    engine::Witness w;
    w.name = p.circuit.id() + " partition " + std::to_string(k);
    w.fill = std::move(p.witnesses[k]);
    req.partitions.push_back(std::move(w));
  }
  return engine_.submit(std::move(req), std::move(label));
}

Prover::Outcome Prover::await(uint64_t job, std::optional<double> timeout_ms) {
  Outcome o;
  o.job = engine_.await(job, timeout_ms);
  if (o.job.state != engine::JobState::Done) return o;
  for (size_t k = 0; k < o.job.proofs.size(); ++k) {
    const auto& b = o.job.proofs[k].compressed;
    if (b.size() != kProofBytes)
      throw Error("partition " + std::to_string(k) + ": a proof of " + std::to_string(b.size()) + " bytes, not 192");
    o.proof.insert(o.proof.end(), b.begin(), b.end());
  }
  return o;
}

std::string verify_proof_bytes(const std::string& vk_path, std::span<const std::vector<PoseidonFr>> public_inputs,
                               std::span<const uint8_t> proof) {
  ThreadPool pool(1);
  const groth16::VerifyingKey<ec::Bls12381> vk = verifying_key_of(read_params(vk_path, pool, true, /*defer=*/true));
  if (proof.size() % kProofBytes)
    return "the proof is " + std::to_string(proof.size()) + " bytes, not a multiple of 192";
  const size_t n = proof.size() / kProofBytes;
  if (n != public_inputs.size())
    return std::to_string(n) + " partition proofs for " + std::to_string(public_inputs.size()) +
           " partitions' public inputs";
  for (size_t k = 0; k < n; ++k) {
    BlsProof p;
    const std::string e = decode_proof(proof.subspan(k * kProofBytes).first<kProofBytes>(), p);
    if (!e.empty()) return "partition " + std::to_string(k) + ": " + e;
    if (vk.ic.size() != public_inputs[k].size() + 1)
      return "partition " + std::to_string(k) + ": " + std::to_string(public_inputs[k].size()) +
             " public inputs, the verifying key takes " + std::to_string(vk.ic.size() - 1);
    groth16::PublicInputs pub;
    for (const PoseidonFr& x : public_inputs[k]) pub.push_back(x.to_std());
    if (!groth16::verify_proof(vk, pub, groth16::VerifyProof<ec::Bls12381>{p.a, p.b, p.c}))
      return "partition " + std::to_string(k) + ": the proof does not verify for these public inputs";
  }
  return "";
}

}  // namespace cuzk::filecoin
