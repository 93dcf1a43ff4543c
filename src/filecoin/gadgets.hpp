// SPDX-License-Identifier: MIT OR Apache-2.0
// The named gadget circuits of `cuzk filecoin shape` / `fingerprint`: those of circuit/catalog.hpp
// (SHA-256 based) and the Poseidon based ones here, each allocating its inputs as the Rust test
// that counts its constraints does:
//   poseidon     --arity A allocated inputs, neptune's Poseidon circuit under the tag
//                (neptune circuit::tests::test_poseidon_hash: 311 / 377 / 505 / 598 / 761 / 1385
//                at arity 2 / 4 / 8 / 11 / 16 / 36)
//   por          Merkle inclusion, PoRCircuit over --tree (storage-proofs-core tests/por_circuit.rs:
//                64 leaves per base tree; e.g. poseidon-8-8 1,593, sha256-2 272,295;
//                --private-root: the root not an input)
//   column-hash  --layers L allocated rows, hash_single_column (L = 2 or 11)
// Values come from a seeded generator (the shape mode uses none): random inputs, and for por
// random leaves with the path of a random leaf.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "circuit/catalog.hpp"
#include "filecoin/por_circuit.hpp"
#include "filecoin/poseidon_circuit.hpp"

namespace cuzk::filecoin {

struct FilecoinGadgetSpec : circuit::GadgetSpec {
  size_t arity = 2;                                        // poseidon
  PoseidonHashType tag = PoseidonHashType::merkle_tree();  // poseidon
  std::string tree = "poseidon-8";                         // por
  bool private_root = false;                               // por
  uint64_t leaves = 0;                                     // por; 0: 64 per base tree
  size_t layers = 11;                                      // column-hash
};

inline const std::vector<circuit::GadgetInfo>& filecoin_gadget_catalog() {
  static const std::vector<circuit::GadgetInfo> c = [] {
    std::vector<circuit::GadgetInfo> v = circuit::gadget_catalog();
    v.push_back(
        {"poseidon", "neptune's Poseidon circuit of --arity A allocated inputs (--tag merkle|const:A|custom:ID)"});
    v.push_back({"por",
                 "Merkle inclusion (PoRCircuit) in --tree poseidon-B[-S[-T]] or sha256-B [--private-root] "
                 "[--leaves N]"});
    v.push_back({"column-hash", "the stacked DRG column hash of --layers L allocated rows (2 or 11)"});
    return v;
  }();
  return c;
}

inline bool is_filecoin_gadget(const std::string& name) { return circuit::is_gadget(name, filecoin_gadget_catalog()); }
inline std::string filecoin_gadget_names() { return circuit::gadget_names(filecoin_gadget_catalog()); }

// The leaf count of a por gadget: --leaves, or 64 per base tree.
inline uint64_t por_gadget_leaves(const FilecoinGadgetSpec& g, const TreeShape& s) {
  return g.leaves ? g.leaves : 64 * uint64_t(s.base_tree_count());
}

// Synthesizes the named circuit into cs; throws std::invalid_argument naming the known gadgets
// for an unknown name, InvalidArgument for options the gadget refuses.
template <class CS>
void synthesize_filecoin_gadget(CS& cs, const FilecoinGadgetSpec& g) {
  SeededRng rng(g.seed);
  auto random_values = [&](size_t n) {
    std::vector<PoseidonFr> v(n, PoseidonFr::zero());
    if constexpr (CS::kValues) {
      RandomSource rs(rng.next());
      for (auto& x : v) x = random_field<PoseidonFr>(rs);
    }
    return v;
  };
  auto alloc_values = [&](const std::vector<PoseidonFr>& vals) {
    std::vector<circuit::Num<PoseidonFr>> v;
    v.reserve(vals.size());
    for (const PoseidonFr& x : vals) v.push_back(circuit::alloc_num(cs, [&] { return x; }));
    return v;
  };
  if (g.name == "poseidon") {
    const PoseidonConstants& c = poseidon_constants(g.arity, g.tag);
    const auto in = alloc_values(random_values(g.arity));
    poseidon_hash_circuit(cs, std::span<const circuit::Num<PoseidonFr>>(in), c);
  } else if (g.name == "column-hash") {
    const auto rows = alloc_values(random_values(g.layers));
    hash_single_column_circuit(cs, std::span<const circuit::Num<PoseidonFr>>(rows));
  } else if (g.name == "por") {
    const TreeShape s = TreeShape::parse(g.tree);
    const uint64_t leaves = por_gadget_leaves(g, s);
    PorWitness w = por_blank_witness(s, leaves);
    if constexpr (CS::kValues) {
      if (leaves > (uint64_t(1) << 24)) throw InvalidArgument("por: at most 2^24 leaves with values");
      const std::vector<PoseidonFr> data = random_values(size_t(leaves));
      w = por_witness(s, data, rng.next() % leaves);
    }
    por_circuit(cs, s, leaves, w, g.private_root);
  } else if (circuit::is_gadget(g.name)) {
    circuit::synthesize_gadget(cs, static_cast<const circuit::GadgetSpec&>(g));
  } else {
    throw std::invalid_argument("unknown gadget '" + g.name + "' (known: " + filecoin_gadget_names() + ")");
  }
}

}  // namespace cuzk::filecoin
