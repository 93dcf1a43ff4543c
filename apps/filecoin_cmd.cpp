// SPDX-License-Identifier: MIT OR Apache-2.0
// `cuzk params` (bellperson's .params / .vk files, parameters.json digests) and `cuzk filecoin`
// (the published parameter names, regression records' proofs, circuit shapes, the Poseidon hash).
#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <sys/resource.h>

#include "circuit/fingerprint.hpp"
#include "commands.hpp"
#include "ff/bls12_381.hpp"
#include "filecoin/blake2b.hpp"
#include "filecoin/c1.hpp"
#include "filecoin/gadgets.hpp"
#include "filecoin/manifest.hpp"
#include "filecoin/param_names.hpp"
#include "filecoin/params.hpp"
#include "filecoin/porep_circuit.hpp"
#include "filecoin/porep_graph.hpp"
#include "filecoin/poseidon.hpp"
#include "filecoin/post_circuit.hpp"
#include "filecoin/post_vanilla.hpp"
#include "filecoin/prover.hpp"
#include "filecoin/records.hpp"
#include "filecoin/seal.hpp"
#include "filecoin/sha256.hpp"
#include "filecoin/update.hpp"
#include "filecoin/update_circuit.hpp"
#include "io/json_parse.hpp"
#include "util/error.hpp"
#include "util/files.hpp"
#include "util/progress.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::app {

namespace {

using cli::Args;
using cli::UsageError;

int params_inspect(const std::string& path, bool check) {
  ThreadPool pool;
  filecoin::ParamsFile f = filecoin::read_params(path, pool, check);
  // The layout tells the two apart; a name that says otherwise is a file cut short or misnamed.
  auto ends = [&](const std::string& ext) {
    return path.size() >= ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0;
  };
  if (f.is_vk && ends(".params"))
    throw Error(path + ": ends after section ic (offset " + std::to_string(f.size()) +
                "): a verifying key alone, so a .params file cut short");
  if (!f.is_vk && ends(".vk"))
    throw Error(path + ": goes on after section ic with h, l, a, b_g1, b_g2: a .params file, not a .vk");
  std::string s = std::string("{\"kind\": \"") + (f.is_vk ? "vk" : "params") +
                  "\", \"curve\": \"bls12-381\", \"ic\": " + std::to_string(f.ic.count);
  if (!f.is_vk)
    for (const filecoin::PointSection* p : {&f.h, &f.l, &f.a, &f.b_g1, &f.b_g2})
      s += std::string(", \"") + p->name + "\": " + std::to_string(p->count);
  s += ", \"bytes\": " + std::to_string(f.size()) + "}\n";
  std::fputs(s.c_str(), stdout);
  return kExitOk;
}

int params_verify(const std::string& dir, const std::string& manifest) {
  if (!std::filesystem::is_directory(dir)) throw Error(dir + ": not a directory");
  auto entries = filecoin::read_manifest(manifest);
  size_t bad = 0;
  for (const auto& c : filecoin::verify_digests(dir, entries)) {
    using S = filecoin::DigestCheck::Status;
    if (c.status == S::ok) {
      std::printf("ok        %s %s\n", c.name.c_str(), c.got.c_str());
    } else if (c.status == S::missing) {
      std::printf("missing   %s\n", c.name.c_str());
      ++bad;
    } else {
      std::printf("mismatch  %s expected %s, got %s\n", c.name.c_str(), c.expected.c_str(), c.got.c_str());
      ++bad;
    }
    std::fflush(stdout);
  }
  if (bad) std::fprintf(stderr, "cuzk: params verify: %zu of %zu files missing or mismatched\n", bad, entries.size());
  return bad ? kExitError : kExitOk;
}

int cmd_params(const Args& a) {
  const std::string& sub = a.pos[0];
  if (sub == "inspect") {
    if (a.get("--manifest")) throw UsageError("--manifest belongs to 'params verify'");
    return params_inspect(a.pos[1], a.flag("--check"));
  }
  if (sub == "verify") {
    if (a.flag("--check")) throw UsageError("--check belongs to 'params inspect'");
    auto m = a.get("--manifest");
    if (!m) throw UsageError("params verify needs --manifest parameters.json");
    return params_verify(a.pos[1], *m);
  }
  throw UsageError("unknown subcommand '" + sub + "' (expected inspect or verify)");
}

int filecoin_records(const Args& a) {
  const std::string& path = a.pos[1];
  const std::optional<std::string> vk_dir = a.get("--vk-dir");
  if (vk_dir && !std::filesystem::is_directory(*vk_dir)) throw Error(*vk_dir + ": not a directory (--vk-dir)");
  const std::vector<filecoin::PorepRecord> records = filecoin::read_records(path);
  if (a.flag("--inputs"))  // one JSON line per record: its replica_id and each partition's challenges
    for (const filecoin::PorepRecord& r : records) {
      const filecoin::Bytes32 rid = r.replica_id();
      std::string line = "{\"line\": " + std::to_string(r.line) + ", \"replica_id\": \"" + filecoin::to_hex(rid) +
                         "\", \"challenges\": [";
      for (size_t k = 0; k < r.partitions; ++k) {
        line += k ? ", [" : "[";
        const auto ch = r.challenges(rid, k);
        for (size_t i = 0; i < ch.size(); ++i) line += (i ? ", " : "") + std::to_string(ch[i]);
        line += "]";
      }
      std::printf("%s]}\n", line.c_str());
    }
  const filecoin::RecordsSummary s = filecoin::check_records(records, path, vk_dir);
  for (const std::string& p : s.problems) std::printf("invalid: %s\n", p.c_str());
  std::printf("%zu records: %zu proofs decoded, %zu invalid, %zu aggregated; public inputs of %zu partitions",
              s.records, s.proofs_decoded, s.invalid, s.aggregated, s.inputs);
  if (vk_dir) std::printf("; %zu verified, %zu rejected, %zu without a key", s.verified, s.rejected, s.no_vk);
  std::printf("\n");
  return s.invalid || s.rejected ? kExitError : kExitOk;
}

// A number option's value: decimal digits only.
uint64_t number_arg(const std::string& s, const std::string& what) {
  if (s.empty() || s.size() > 12 || s.find_first_not_of("0123456789") != std::string::npos)
    throw UsageError(what + " '" + s + "' is not a number");
  return uint64_t(std::stoull(s));
}

// --tag merkle | const:L | custom:ID.
filecoin::PoseidonHashType poseidon_tag_arg(const std::string& tag) {
  if (tag == "merkle") return filecoin::PoseidonHashType::merkle_tree();
  if (tag.rfind("const:", 0) == 0)
    return filecoin::PoseidonHashType::constant_length_of(number_arg(tag.substr(6), "--tag const:L, L"));
  if (tag.rfind("custom:", 0) == 0)
    return filecoin::PoseidonHashType::custom_id(number_arg(tag.substr(7), "--tag custom:ID, ID"));
  throw UsageError("--tag '" + tag + "': expected merkle, const:L or custom:ID");
}

// The gadget circuit of `filecoin shape` / `fingerprint` from the positional name and options,
// each option checked against the gadget it belongs to.
filecoin::FilecoinGadgetSpec gadget_spec(const Args& a) {
  if (a.pos.size() < 2)
    throw UsageError(a.pos[0] + " needs a gadget (" + filecoin::filecoin_gadget_names() +
                     ") or a circuit (porep, snap, window-post, winning-post, fallback-post)");
  if (a.pos.size() > 2) throw UsageError(a.pos[0] + " takes one gadget");
  filecoin::FilecoinGadgetSpec g;
  g.name = a.pos[1];
  if (!filecoin::is_filecoin_gadget(g.name))
    throw UsageError("unknown gadget '" + g.name + "' (known: " + filecoin::filecoin_gadget_names() +
                     ", porep, snap, window-post, winning-post, fallback-post)");
  auto only = [&](const char* opt, const char* gadget) {
    if (g.name != gadget) throw UsageError(std::string(opt) + " belongs to the " + gadget + " gadget");
  };
  for (const char* opt : {"--sector-size", "--nodes", "--challenges"})
    if (a.get(opt))
      throw UsageError(std::string(opt) + (std::string(opt) == "--sector-size"
                                               ? " belongs to the porep and snap circuits"
                                               : " belongs to the porep circuit"));
  if (auto b = a.get("--bits")) {
    only("--bits", "sha256");
    g.bits = number_arg(*b, "--bits");
    if (g.bits % 8) throw UsageError("--bits must be a multiple of 8 (SHA-256 takes whole bytes)");
  }
  if (g.name == "poseidon" && !a.get("--arity")) throw UsageError("the poseidon gadget needs --arity A (1 to 36)");
  if (auto v = a.get("--arity")) {
    only("--arity", "poseidon");
    g.arity = size_t(number_arg(*v, "--arity"));
    if (g.arity < 1 || g.arity > filecoin::kPoseidonMaxArity)
      throw UsageError("--arity " + *v + ": neptune defines arities 1 to 36");
  }
  if (auto v = a.get("--tag")) {
    only("--tag", "poseidon");
    g.tag = poseidon_tag_arg(*v);
    if (g.tag.kind == filecoin::PoseidonHashType::constant_length && g.tag.value != g.arity)
      throw UsageError("--tag " + *v + ": the Poseidon circuit takes const:L only at L = the arity (no padding)");
    try {
      (void)filecoin::poseidon_constants(g.arity, g.tag);
    } catch (const InvalidArgument& e) {
      throw UsageError("--tag " + *v + ": " + e.what());
    }
  }
  if (g.name == "por" && !a.get("--tree"))
    throw UsageError("the por gadget needs --tree (e.g. poseidon-8-8-0, sha256-2)");
  if (auto v = a.get("--tree")) {
    only("--tree", "por");
    try {
      g.tree = filecoin::TreeShape::parse(*v).name();
    } catch (const InvalidArgument& e) {
      throw UsageError(std::string("--tree: ") + e.what());
    }
  }
  if (a.flag("--private-root")) only("--private-root", "por"), g.private_root = true;
  if (auto v = a.get("--leaves")) {
    only("--leaves", "por");
    g.leaves = number_arg(*v, "--leaves");
  }
  if (g.name == "por") {
    try {
      filecoin::TreeShape::parse(g.tree).base_path_length(
          filecoin::por_gadget_leaves(g, filecoin::TreeShape::parse(g.tree)));
    } catch (const InvalidArgument& e) {
      throw UsageError(std::string("--leaves: ") + e.what());
    }
  }
  if (g.name == "column-hash" && !a.get("--layers"))
    throw UsageError("the column-hash gadget needs --layers L (2 or 11)");
  if (auto v = a.get("--layers")) {
    only("--layers", "column-hash");
    g.layers = size_t(number_arg(*v, "--layers"));
    if (g.layers != 2 && g.layers != 11) throw UsageError("--layers " + *v + ": a column hash has 2 or 11 rows");
  }
  return g;
}

// --sector-size: a size name as rust-fil-proofs' constants spell it (2KiB, 32GiB, ...) or bytes.
uint64_t sector_size_arg(const std::string& s) {
  for (int log2 = 10; log2 <= 40; ++log2)
    if (s == filecoin::sector_size_name(uint64_t(1) << log2)) return uint64_t(1) << log2;
  if (!s.empty() && s.find_first_not_of("0123456789") == std::string::npos) return number_arg(s, "--sector-size");
  throw UsageError("--sector-size '" + s + "': expected a size such as 2KiB, 8MiB, 512MiB, 32GiB, 64GiB");
}

// The PoRep circuit of `filecoin shape porep` / `fingerprint porep`: one partition of a published
// sector size, or the stacked test form --nodes N --layers L --challenges C --tree B-S-T.
filecoin::PorepCircuitConfig porep_spec(const Args& a) {
  if (a.pos.size() > 2) throw UsageError(a.pos[0] + " takes one gadget");
  for (const char* opt : {"--bits", "--arity", "--tag", "--leaves"})
    if (a.get(opt)) throw UsageError(std::string(opt) + " does not belong to the porep circuit");
  if (a.flag("--private-root")) throw UsageError("--private-root does not belong to the porep circuit");
  const bool test_form = a.get("--nodes") || a.get("--layers") || a.get("--challenges") || a.get("--tree");
  filecoin::PorepCircuitConfig c;
  try {
    if (auto size = a.get("--sector-size")) {
      if (test_form)
        throw UsageError("porep takes --sector-size alone or --nodes, --layers, --challenges and --tree, not both");
      return filecoin::porep_sector_config(sector_size_arg(*size)).circuit;
    }
    if (!test_form)
      throw UsageError("porep needs --sector-size SIZE, or --nodes N --layers L --challenges C --tree B-S-T");
    for (const char* opt : {"--nodes", "--layers", "--challenges", "--tree"})
      if (!a.get(opt)) throw UsageError(std::string("porep's test form needs ") + opt);
    c.nodes = number_arg(*a.get("--nodes"), "--nodes");
    c.layers = size_t(number_arg(*a.get("--layers"), "--layers"));
    c.challenges = size_t(number_arg(*a.get("--challenges"), "--challenges"));
    std::string tree = *a.get("--tree");
    if (!tree.empty() && tree[0] >= '0' && tree[0] <= '9') tree = "poseidon-" + tree;
    c.tree = filecoin::TreeShape::parse(tree);
    c.validate();
  } catch (const InvalidArgument& e) {
    throw UsageError(e.what());
  }
  return c;
}

// The SnapDeals circuit of `filecoin shape snap` / `fingerprint snap`: one partition of a sector size
// storage-proofs-update allows (its challenges, apex leaves, h values, tree R), --poseidon for the
// Poseidon variant.
filecoin::UpdateCircuitConfig snap_spec(const Args& a) {
  if (a.pos.size() > 2) throw UsageError(a.pos[0] + " takes one gadget");
  for (const char* opt : {"--bits", "--arity", "--tag", "--leaves", "--tree", "--layers", "--nodes", "--challenges"})
    if (a.get(opt)) throw UsageError(std::string(opt) + " does not belong to the snap circuit");
  if (a.flag("--private-root")) throw UsageError("--private-root does not belong to the snap circuit");
  auto size = a.get("--sector-size");
  if (!size) throw UsageError("snap needs --sector-size SIZE (1KiB to 32KiB, 8MiB, 16MiB, 512MiB, 32GiB, 64GiB)");
  try {
    return filecoin::update_sector_config(sector_size_arg(*size), a.flag("--poseidon")).circuit;
  } catch (const InvalidArgument& e) {
    throw UsageError(e.what());
  }
}

// A shape as `filecoin shape --json` prints it: the circuit's own constraints and non-zeros (as
// the Rust tests count them), input_constraints the rows A = input_i, B = 0, C = 0 bellperson
// adds when it proves (one per input, ONE included), and the density popcounts.
std::string shape_json(const circuit::Shape& x) {
  auto kv = [](const char* k, uint64_t v) { return std::string("\"") + k + "\": " + std::to_string(v); };
  return "{" + kv("inputs", x.inputs) + ", " + kv("aux", x.aux) + ", " + kv("constraints", x.constraints) + ", " +
         kv("input_constraints", x.inputs) + ", " + kv("nnz_a", x.nnz_a) + ", " + kv("nnz_b", x.nnz_b) + ", " +
         kv("nnz_c", x.nnz_c) + ", " + kv("density_a_aux", x.a_aux_density) + ", " +
         kv("density_b_inputs", x.b_input_density) + ", " + kv("density_b_aux", x.b_aux_density) + "}";
}

// A gadget's counts as its rust test asserts them: the rows of the input bits it leaves out
// (sha256, sha256-compress) taken away from the constraints and non-zeros; densities and variables
// are the whole system's.
circuit::Shape as_tested(circuit::Shape x, const filecoin::FilecoinGadgetSpec& g, uint64_t repeat) {
  const circuit::Shape u = circuit::uncounted_shape<ff::Bls12381Fr>(repeat * circuit::uncounted_input_bits(g));
  x.constraints -= u.constraints, x.nnz_a -= u.nnz_a, x.nnz_b -= u.nnz_b, x.nnz_c -= u.nnz_c;
  return x;
}

// The Fallback PoSt circuits of `filecoin shape` / `fingerprint`: window-post and winning-post
// of a sector size (one partition, as rust-fil-proofs prescribes), or the test form fallback-post
// --tree B-S-T --base-leaves N --sectors S --challenges C.
bool is_post_circuit(const Args& a) {
  return a.pos.size() >= 2 && (a.pos[1] == "window-post" || a.pos[1] == "winning-post" || a.pos[1] == "fallback-post");
}

filecoin::PostCircuitConfig post_spec(const Args& a) {
  const std::string& name = a.pos[1];
  if (a.pos.size() > 2) throw UsageError(a.pos[0] + " takes one circuit");
  for (const char* opt : {"--bits", "--arity", "--tag", "--leaves", "--layers", "--nodes", "--repeat"})
    if (a.get(opt)) throw UsageError(std::string(opt) + " does not belong to the " + name + " circuit");
  if (a.flag("--private-root")) throw UsageError("--private-root does not belong to the " + name + " circuit");
  try {
    if (name != "fallback-post") {
      for (const char* opt : {"--tree", "--base-leaves", "--sectors", "--challenges"})
        if (a.get(opt))
          throw UsageError(std::string(opt) + " belongs to fallback-post (" + name + " takes --sector-size)");
      auto size = a.get("--sector-size");
      if (!size) throw UsageError(name + " needs --sector-size SIZE (2KiB ... 64GiB)");
      return filecoin::post_sector_config(
          name == "window-post" ? filecoin::PostKind::window : filecoin::PostKind::winning, sector_size_arg(*size));
    }
    if (a.get("--sector-size")) throw UsageError("fallback-post takes --tree, --base-leaves, --sectors, --challenges");
    for (const char* opt : {"--tree", "--base-leaves", "--sectors", "--challenges"})
      if (!a.get(opt)) throw UsageError(std::string("fallback-post needs ") + opt);
    filecoin::PostCircuitConfig c;
    std::string tree = *a.get("--tree");
    if (!tree.empty() && tree[0] >= '0' && tree[0] <= '9') tree = "poseidon-" + tree;
    c.tree = filecoin::TreeShape::parse(tree);
    const uint64_t base_leaves = number_arg(*a.get("--base-leaves"), "--base-leaves");
    c.leaves = base_leaves * c.tree.base_tree_count();
    c.sectors = size_t(number_arg(*a.get("--sectors"), "--sectors"));
    c.challenges = size_t(number_arg(*a.get("--challenges"), "--challenges"));
    if (c.sectors > 100000 || c.challenges > 10000)
      throw UsageError("fallback-post: at most 100000 sectors and 10000 challenges");
    c.validate();
    return c;
  } catch (const InvalidArgument& e) {
    throw UsageError(e.what());
  }
}

int filecoin_post_shape(const Args& a) {
  using Fr = ff::Bls12381Fr;
  const filecoin::PostCircuitConfig c = post_spec(a);
  const filecoin::PostWitness w = filecoin::post_blank_witness(c);
  ThreadPool pool;  // the sectors in parallel, in both modes
  const bool witness = a.flag("--witness");
  const auto t0 = std::chrono::steady_clock::now();
  std::string s;
  uint64_t constraints = 0;
  if (witness) {
    circuit::WitnessCs<Fr> cs;
    filecoin::post_circuit(cs, c, w, &pool);
    constraints = cs.num_constraints();
    s = "{\"inputs\": " + std::to_string(cs.num_inputs()) + ", \"aux\": " + std::to_string(cs.num_aux()) +
        ", \"constraints\": " + std::to_string(constraints) + "}";
  } else {
    circuit::ShapeCs<Fr> cs;
    filecoin::post_circuit(cs, c, w, &pool);
    const circuit::Shape x = cs.shape();
    constraints = x.constraints;
    s = shape_json(x);
  }
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (a.flag("--json"))
    std::printf("%s\n", s.c_str());
  else
    std::printf("%s (%zu sectors x %zu challenges, tree %s, %llu leaves; %s mode): %s\n", a.pos[1].c_str(), c.sectors,
                c.challenges, c.tree.name().c_str(), (unsigned long long)c.leaves, witness ? "witness" : "shape",
                s.c_str());
  std::fprintf(stderr, "%s mode: %llu constraints in %.0f ms (%.2f M constraints/s)\n", witness ? "witness" : "shape",
               (unsigned long long)constraints, ms, ms > 0 ? double(constraints) / ms / 1e3 : 0.0);
  return kExitOk;
}

int filecoin_post_fingerprint(const Args& a, circuit::FingerprintCs<ff::Bls12381Fr, filecoin::Sha256>& cs) {
  const filecoin::PostCircuitConfig c = post_spec(a);
  filecoin::post_circuit(cs, c, filecoin::post_blank_witness(c));
  std::fputs(circuit::format_fingerprint(cs.finish()).c_str(), stdout);
  return kExitOk;
}

// check-post VPROOF PUB.json: a sector's vanilla proof against the PoSt's public data.
int filecoin_check_post(const Args& a) {
  if (a.pos.size() != 3) throw UsageError("check-post needs a vanilla proof (bincode) and its public data (JSON)");
  for (const char* opt : {"--tree", "--leaves", "--layers", "--sector-size", "--nodes", "--challenges", "--sectors",
                          "--base-leaves", "--repeat", "--bits", "--vk-dir", "--block-log2"})
    if (a.get(opt)) throw UsageError(std::string(opt) + " does not belong to check-post");
  const std::vector<uint8_t> bytes = filecoin::read_post_vproof_bytes(a.pos[1]);
  const filecoin::FallbackPostSectorProof proof = filecoin::parse_fallback_post_sector_proof(bytes, a.pos[1]);
  const filecoin::PostPublicData pub = filecoin::parse_post_public_json(a.pos[2]);
  size_t paths = 0;
  for (const auto& sp : proof.sectors) paths += sp.inclusion_proofs.size();
  std::printf("read %s: sector %llu, %zu sector proof(s), %zu inclusion proofs (%zu bytes)\n", a.pos[1].c_str(),
              (unsigned long long)proof.sector_id, proof.sectors.size(), paths, bytes.size());
  std::printf("read %s: prover %llu, %zu challenged sector(s), PoSt proof %llu\n", a.pos[2].c_str(),
              (unsigned long long)pub.prover, pub.sectors.size(), (unsigned long long)pub.post_proofs[0]);
  const filecoin::PostCheckResult r = filecoin::check_fallback_post(proof, pub);
  for (const std::string& line : r.passed) std::printf("ok: %s\n", line.c_str());
  if (!r.failure.empty()) {
    std::printf("FAILED: %s\n", r.failure.c_str());
    std::fprintf(stderr, "cuzk: check-post: %s\n", r.failure.c_str());
    return kExitError;
  }
  std::printf("the vanilla proof holds: %zu checks passed\n", r.passed.size());
  return kExitOk;
}

int filecoin_shape(const Args& a) {
  using Fr = ff::Bls12381Fr;
  if (is_post_circuit(a)) return filecoin_post_shape(a);
  const bool porep = a.pos.size() >= 2 && a.pos[1] == "porep";
  const bool snap = a.pos.size() >= 2 && a.pos[1] == "snap";
  filecoin::FilecoinGadgetSpec g;
  filecoin::PorepCircuitConfig pc;
  filecoin::UpdateCircuitConfig uc;
  if (porep)
    pc = porep_spec(a), g.name = "porep";
  else if (snap)
    uc = snap_spec(a), g.name = "snap";
  else
    g = gadget_spec(a);
  const uint64_t repeat = std::stoull(a.get_or("--repeat", "1"));
  if (repeat < 1) throw UsageError("--repeat must be at least 1");
  const bool witness = a.flag("--witness"), record = a.flag("--record");
  if (witness && record) throw UsageError("--witness and --record: choose one back end");
  const filecoin::PorepWitness pw = porep ? filecoin::porep_blank_witness(pc) : filecoin::PorepWitness{};
  const filecoin::UpdateWitness uw = snap ? filecoin::update_blank_witness(uc) : filecoin::UpdateWitness{};
  ThreadPool pool;  // the values back end fills a PoRep or SnapDeals partition's challenges in parallel
  auto synthesize = [&](auto& cs, uint64_t i) {
    if (porep) return filecoin::porep_circuit(cs, pc, pw, &pool);
    if (snap) return filecoin::update_circuit(cs, uc, uw, &pool);
    filecoin::FilecoinGadgetSpec gi = g;
    if (witness) gi.seed = g.seed + i;
    filecoin::synthesize_filecoin_gadget(cs, gi);
  };
  const auto t0 = std::chrono::steady_clock::now();
  std::string s;
  uint64_t constraints = 0;
  if (witness) {
    circuit::WitnessCs<Fr> cs;
    if (porep || snap)  // the partition fills its challenges over the pool itself
      for (uint64_t i = 0; i < repeat; ++i) synthesize(cs, i);
    else  // the copies of a gadget have one shape: filled in parallel, appended in order
      circuit::for_each_block(cs, size_t(repeat), &pool, [&](auto& block, size_t i) { synthesize(block, i); });
    constraints = cs.num_constraints() - repeat * circuit::uncounted_input_bits(g);
    s = "{\"inputs\": " + std::to_string(cs.num_inputs()) + ", \"aux\": " + std::to_string(cs.num_aux()) +
        ", \"constraints\": " + std::to_string(constraints) + "}";
  } else if (record) {
    // The rows as the prover keeps them (record mode, no values): what they take in memory.
    circuit::RecordCs<Fr, false> cs;
    for (uint64_t i = 0; i < repeat; ++i) synthesize(cs, i);
    const circuit::Shape x = as_tested(cs.shape(), g, repeat);
    constraints = x.constraints;
    uint64_t bytes = 0;
    for (const auto* m : {&cs.a(), &cs.b(), &cs.c()})
      bytes += m->terms.capacity() * sizeof(m->terms[0]) + m->ptr.capacity() * sizeof(m->ptr[0]);
    s = shape_json(x);
    s.insert(s.size() - 1, ", \"record_bytes\": " + std::to_string(bytes));
  } else {
    circuit::ShapeCs<Fr> cs;
    for (uint64_t i = 0; i < repeat; ++i) synthesize(cs, i);
    const circuit::Shape x = as_tested(cs.shape(), g, repeat);
    constraints = x.constraints;
    s = shape_json(x);
  }
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const char* mode = witness ? "witness" : record ? "record" : "shape";
  if (a.flag("--json")) {
    std::printf("%s\n", s.c_str());
  } else {
    std::printf("%s x%llu (%s mode): %s\n", g.name.c_str(), (unsigned long long)repeat, mode, s.c_str());
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  std::fprintf(stderr, "%s mode: %llu constraints in %.0f ms (%.2f M constraints/s), max RSS %.0f MiB\n", mode,
               (unsigned long long)constraints, ms, ms > 0 ? double(constraints) / ms / 1e3 : 0.0,
               double(ru.ru_maxrss) / 1024.0);
  return kExitOk;
}

// `filecoin parents`: a seal proof's StackedDRG graph: its parent cache's name and digest, or the
// parents of one node.
// `filecoin check-c1 C1.json`: a PoRep C1 output read and checked (parse_c1), then each partition's
// circuit synthesized from it with every row checked, its public inputs those the public data give.
int filecoin_check_c1(const Args& a) {
  if (a.pos.size() != 2) throw UsageError("check-c1 needs one C1 output (JSON)");
  const filecoin::C1Output c1 = filecoin::read_c1(a.pos[1]);
  const filecoin::PorepCircuitConfig& c = c1.config;
  std::printf(
      "ok: %s read: %s, %zu partition(s) of %zu challenges, tree %s; every proof opens the challenge the "
      "seed gives and the parents the graph gives; comm_r = Poseidon2(comm_c, comm_r_last)\n",
      a.pos[1].c_str(), c1.proof.name.c_str(), c1.partitions.size(), c.challenges, c.tree.name().c_str());
  const filecoin::StackedGraph graph(c.nodes, filecoin::porep_id_of(c1.proof.porep_proof_id), c1.proof.api);
  for (size_t k = 0; k < c1.partitions.size(); ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    circuit::CheckCs<ff::Bls12381Fr> cs;
    filecoin::porep_circuit(cs, c, c1.partitions[k]);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!cs.is_satisfied()) {
      std::printf("FAILED: partition %zu: row %llu of %llu unsatisfied\n", k, (unsigned long long)cs.first_unsatisfied,
                  (unsigned long long)cs.num_constraints());
      return kExitError;
    }
    const auto want = filecoin::porep_public_inputs(graph, c1.replica_id, c1.comm_d, c1.comm_r, c1.challenges[k]);
    if (cs.inputs.size() != want.size() + 1 || !std::equal(want.begin(), want.end(), cs.inputs.begin() + 1)) {
      std::printf("FAILED: partition %zu: the circuit's public inputs are not those of the public data\n", k);
      return kExitError;
    }
    std::printf(
        "ok: partition %zu: %llu constraints satisfied, %zu public inputs as generate_public_inputs gives them\n", k,
        (unsigned long long)cs.num_constraints(), want.size());
    std::fprintf(stderr, "check-c1: partition %zu in %.1f s\n", k, s);
  }
  return kExitOk;
}

// `filecoin seal`: a test sector of random data (from --seed) sealed in memory and its C1 output.
int filecoin_seal(const Args& a) {
  if (a.pos.size() > 1) throw UsageError("seal takes no argument");
  const auto size = a.get("--sector-size");
  const auto out = a.get("--out");
  if (!size || !out) throw UsageError("seal needs --sector-size SIZE and --out DIR");
  const uint64_t bytes = sector_size_arg(*size);
  if (bytes > (uint64_t(512) << 20))
    throw UsageError("--sector-size " + *size + ": seal makes test sectors of 2KiB, 8MiB or 512MiB (in memory)");
  filecoin::SealProofType t;
  try {
    t = filecoin::seal_proof_type(a.get_or("--seal-proof", "StackedDrg" + filecoin::sector_size_name(bytes) + "V1_1"));
  } catch (const InvalidArgument& e) {
    throw UsageError(std::string("--seal-proof: ") + e.what());
  }
  if (t.sector_size != bytes) throw UsageError("--seal-proof " + t.name + " is not of sector size " + *size);
  if (t.kind == filecoin::PorepChallengeKind::non_interactive)
    throw UsageError("--seal-proof " + t.name + ": non-interactive PoRep is not sealed here");
  std::filesystem::create_directories(*out);
  const uint64_t seed = number_arg(a.get_or("--seed", "1"), "--seed");
  RandomSource rs(seed);
  const filecoin::PorepSectorConfig sc = filecoin::porep_sector_config(bytes);
  std::vector<ff::Bls12381Fr> data(sc.circuit.nodes);
  for (auto& x : data) x = random_field<ff::Bls12381Fr>(rs);
  filecoin::SealIds ids;
  for (auto* b : {&ids.prover_id, &ids.ticket})
    for (auto& x : *b) x = uint8_t(rs.next());
  ids.sector_id = rs.next() >> 1;
  ids.porep_id = filecoin::porep_id_of(t.porep_proof_id);
  ids.api = t.api;
  filecoin::Bytes32 interactive_seed;
  for (auto& x : interactive_seed) x = uint8_t(rs.next());
  ThreadPool pool;
  const auto t0 = std::chrono::steady_clock::now();
  const filecoin::SealedSector sealed = filecoin::seal_sector(sc.circuit, std::move(data), ids, &pool);
  const filecoin::StackedGraph graph(sc.circuit.nodes, ids.porep_id, t.api);
  filecoin::PorepRecord rec;  // the challenge counts and derivations of this proof type
  rec.sector_size = bytes, rec.kind = t.kind, rec.partitions = sc.partitions;
  rec.comm_r = sealed.comm_r, rec.seed = interactive_seed;
  std::vector<std::vector<uint64_t>> challenges;
  for (size_t k = 0; k < sc.partitions; ++k) challenges.push_back(rec.challenges(sealed.replica_id, k));
  const std::string c1 = filecoin::c1_json(sealed, t, interactive_seed, ids.ticket, graph, challenges);
  const std::string path = (std::filesystem::path(*out) / "c1.json").string();
  {
    std::ofstream f(path, std::ios::binary);
    f << c1;
    if (!f) throw Error("cannot write " + path);
  }
  using filecoin::to_hex;
  // The sector's public data (what `filecoin verify --kind porep --public` takes), and a WindowPoSt
  // and a WinningPoSt vanilla proof of it for a random PoSt randomness, with their public data in
  // Lotus' form (what `filecoin prove` and `verify --kind window-post|winning-post` take).
  std::vector<std::pair<std::string, std::string>> files;
  char head[1024];
  std::snprintf(head, sizeof head,
                "{\"registered_proof\": \"%s\", \"sector_size\": %llu, \"prover_id\": \"%s\", \"sector_id\": %llu, "
                "\"ticket\": \"%s\", \"seed\": \"%s\", \"comm_d\": \"%s\", \"comm_r\": \"%s\", \"replica_id\": \"%s\"",
                t.name.c_str(), (unsigned long long)bytes, to_hex(ids.prover_id).c_str(),
                (unsigned long long)ids.sector_id, to_hex(ids.ticket).c_str(), to_hex(interactive_seed).c_str(),
                to_hex(sealed.comm_d).c_str(), to_hex(sealed.comm_r).c_str(), to_hex(sealed.replica_id).c_str());
  auto at = [&](const char* name) { return (std::filesystem::path(*out) / name).string(); };
  files.emplace_back(at("sector.json"), std::string(head) + "}\n");
  // The same C1 output in bincode, the other form Curio may send.
  const std::vector<uint8_t> c1_bin = filecoin::c1_bincode(sealed, t, interactive_seed, ids.ticket, graph, challenges);
  files.emplace_back(at("c1.bin"), std::string(c1_bin.begin(), c1_bin.end()));
  filecoin::Bytes32 randomness;
  for (auto& x : randomness) x = uint8_t(rs.next());
  randomness[31] &= 0x3f;  // a field element, as Lotus draws it
  const size_t size_index = size_t(std::countr_zero(bytes) == 11 ? 0 : std::countr_zero(bytes) == 23 ? 1 : 2);
  uint64_t seal_number = 0;
  while (filecoin::seal_proof_info(seal_number).name != t.name) ++seal_number;
  const filecoin::PoseidonFr comm_r = filecoin::fr_from_bytes(sealed.comm_r, "comm_r");
  for (const bool winning : {false, true}) {
    // StackedDrgWindow<size>V1_1 (api 1.2's challenges) and StackedDrgWinning<size>V1.
    const uint64_t post = winning ? size_index : 10 + size_index;
    filecoin::FallbackPostSectorProof p;
    p.sector_id = ids.sector_id, p.comm_r = comm_r;
    filecoin::PostSectorProof sp;
    sp.comm_c = sealed.tree_c.root(), sp.comm_r_last = sealed.tree_r.root();
    const filecoin::TreeShape& tree = sc.circuit.tree;
    for (uint64_t leaf : filecoin::post_challenged_leaves(post, randomness, ids.sector_id, 0)) {
      filecoin::PostMerkleProof m;
      m.kind = tree.top   ? filecoin::PostMerkleProof::top
               : tree.sub ? filecoin::PostMerkleProof::sub
                          : filecoin::PostMerkleProof::single;
      m.root = sp.comm_r_last;
      m.leaf = sealed.data[leaf] + sealed.labels.back()[leaf];
      m.path = sealed.tree_r.path(leaf);
      m.sub_levels = tree.sub ? 1 : 0, m.top_levels = tree.top ? 1 : 0;
      m.base_levels = m.path.size() - m.sub_levels - m.top_levels;
      sp.inclusion_proofs.push_back(std::move(m));
    }
    p.sectors.push_back(std::move(sp));
    const std::vector<uint8_t> vproof = filecoin::encode_fallback_post_sector_proof(p);
    const std::string stem = winning ? "winning-post" : "window-post";
    files.emplace_back(at((stem + ".vproof").c_str()), std::string(vproof.begin(), vproof.end()));
    files.emplace_back(
        at((stem + ".json").c_str()),
        "{\"Randomness\": \"" + filecoin::base64_encode(randomness) +
            "\", \"Proofs\": [{\"PoStProof\": " + std::to_string(post) +
            ", \"ProofBytes\": null}], \"ChallengedSectors\": [{\"SealProof\": " + std::to_string(seal_number) +
            ", \"SectorNumber\": " + std::to_string(ids.sector_id) + ", \"SealedCID\": {\"/\": \"" +
            filecoin::sealed_cid_of(comm_r) + "\"}}], \"Prover\": 1000}\n");
  }
  {
    // A SnapDeals update of the sector: new random data encoded into its replica, and each
    // partition's vanilla proof with the update's public data (prove / verify --kind snap).
    const filecoin::UpdateSectorConfig uc = filecoin::update_sector_config(bytes, false);
    std::vector<filecoin::PoseidonFr> replica(sc.circuit.nodes), data_new(sc.circuit.nodes);
    for (uint64_t n = 0; n < sc.circuit.nodes; ++n) {
      replica[n] = sealed.data[n] + sealed.labels.back()[n];
      data_new[n] = random_field<ff::Bls12381Fr>(rs);
    }
    const filecoin::UpdatedSector u = filecoin::update_sector(uc.circuit, uc.circuit.hs[3], std::move(replica),
                                                              sealed.tree_c.root(), std::move(data_new), &pool);
    if (u.comm_r_old != comm_r) throw Error("seal: the update's comm_r_old is not the sealed sector's comm_r");
    for (size_t k = 0; k < uc.partitions; ++k) {
      const std::vector<uint8_t> b = filecoin::encode_update_partition_proof(filecoin::update_partition_proof(u, k));
      files.emplace_back(at(("snap-partition-" + std::to_string(k) + ".vproof").c_str()),
                         std::string(b.begin(), b.end()));
    }
    files.emplace_back(at("snap.json"), "{\"registered_update_proof\": " + std::to_string(size_index) +
                                            ", \"comm_r_old\": \"" + to_hex(filecoin::fr_to_bytes(u.comm_r_old)) +
                                            "\", \"comm_d_new\": \"" + to_hex(filecoin::fr_to_bytes(u.comm_d_new)) +
                                            "\", \"comm_r_new\": \"" + to_hex(filecoin::fr_to_bytes(u.comm_r_new)) +
                                            "\", \"partitions\": " + std::to_string(uc.partitions) + "}\n");
  }
  write_files_atomically(files);
  std::printf("%s, \"c1\": \"%s\", \"c1_bin\": \"%s\", \"out\": \"%s\"}\n", head, path.c_str(), at("c1.bin").c_str(),
              out->c_str());
  std::fprintf(stderr, "seal: %s sealed in %.1f s, C1 output of %zu bytes\n", *size == "" ? "" : size->c_str(),
               std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), c1.size());
  return kExitOk;
}

int filecoin_parents(const Args& a) {
  if (a.pos.size() > 1) throw UsageError("parents takes no argument");
  const auto size = a.get("--sector-size");
  if (!size) throw UsageError("parents needs --sector-size SIZE");
  const uint64_t bytes = sector_size_arg(*size);
  const uint64_t sizes[] = {uint64_t(2) << 10, uint64_t(8) << 20, uint64_t(512) << 20, uint64_t(32) << 30,
                            uint64_t(64) << 30};
  const auto at = std::find(std::begin(sizes), std::end(sizes), bytes);
  if (at == std::end(sizes)) throw UsageError("--sector-size " + *size + ": a published size (2KiB .. 64GiB)");
  // StackedDrg<size>V1 is 0..4 (API 1.0.0), V1_1 5..9 (API 1.1.0).
  uint64_t proof = uint64_t(at - std::begin(sizes)) + 5;
  if (auto v = a.get("--seal-proof")) {
    proof = number_arg(*v, "--seal-proof");
    if (proof > 9 || proof % 5 != uint64_t(at - std::begin(sizes)))
      throw UsageError("--seal-proof " + *v + ": not a StackedDrg" + *size + " V1 or V1_1 proof (" +
                       std::to_string(at - std::begin(sizes)) + " or " + std::to_string(at - std::begin(sizes) + 5) +
                       ")");
  }
  const filecoin::ApiVersion api = proof < 5 ? filecoin::ApiVersion::v1_0_0 : filecoin::ApiVersion::v1_1_0;
  const filecoin::StackedGraph g(bytes / 32, filecoin::porep_id_of(proof), api);
  std::string out = "{\"sector_size\": " + std::to_string(bytes) + ", \"seal_proof\": " + std::to_string(proof) +
                    ", \"api_version\": \"" + filecoin::api_version_name(api) + "\", \"cache\": \"" +
                    g.parent_cache_name() + "\"";
  if (auto v = a.get("--node")) {
    const uint64_t node = number_arg(*v, "--node");
    if (node >= g.nodes()) throw UsageError("--node " + *v + ": the graph has " + std::to_string(g.nodes()) + " nodes");
    uint32_t p[filecoin::kGraphDegree];
    g.parents(uint32_t(node), p);
    out += ", \"node\": " + std::to_string(node) + ", \"parents\": [";
    for (size_t i = 0; i < filecoin::kGraphDegree; ++i) out += (i ? ", " : "") + std::to_string(p[i]);
    out += "]";
  }
  if (a.flag("--digest")) {
    ThreadPool pool;
    const auto t0 = std::chrono::steady_clock::now();
    out += ", \"digest\": \"" + filecoin::to_hex(g.parent_cache_digest(&pool)) + "\"";
    std::fprintf(stderr, "parents: %llu nodes in %.1f s on %u threads\n", (unsigned long long)g.nodes(),
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), pool.size());
  }
  std::printf("%s}\n", out.c_str());
  return kExitOk;
}

int filecoin_fingerprint(const Args& a) {
  const bool porep = a.pos.size() >= 2 && a.pos[1] == "porep";
  const bool snap = a.pos.size() >= 2 && a.pos[1] == "snap";
  filecoin::FilecoinGadgetSpec g;
  filecoin::PorepCircuitConfig pc;
  filecoin::UpdateCircuitConfig uc;
  if (porep)
    pc = porep_spec(a);
  else if (snap)
    uc = snap_spec(a);
  else if (!is_post_circuit(a))
    g = gadget_spec(a);
  if (a.get("--repeat") || a.flag("--witness") || a.flag("--record") || a.flag("--json"))
    throw UsageError("--repeat, --witness, --record and --json belong to 'filecoin shape'");
  const int k = std::stoi(a.get_or("--block-log2", "12"));
  if (k < 0 || k > 40) throw UsageError("--block-log2 must be within 0..40");
  circuit::FingerprintCs<ff::Bls12381Fr, filecoin::Sha256> cs(k, a.flag("--rows"));
  if (is_post_circuit(a)) return filecoin_post_fingerprint(a, cs);
  if (porep)
    filecoin::porep_circuit(cs, pc, filecoin::porep_blank_witness(pc));
  else if (snap)
    filecoin::update_circuit(cs, uc, filecoin::update_blank_witness(uc));
  else
    filecoin::synthesize_filecoin_gadget(cs, g);
  std::fputs(circuit::format_fingerprint(cs.finish()).c_str(), stdout);
  return kExitOk;
}

// The hash of the inputs: --arity A, --tag merkle (default) | const:L | custom:ID.
int filecoin_poseidon(const Args& a) {
  if (a.get("--vk-dir")) throw UsageError("--vk-dir belongs to 'filecoin records'");
  auto arity_text = a.get("--arity");
  if (!arity_text) throw UsageError("poseidon needs --arity A (1 to 36; Filecoin uses 2, 4, 8, 11, 16, 24, 36)");
  auto number = [](const std::string& s, const std::string& what) {
    if (s.size() > 6) throw UsageError(what + " '" + s + "' is not a number");
    return number_arg(s, what);
  };
  uint64_t arity = number(*arity_text, "--arity");
  if (arity < 1 || arity > filecoin::kPoseidonMaxArity)
    throw UsageError("--arity " + *arity_text + ": neptune defines arities 1 to 36");
  std::string tag = a.get_or("--tag", "merkle");
  const filecoin::PoseidonHashType type = poseidon_tag_arg(tag);
  const filecoin::PoseidonConstants* c = nullptr;
  try {
    c = &filecoin::poseidon_constants(size_t(arity), type);
  } catch (const InvalidArgument& e) {  // a tag neptune refuses for this arity
    throw UsageError("--tag " + tag + ": " + e.what());
  }
  size_t want = type.kind == filecoin::PoseidonHashType::constant_length ? size_t(type.value) : size_t(arity);
  if (a.pos.size() - 1 != want)
    throw UsageError("poseidon --arity " + std::to_string(arity) + " --tag " + tag + " takes exactly " +
                     std::to_string(want) + " inputs, got " + std::to_string(a.pos.size() - 1));
  std::vector<filecoin::PoseidonFr> in;
  for (size_t i = 1; i < a.pos.size(); ++i) {
    try {
      in.push_back(filecoin::poseidon_fr_from_string(a.pos[i], "input X" + std::to_string(i - 1)));
    } catch (const InvalidArgument& e) {
      throw UsageError(e.what());
    }
  }
  std::printf("%s\n", filecoin::poseidon_fr_to_hex(filecoin::poseidon_hash(*c, in)).c_str());
  return kExitOk;
}

// --kind porep|window-post|winning-post|snap (with --poseidon: snap's Poseidon variant).
filecoin::ProofKind kind_arg(const Args& a, const std::string& sub) {
  const auto k = a.get("--kind");
  if (!k) throw UsageError(sub + " needs --kind porep|window-post|winning-post|snap");
  if (*k == "porep") return filecoin::ProofKind::porep;
  if (*k == "window-post") return filecoin::ProofKind::window_post;
  if (*k == "winning-post") return filecoin::ProofKind::winning_post;
  if (*k == "snap")
    return a.flag("--poseidon") ? filecoin::ProofKind::snap_deals_poseidon : filecoin::ProofKind::snap_deals;
  throw UsageError("--kind '" + *k + "': expected porep, window-post, winning-post or snap");
}

std::string read_text_file(const std::string& path, size_t most) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InvalidArgument(path + ": cannot open");
  std::string s;
  f.seekg(0, std::ios::end);
  const auto size = f.tellg();
  if (size < 0 || size_t(size) > most)
    throw InvalidArgument(path + ": " + std::to_string(size_t(size)) + " bytes, more than " + std::to_string(most));
  s.resize(size_t(size));
  f.seekg(0);
  f.read(s.data(), std::streamsize(s.size()));
  if (!f) throw InvalidArgument(path + ": read failed");
  return s;
}

// A PoSt's public data (Lotus' JSON): its randomness, registered proof and sectors.
struct PostPublic {
  filecoin::Bytes32 randomness{};
  uint64_t registered_proof = 0;
  std::vector<filecoin::PostSector> sectors;
};
PostPublic post_public_arg(const std::string& path) {
  const filecoin::PostPublicData d = filecoin::parse_post_public_json(path);
  PostPublic p;
  p.randomness = d.randomness;
  if (d.post_proofs.empty()) throw InvalidArgument(path + ": Proofs: no PoSt proof type");
  p.registered_proof = d.post_proofs[0];
  for (const auto& s : d.sectors) p.sectors.push_back({s.sector_number, s.comm_r});
  return p;
}

// The 32 bytes of a hex member of the sector's public data.
filecoin::Bytes32 hex32(const io::Json& j, const std::string& path, const char* key) {
  const io::Json* v = j.find(key);
  if (!v || !v->is_string()) throw FormatError(path, std::string("no \"") + key + "\" string");
  std::string h = v->text;
  if (h.rfind("0x", 0) == 0) h = h.substr(2);
  filecoin::Bytes32 b{};
  if (h.size() != 64 || h.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
    throw FormatError(path, std::string(key) + ": expected 32 bytes as 64 hex digits");
  for (size_t i = 0; i < 32; ++i) b[i] = uint8_t(std::stoul(h.substr(2 * i, 2), nullptr, 16));
  return b;
}

// A SnapDeals update's public data (what seal writes to snap.json).
struct SnapPublic {
  uint64_t registered_proof = 0;
  filecoin::Bytes32 comm_r_old{}, comm_d_new{}, comm_r_new{};
};
SnapPublic snap_public_arg(const std::string& path) {
  const io::Json j = io::parse_json_file(path, size_t(1) << 20);
  if (!j.is_object()) throw FormatError(path, "expected a JSON object");
  const io::Json* n = j.find("registered_update_proof");
  if (!n || !n->is_number() || n->text.size() != 1 || n->text[0] < '0' || n->text[0] > '4')
    throw FormatError(path, "registered_update_proof: expected 0 to 4 (StackedDrg2KiBV1 .. StackedDrg64GiBV1)");
  SnapPublic p;
  p.registered_proof = uint64_t(n->text[0] - '0');
  p.comm_r_old = hex32(j, path, "comm_r_old"), p.comm_d_new = hex32(j, path, "comm_d_new");
  p.comm_r_new = hex32(j, path, "comm_r_new");
  return p;
}

engine::EngineConfig prover_engine_config(const Args& a, unsigned threads) {
  engine::EngineConfig cfg;
  try {
    cfg.devices = engine::parse_device_specs(a.get_or("--device", "auto"), "--device");
  } catch (const InvalidArgument& e) {
    throw UsageError(e.what());
  }
  for (auto& d : cfg.devices) d.threads = std::max(1u, threads / unsigned(cfg.devices.size()));
  cfg.synthesis_threads = threads;
  if (auto s = a.get("--seed")) cfg.seed = number_arg(*s, "--seed");
  return cfg;
}

// `filecoin setup --insecure --kind K --sector-size S --params DIR`: DIR/<stem>.params and .vk.
int filecoin_setup(const Args& a) {
  if (!a.flag("--insecure"))
    throw UsageError(
        "makes parameter files whose toxic waste is known, for tests only; pass --insecure to confirm "
        "(Filecoin's real parameters come from its ceremony: cuzk params verify checks them)");
  if (a.pos.size() > 1) throw UsageError("setup takes no argument");
  const filecoin::ProofKind kind = kind_arg(a, "setup");
  const auto size = a.get("--sector-size");
  const auto dir = a.get("--params");
  if (!size || !dir) throw UsageError("setup needs --sector-size SIZE and --params DIR");
  filecoin::FilecoinCircuit c;
  try {
    c = filecoin::filecoin_circuit(kind, sector_size_arg(*size));
  } catch (const InvalidArgument& e) {
    throw UsageError(std::string("--sector-size ") + *size + ": " + e.what());
  }
  std::optional<uint64_t> seed;
  if (auto v = a.get("--seed")) seed = number_arg(*v, "--seed");
  std::filesystem::create_directories(*dir);
  ThreadPool pool;
  const std::string device = engine::one_device(a.get_or("--device", "auto"), "--device").name();
  auto eng = engine::tool_engine(device, unsigned(pool.size()));
  std::optional<term::Activity> busy(std::in_place, "setup of " + c.id() + " on " + device);
  const filecoin::SetupResult r = filecoin::setup_insecure(c, *dir, seed, {eng.get(), device}, pool, {});
  busy.reset();
  std::printf("{\"circuit\": \"%s\", \"constraints\": %llu, \"params\": \"%s\", \"vk\": \"%s\"}\n", c.id().c_str(),
              (unsigned long long)r.constraints, r.params_path.c_str(), r.vk_path.c_str());
  std::fprintf(stderr, "setup: %s rows recorded in %.0f ms, insecure key on %s in %.0f ms\n", c.id().c_str(),
               r.record_ms, device.c_str(), r.setup_ms);
  return kExitOk;
}

// `filecoin prove --kind K --params DIR INPUT... --out FILE`: one Filecoin proof from vanilla proofs.
int filecoin_prove(const Args& a) {
  const filecoin::ProofKind kind = kind_arg(a, "prove");
  const auto dir = a.get("--params");
  const auto out = a.get("--out");
  if (!dir || !out) throw UsageError("prove needs --params DIR and --out FILE");
  if (a.pos.size() < 2) throw UsageError("prove needs its inputs: a C1 output (porep), vanilla proofs (PoSt)");
  check_output_path(*out);  // before the work, not after it
  filecoin::ProofRequest r;
  r.kind = kind;
  if (kind == filecoin::ProofKind::porep) {
    if (a.pos.size() != 2) throw UsageError("prove --kind porep takes one C1 output");
    if (a.get("--public")) throw UsageError("prove --kind porep reads its public data from the C1 output");
    r.vanilla_proof = [&] {
      const std::string t = read_text_file(a.pos[1], size_t(1) << 30);
      return std::vector<uint8_t>(t.begin(), t.end());
    }();
    // The registered proof the C1 output names.
    const filecoin::C1Output head = filecoin::parse_c1_any(a.pos[1], r.vanilla_proof);
    while (filecoin::seal_proof_info(r.registered_proof).name != head.proof.name) ++r.registered_proof;
  } else if (kind == filecoin::ProofKind::window_post || kind == filecoin::ProofKind::winning_post) {
    const auto pub = a.get("--public");
    if (!pub)
      throw UsageError("prove --kind " + *a.get("--kind") + " needs --public PUB.json (randomness, proof type)");
    const PostPublic p = post_public_arg(*pub);
    r.randomness = p.randomness, r.registered_proof = p.registered_proof;
    for (size_t i = 1; i < a.pos.size(); ++i) r.vanilla_proofs.push_back(filecoin::read_post_vproof_bytes(a.pos[i]));
    if (auto k = a.get("--partition-index")) r.partition_index = uint32_t(number_arg(*k, "--partition-index"));
  } else {
    const auto pub = a.get("--public");
    if (!pub) throw UsageError("prove --kind snap needs --public UPDATE.json (comm_r_old, comm_d_new, comm_r_new)");
    const SnapPublic p = snap_public_arg(*pub);
    r.registered_proof = p.registered_proof;
    r.comm_r_old = p.comm_r_old, r.comm_d_new = p.comm_d_new, r.comm_r_new = p.comm_r_new;
    for (size_t i = 1; i < a.pos.size(); ++i) {
      const std::string t = read_text_file(a.pos[i], size_t(1) << 30);
      r.vanilla_proofs.emplace_back(t.begin(), t.end());
    }
  }
  ThreadPool pool;
  engine::Engine eng(prover_engine_config(a, unsigned(pool.size())));
  const bool quiet = a.flag("--quiet");
  filecoin::Prover prover(eng,
                          {*dir,
                           [&](const std::string& s) {
                             if (!quiet) term::say(s);
                           }},
                          pool);
  const auto t0 = std::chrono::steady_clock::now();
  std::optional<term::Activity> busy(std::in_place, "proving " + *a.get("--kind") + " from " + a.pos[1], !quiet);
  const uint64_t job = prover.submit(r);
  const filecoin::Prover::Outcome o = prover.await(job);
  busy.reset();
  if (o.job.state != engine::JobState::Done) {
    const std::string e =
        o.job.records.empty() || o.job.records[0].error.empty() ? o.job.error : o.job.records[0].error;
    throw Error(e + "; nothing written");
  }
  write_files_atomically({{*out, std::string(o.proof.begin(), o.proof.end())}});
  std::string devices;
  for (const auto& rec : o.job.records) devices += std::string(devices.empty() ? "" : ", ") + "\"" + rec.device + "\"";
  std::printf("{\"proof\": \"%s\", \"partitions\": %zu, \"bytes\": %zu, \"devices\": [%s], \"seconds\": %.3f}\n",
              out->c_str(), o.job.proofs.size(), o.proof.size(), devices.c_str(),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return kExitOk;
}

// `filecoin verify --kind K --params DIR --public PUB PROOF`.
int filecoin_verify(const Args& a) {
  const filecoin::ProofKind kind = kind_arg(a, "verify");
  const auto dir = a.get("--params");
  const auto pub = a.get("--public");
  if (!dir || !pub) throw UsageError("verify needs --params DIR and --public PUB.json");
  if (a.pos.size() != 2) throw UsageError("verify takes one proof file");
  std::vector<std::vector<filecoin::PoseidonFr>> inputs;
  uint64_t bytes = 0;
  if (kind == filecoin::ProofKind::porep) {
    const io::Json j = io::parse_json_file(*pub, size_t(1) << 20);
    if (!j.is_object()) throw FormatError(*pub, "expected a JSON object");
    const io::Json* name = j.find("registered_proof");
    const io::Json* id = j.find("sector_id");
    if (!name || !name->is_string() || !id || !id->is_number())
      throw FormatError(*pub, "needs \"registered_proof\" (a name) and \"sector_id\" (a number)");
    const filecoin::SealProofType t = filecoin::seal_proof_type(name->text);
    filecoin::PorepRecord rec;
    rec.sector_size = bytes = t.sector_size;
    rec.partitions = filecoin::porep_sector_config(t.sector_size).partitions;
    rec.porep_id = filecoin::porep_id_of(t.porep_proof_id);
    rec.api = t.api, rec.kind = t.kind;
    rec.comm_r = hex32(j, *pub, "comm_r"), rec.comm_d = hex32(j, *pub, "comm_d");
    rec.prover_id = hex32(j, *pub, "prover_id"), rec.ticket = hex32(j, *pub, "ticket");
    rec.seed = hex32(j, *pub, "seed");
    const std::string& n = id->text;
    if (n.empty() || n.size() > 20 || n.find_first_not_of("0123456789") != std::string::npos ||
        (n.size() == 20 && n > "18446744073709551615"))
      throw FormatError(*pub, "sector_id: '" + n + "' is not a u64");
    rec.sector_id = std::stoull(n);
    const filecoin::StackedGraph graph(rec.nodes(), rec.porep_id, rec.api);
    for (size_t k = 0; k < rec.partitions; ++k) inputs.push_back(rec.public_inputs(graph, k));
  } else if (kind == filecoin::ProofKind::window_post || kind == filecoin::ProofKind::winning_post) {
    const PostPublic p = post_public_arg(*pub);
    uint32_t first = 0;
    if (auto k = a.get("--partition-index")) first = uint32_t(number_arg(*k, "--partition-index"));
    inputs = filecoin::post_partition_inputs(kind, p.registered_proof, p.randomness, p.sectors, first);
    bytes = filecoin::post_proof_info(p.registered_proof).sector_bytes;
  } else {
    const SnapPublic p = snap_public_arg(*pub);
    inputs = filecoin::snap_partition_inputs(kind, p.registered_proof, p.comm_r_old, p.comm_d_new, p.comm_r_new);
    bytes = filecoin::snap_sector_bytes(p.registered_proof);
  }
  const filecoin::FilecoinCircuit c = filecoin::filecoin_circuit(kind, bytes);
  std::string vk = (std::filesystem::path(*dir) / (c.params.stem() + ".vk")).string();
  if (!std::filesystem::exists(vk)) vk = (std::filesystem::path(*dir) / (c.params.stem() + ".params")).string();
  const std::string proof = read_text_file(a.pos[1], size_t(1) << 20);
  const std::string e = filecoin::verify_proof_bytes(
      vk, inputs, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(proof.data()), proof.size()));
  if (!e.empty()) {
    std::printf("FAILED: %s: %s\n", a.pos[1].c_str(), e.c_str());
    return kExitError;
  }
  std::printf("ok: %s: %zu partition(s) of %s verified against %s\n", a.pos[1].c_str(), inputs.size(), c.id().c_str(),
              vk.c_str());
  return kExitOk;
}

int cmd_filecoin(const Args& a) {
  const std::string& sub = a.pos[0];
  const bool gadget = sub == "shape" || sub == "fingerprint";
  if (sub != "poseidon" && !gadget && (a.get("--arity") || a.get("--tag")))
    throw UsageError("--arity and --tag belong to 'filecoin poseidon' and the poseidon gadget");
  if (!gadget && (a.get("--tree") || a.flag("--private-root") || a.get("--leaves") || a.get("--layers") ||
                  (a.get("--sector-size") && sub != "parents" && sub != "seal" && sub != "setup") || a.get("--nodes") ||
                  a.get("--challenges")))
    throw UsageError(
        "--tree, --private-root, --leaves, --layers, --sector-size, --nodes and --challenges belong to 'filecoin "
        "shape' and 'fingerprint' (--sector-size also to 'parents', 'seal' and 'setup')");
  if (sub != "parents" && (a.get("--node") || a.flag("--digest")))
    throw UsageError("--node and --digest belong to 'filecoin parents'");
  if (sub != "parents" && sub != "seal" && a.get("--seal-proof"))
    throw UsageError("--seal-proof belongs to 'filecoin parents' and 'seal'");
  if (sub != "seal" && sub != "prove" && a.get("--out"))
    throw UsageError("--out belongs to 'filecoin seal' and 'prove'");
  if (sub != "seal" && sub != "setup" && sub != "prove" && a.get("--seed"))
    throw UsageError("--seed belongs to 'filecoin seal', 'setup' and 'prove'");
  const bool proving = sub == "setup" || sub == "prove" || sub == "verify";
  for (const char* opt : {"--kind", "--params"})
    if (!proving && a.get(opt))
      throw UsageError(std::string(opt) + " belongs to 'filecoin setup', 'prove' and 'verify'");
  if (sub != "setup" && a.flag("--insecure")) throw UsageError("--insecure belongs to 'filecoin setup'");
  if (sub != "setup" && sub != "prove" && a.get("--device"))
    throw UsageError("--device belongs to 'filecoin setup' and 'prove'");
  if (sub != "prove" && a.flag("--quiet")) throw UsageError("--quiet belongs to 'filecoin prove'");
  if (sub != "prove" && sub != "verify" && (a.get("--public") || a.get("--partition-index")))
    throw UsageError("--public and --partition-index belong to 'filecoin prove' and 'verify'");
  if (a.flag("--poseidon") && !(gadget && a.pos.size() >= 2 && a.pos[1] == "snap") && !proving)
    throw UsageError("--poseidon belongs to 'filecoin shape snap' and 'fingerprint snap'");
  if ((a.get("--sectors") || a.get("--base-leaves")) && !(gadget && is_post_circuit(a)))
    throw UsageError("--sectors and --base-leaves belong to 'filecoin shape' and 'fingerprint' fallback-post");
  if (sub == "check-post") return filecoin_check_post(a);
  if (sub == "poseidon") return filecoin_poseidon(a);
  if (sub == "param-names") {
    if (a.pos.size() > 1) throw UsageError("param-names takes no argument");
    if (a.get("--vk-dir")) throw UsageError("--vk-dir belongs to 'filecoin records'");
    for (const auto& c : filecoin::published_circuits())
      std::printf("%s %s %s\n", filecoin::proof_kind_name(c.kind), filecoin::sector_size_name(c.sector_size).c_str(),
                  c.stem().c_str());
    return kExitOk;
  }
  if (sub == "records") {
    if (a.pos.size() < 2) throw UsageError("records needs a records file (FILE.json)");
    if (a.pos.size() > 2) throw UsageError("records takes one records file");
    return filecoin_records(a);
  }
  if (sub == "shape") return filecoin_shape(a);
  if (sub == "fingerprint") return filecoin_fingerprint(a);
  if (sub == "parents") return filecoin_parents(a);
  if (sub == "seal") return filecoin_seal(a);
  if (sub == "check-c1") return filecoin_check_c1(a);
  if (sub == "setup") return filecoin_setup(a);
  if (sub == "prove") return filecoin_prove(a);
  if (sub == "verify") return filecoin_verify(a);
  throw UsageError("unknown subcommand '" + sub +
                   "' (expected param-names, records, shape, fingerprint, check-post, check-c1, parents, seal, "
                   "setup, prove, verify or poseidon)");
}

}  // namespace

std::vector<Command> filecoin_commands() {
  cli::Command params("params", "inspect or verify Filecoin's parameter files (bellperson .params, .vk)");
  params.synopsis("inspect <FILE> [--check]")
      .synopsis("verify <DIR> --manifest <parameters.json>")
      .describe(
          "inspect: checks a .params or .vk file of BLS12-381 (its layout against its size, then every point: "
          "canonical, on the curve, never the identity where bellperson refuses it, the verifying key in its "
          "subgroup) and prints one JSON object: kind, curve, the count of each section, bytes. Exit 1 on a "
          "malformed file, naming the section and index of the first bad point.\n"
          "verify: checks the BLAKE2b-512 digest of each file that parameters.json lists (its digest field is a "
          "prefix of the hex digest) in DIR, one line per file; exit 1 on any mismatch or missing file.")
      .positional("<inspect|verify>", "what to do")
      .positional("<FILE|DIR>", "the file to inspect, or the directory of the files to verify")
      .flag("--check", "inspect: also check every point of h, l, a, b_g1 and b_g2 in its subgroup (all cores)")
      .option("--manifest", "FILE", "verify: rust-fil-proofs' parameters.json");
  cli::Command fil(
      "filecoin",
      "Filecoin: published parameter names, the proofs of regression records, circuit shapes, PoSt vanilla "
      "proofs, Poseidon");
  fil.synopsis("param-names")
      .synopsis("records <FILE.json> [--vk-dir DIR] [--inputs]")
      .synopsis("shape <GADGET> [GADGET OPTIONS] [--repeat N] [--witness] [--json]")
      .synopsis("shape porep --sector-size SIZE | --nodes N --layers L --challenges C --tree B-S-T [--json]")
      .synopsis("shape snap --sector-size SIZE [--poseidon] [--witness] [--json]")
      .synopsis("shape window-post|winning-post --sector-size SIZE [--witness] [--json]")
      .synopsis("shape fallback-post --tree B-S-T --base-leaves N --sectors S --challenges C [--witness] [--json]")
      .synopsis("fingerprint <GADGET> [GADGET OPTIONS] [--block-log2 K] [--rows]")
      .synopsis("check-post <VPROOF> <PUB.json>")
      .synopsis("parents --sector-size SIZE [--seal-proof ID] [--node N] [--digest]")
      .synopsis("seal --sector-size 2KiB|8MiB|512MiB --out DIR [--seal-proof NAME] [--seed N]")
      .synopsis("check-c1 <C1.json|C1.bin>")
      .synopsis(
          "setup --insecure --kind porep|window-post|winning-post|snap --sector-size SIZE --params DIR [--seed N]")
      .synopsis("prove --kind porep --params DIR <C1.json|C1.bin> --out PROOF [--device D] [--seed N]")
      .synopsis("prove --kind window-post|winning-post --params DIR --public PUB.json <VPROOF>... --out PROOF")
      .synopsis("verify --kind porep|window-post|winning-post --params DIR --public PUB.json <PROOF>")
      .synopsis("poseidon --arity A [--tag merkle|const:L|custom:ID] X0 X1 ...")
      .describe(
          "param-names: one line per published circuit: <proof kind> <sector size> <file stem> (the stem of its "
          ".params, .vk and .meta files, from the SHA-256 of the circuit's identifier).\n"
          "records: decodes every proof of a seal regression records file (rust-fil-proofs' "
          "seal_regression_records-*.json: 192 bytes per partition, compressed, every check), computes each "
          "partition's public inputs (replica_id; interactive, synthetic or non-interactive challenges; their "
          "parents in the StackedDRG graph) and, with --vk-dir, verifies each proof under its sector size's "
          "published verifying key (<stem>.vk, see param-names) found there. Ends with 'N records: M proofs "
          "decoded, K invalid, A aggregated; public inputs of P partitions[; V verified, R rejected, W without a "
          "key]'; SnarkPack aggregates are counted, not decoded. --inputs first prints a JSON line per record "
          "(line, replica_id, each partition's challenges). Exit 1 when K > 0 or R > 0.\n"
          "shape: synthesizes a gadget's circuit (sha256 [--bits N], sha256-compress, sha254-leaf, create-label, "
          "poseidon --arity A [--tag merkle|const:A|custom:ID], por --tree poseidon-B[-S[-T]]|sha256-B "
          "[--private-root] [--leaves N], column-hash --layers 2|11; inputs allocated as the rust test that counts "
          "it) as bellperson would, without values, and prints "
          "inputs (ONE included), aux, constraints (the circuit's own), input_constraints (the rows A = input_i "
          "bellperson adds when it proves, one per input), the non-zeros of A, B and C and the density popcounts "
          "(A over aux, B over inputs, B over aux); --repeat N synthesizes it N times into one system, --witness "
          "computes the values instead (counts only; copies of a gadget in parallel), --record keeps every row as "
          "the prover would and adds record_bytes (what the rows take); the time goes to stderr. "
          "shape porep: one partition of the StackedDRG PoRep circuit (storage-proofs-porep's StackedCircuit, "
          "blank), of a sector size rust-fil-proofs supports (--sector-size 2KiB, 8MiB, 512MiB, 32GiB, 64GiB, ...: "
          "its layers, challenges per partition and tree shape), or the stacked test form: --nodes N --layers 2|11 "
          "--challenges C --tree 8-0-0|8-4-0|8-4-2|2-0-0 (trees C and R; tree D is binary SHA-256). "
          "shape snap: one partition of the SnapDeals EmptySectorUpdate circuit (storage-proofs-update, blank) "
          "of a sector size it allows (--sector-size 1KiB, 2KiB, 4KiB, 8KiB, 16KiB, 32KiB, 8MiB, 16MiB, 512MiB, "
          "32GiB, 64GiB: its partitions' challenges, apex leaves, h values and tree R shape; tree D new binary "
          "SHA-256); --poseidon: the Poseidon variant (tree D new Poseidon with tree R's shape, one proof of every "
          "partition's challenges). porep and snap take fingerprint too.\n"
          "shape window-post / winning-post: one partition of the Fallback PoSt circuit (storage-proofs-post's "
          "FallbackPoStCircuit, blank) of a sector size: WindowPoSt 10 challenges per sector, 2349 sectors at "
          "32GiB, 2300 at 64GiB, 2 below; WinningPoSt 66 sectors of 1 challenge; the size's tree shape. "
          "shape fallback-post: the test form, --tree 8-0-0|8-4-0|8-4-2 --base-leaves N (leaves per base tree) "
          "--sectors S --challenges C (per sector). Sectors are synthesized in parallel.\n"
          "fingerprint: a SHA-256 digest per block of 2^K rows (default 12) and of the whole circuit, over a "
          "canonical encoding of every row (src/circuit/fingerprint.hpp); --rows also prints every row's digest.\n"
          "check-post: checks one sector's WindowPoSt / WinningPoSt vanilla proof (bincode "
          "FallbackPoStSectorProof, every length and tag validated) against the PoSt's public data (JSON: "
          "Randomness, Proofs[].PoStProof, ChallengedSectors[] with SealProof, SectorNumber, SealedCID, Prover): "
          "the sector is challenged, comm_r in the sealed CID = the proof's = Poseidon2(comm_c, comm_r_last), every "
          "inclusion proof opens the leaf the PoSt challenge derived from the randomness, sector and index names "
          "and hashes to comm_r_last, and the Fallback PoSt circuit of that sector with its values is satisfied "
          "with generate_public_inputs' inputs. Prints each check; exit 1 naming the first that fails. The "
          "prover id enters no vanilla proof, so it is read, not checked.\n"
          "parents: the StackedDRG graph of a seal proof (--seal-proof 0..4: StackedDrg<size>V1, API 1.0.0; "
          "5..9, the default: V1_1, API 1.1.0) as one JSON object: its parent cache's name (as in "
          "rust-fil-proofs' parent_cache.json), --node N's 6 DRG and 8 expander parents, --digest the SHA-256 of "
          "the whole cache (every node's parents, u32 LE; all cores).\n"
          "seal: a test sector of random data (from --seed, default 1) sealed in memory as storage-proofs-porep "
          "seals (labels, trees D, C and R) and its C1 output (SealCommitPhase1Output JSON) written to DIR/c1.json "
          "for the challenges of a random interactive seed; prints the sector's public data as one JSON object. "
          "--seal-proof: StackedDrg2KiBV1_1 (the default for 2KiB), StackedDrg2KiBV1, "
          "StackedDrg2KiBV1_1_Feat_SyntheticPoRep, ...\n"
          "check-c1: reads a PoRep C1 output (SealCommitPhase1Output JSON: every value canonical, every path of the "
          "sector's tree shape, each proof opening the challenge the seed gives and the parents the graph gives, "
          "comm_r = Poseidon2(comm_c, comm_r_last)), then synthesizes each partition's circuit from it checking "
          "every row, and its public inputs against those of the public data. Exit 1 naming the first failure "
          "(a 32GiB partition is 130 M rows: minutes).\n"
          "setup: an insecure Groth16 key (toxic waste from --seed, or the OS CSPRNG) for the published circuit "
          "of --kind and --sector-size, its rows recorded from the circuit as rust-fil-proofs synthesizes it, "
          "written as DIR/<stem>.params and DIR/<stem>.vk under the published name (see param-names): for tests; "
          "Filecoin's real parameters come from its ceremony.\n"
          "prove: one Filecoin proof from what Curio sends: a PoRep C1 output (every partition), or the "
          "FallbackPoStSectorProof vanilla proofs (bincode) of a WindowPoSt partition (--partition-index K, the "
          "last padded as rust-fil-proofs pads it) or of a WinningPoSt, with --public the PoSt's public data "
          "(Lotus' JSON: Randomness, Proofs[0].PoStProof). Everything is checked first (paths, challenges, "
          "commitments); the circuit's rows are recorded once, its .params read from DIR, each partition's "
          "witness synthesized and proved on --device (default: every GPU, else the CPU) and self-verified; "
          "PROOF gets 192 bytes per partition (Filecoin's proof bytes). --seed: deterministic r, s (tests).\n"
          "verify: checks PROOF against the circuit's .vk in DIR for the public inputs computed from --public: "
          "for porep the sector's public data as seal prints it (registered_proof, prover_id, sector_id, ticket, "
          "seed, comm_d, comm_r; replica_id and the challenges are recomputed), for PoSt Lotus' JSON (its "
          "sectors in partition order from --partition-index). Exit 1 naming the partition that fails.\n"
          "poseidon: neptune's Poseidon hash over BLS12-381 Fr as Filecoin uses it (width A + 1, x^5, 8 full "
          "rounds), printed as 0x + 64 hex digits (big-endian). Inputs are 0x-hex or decimal, each below r. "
          "Tags: merkle (2^A - 1, exactly A inputs), const:L (L * 2^64, exactly L <= A inputs, zeros after them), "
          "custom:ID (ID * 2^40, ID 1 to 256, exactly A inputs).")
      .positional(
          "<param-names|records|shape|fingerprint|check-post|check-c1|parents|seal|setup|prove|verify|poseidon>",
          "what to do")
      .variadic("<ARG>",
                "records: the records file; shape, fingerprint: the gadget or circuit; check-post: VPROOF PUB.json; "
                "poseidon: the inputs X0 X1 ...")
      .option("--vk-dir", "DIR", "records: the directory of the published verifying keys (.vk)")
      .flag("--inputs", "records: print each record's replica_id and challenges")
      .option("--bits", "N", "shape, fingerprint: the input bits of the sha256 gadget (default 512)")
      .option("--tree", "T",
              "shape, fingerprint: the por gadget's tree: poseidon-8, poseidon-8-8-2, sha256-2, ...; porep's trees "
              "C and R: 8-8-0, ...; fallback-post's tree R")
      .flag("--private-root", "shape, fingerprint: the por gadget's root is not a public input")
      .option("--leaves", "N", "shape, fingerprint: the por gadget's leaves (default 64 per base tree)")
      .option("--layers", "L", "shape, fingerprint: the column-hash gadget's rows, 2 or 11; porep's layers")
      .option("--sector-size", "SIZE",
              "shape, fingerprint: porep, window-post or winning-post (2KiB ... 64GiB) or snap (1KiB ... 64GiB) of "
              "this sector size")
      .flag("--poseidon", "shape, fingerprint: snap's Poseidon variant")
      .option("--nodes", "N", "shape, fingerprint: porep's test form: the sector's nodes")
      .option("--challenges", "C",
              "shape, fingerprint: porep's test form: challenges per partition; fallback-post's: per sector")
      .option("--sectors", "S", "shape, fingerprint: fallback-post's sectors per partition")
      .option("--base-leaves", "N", "shape, fingerprint: fallback-post's leaves per base tree")
      .option("--repeat", "N", "shape: synthesize the gadget N times into one constraint system")
      .flag("--witness", "shape: compute the witness values instead of the shape")
      .flag("--record", "shape: keep every row as the prover would (record mode) and add record_bytes")
      .flag("--json", "shape: print the JSON object alone")
      .option("--block-log2", "K", "fingerprint: rows per block digest, 2^K (default 12)")
      .flag("--rows", "fingerprint: also print every row's digest")
      .option("--seal-proof", "ID", "parents: the registered seal proof (0..9); seal: its name")
      .option("--out", "DIR",
              "seal: where c1.json, sector.json and the PoSt inputs (window-post.vproof / .json, "
              "winning-post.vproof / .json) go; prove: the proof file")
      .option("--seed", "N",
              "seal: the seed of the sector's data and ids (default 1); setup: of the toxic waste; prove: of r, s")
      .flag("--insecure", "setup: confirm that the key is for tests (its toxic waste is known)")
      .option("--kind", "K", "setup, prove, verify: porep, window-post, winning-post or snap")
      .option("--params", "DIR", "setup, prove, verify: the directory of the .params and .vk files")
      .option("--public", "FILE", "prove (PoSt), verify: the public data")
      .option("--partition-index", "K", "prove, verify (WindowPoSt): the partition of the first sectors")
      .option("--device", "D", "setup, prove: gpu:N, all, cpu or auto (default: every GPU, else the CPU)")
      .flag("--quiet", "prove: no progress on stderr")
      .option("--node", "N", "parents: print this node's parents")
      .flag("--digest", "parents: the SHA-256 of the whole parent cache")
      .option("--arity", "A", "poseidon and the poseidon gadget: the arity, 1 to 36")
      .option("--tag", "T", "poseidon and the poseidon gadget: merkle (default), const:L or custom:ID");
  return {{params, cmd_params}, {fil, cmd_filecoin}};
}

}  // namespace cuzk::app
