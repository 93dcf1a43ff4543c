// SPDX-License-Identifier: MIT OR Apache-2.0
// Named circuits of single gadgets, each allocating its inputs as the rust test that counts its
// constraints does, so that `cuzk filecoin shape` / `fingerprint` and the tests synthesize
// exactly the circuit whose count is published:
//   sha256-compress  512 allocated input bits, one compression from the IV
//                    (bellperson sha256::test_full_block: num_constraints() - 512 = 25,840)
//   sha256           N allocated input bits (--bits, whole bytes), sha256 with padding
//                    (test_full_hash at N = 512: num_constraints() - 512 = 44,874)
//   sha254-leaf      2 × 256 bits (bytes_into_boolean_vec of two Fr), hash_leaf_bits_circuit
//                    (storage-proofs-core util::tests::hash_leaf_bits_circuit: 45,387)
//   create-label     37 parents × 256 bits then the replica id's 256 bits (bytes_into_boolean_vec_be),
//                    layer 3 and node 22 as constants, create_label_circuit
//                    (storage-proofs-porep create_label::tests::test_create_label: 532,025)
// Values come from a seeded generator (in the shape mode none is used). To add a gadget: a name
// in gadget_catalog() and a branch in synthesize_gadget.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "circuit/storage.hpp"
#include "util/rng.hpp"

namespace cuzk::circuit {

struct GadgetInfo {
  const char* name;
  const char* what;
};

inline const std::vector<GadgetInfo>& gadget_catalog() {
  static const std::vector<GadgetInfo> c = {
      {"sha256", "SHA-256 of --bits N allocated input bits (default 512), padding included"},
      {"sha256-compress", "one SHA-256 compression of 512 allocated input bits from the IV"},
      {"sha254-leaf", "the 254-bit SHA-256 of two 256-bit leaves (hash_leaf_bits_circuit)"},
      {"create-label", "the stacked DRG label of a node from its replica id and 37 parents (create_label_circuit)"},
  };
  return c;
}

// Whether `name` is in a catalog (this one, or a larger one built over it), and its names.
inline bool is_gadget(const std::string& name, const std::vector<GadgetInfo>& catalog = gadget_catalog()) {
  for (const auto& g : catalog)
    if (name == g.name) return true;
  return false;
}

inline std::string gadget_names(const std::vector<GadgetInfo>& catalog = gadget_catalog()) {
  std::string s;
  for (const auto& g : catalog) s += (s.empty() ? "" : ", ") + std::string(g.name);
  return s;
}

struct GadgetSpec {
  std::string name;
  uint64_t bits = 512;  // sha256
  uint64_t seed = 1;    // the values of the allocated inputs
};

// The allocated input bits whose booleanity rows the rust test leaves out of the count it asserts
// (sha256's tests assert num_constraints() - 512): 0 for the gadgets whose tests count them.
inline uint64_t uncounted_input_bits(const GadgetSpec& g) {
  return g.name == "sha256-compress" ? 512 : g.name == "sha256" ? g.bits : 0;
}

// The shape of those rows alone (n booleans allocated), to take from the circuit's.
template <class F>
Shape uncounted_shape(uint64_t n) {
  ShapeCs<F> cs;
  for (uint64_t i = 0; i < n; ++i) alloc_boolean(cs, false);
  Shape s = cs.shape();
  s.inputs = s.aux = 0;  // the variables stay: only the rows are left out
  s.a_aux_density = s.b_input_density = s.b_aux_density = 0;
  return s;
}

// Synthesizes the named circuit into cs; throws std::invalid_argument naming the known gadgets
// for an unknown name.
template <class CS>
void synthesize_gadget(CS& cs, const GadgetSpec& g) {
  SeededRng rng(g.seed);
  auto bits_of = [&](size_t n) {
    std::vector<Boolean> v;
    v.reserve(n);
    uint64_t w = 0;
    for (size_t i = 0; i < n; ++i) {
      if (i % 64 == 0) w = CS::kValues ? rng.next() : 0;
      v.push_back(alloc_boolean(cs, (w >> (i % 64)) & 1));
    }
    return v;
  };
  // Bytes of a random field element (as fr_into_bytes: little-endian, below the modulus).
  auto fr_bytes = [&] {
    std::vector<uint8_t> b(32, 0);
    if constexpr (CS::kValues) {
      RandomSource rs(rng.next());
      const auto s = random_field<typename CS::Field>(rs).to_std();
      for (int i = 0; i < 32; ++i) b[i] = uint8_t(s.v[i / 8] >> (8 * (i % 8)));
    }
    return b;
  };
  if (g.name == "sha256-compress") {
    const auto in = bits_of(512);
    sha256_block_no_padding(cs, std::span<const Boolean>(in));
  } else if (g.name == "sha256") {
    if (g.bits % 8) throw std::invalid_argument("sha256: --bits must be a multiple of 8");
    const auto in = bits_of(g.bits);
    sha256(cs, std::span<const Boolean>(in));
  } else if (g.name == "sha254-leaf") {
    const auto l = fr_bytes(), r = fr_bytes();
    const auto lb = bytes_into_boolean_vec(cs, std::span<const uint8_t>(l), 256);
    const auto rb = bytes_into_boolean_vec(cs, std::span<const uint8_t>(r), 256);
    hash_leaf_bits_circuit(cs, std::span<const Boolean>(lb), std::span<const Boolean>(rb));
  } else if (g.name == "create-label") {
    std::vector<std::vector<Boolean>> parents;
    for (size_t i = 0; i < kTotalParents; ++i) {
      const auto p = fr_bytes();
      parents.push_back(bytes_into_boolean_vec_be(cs, std::span<const uint8_t>(p), 256));
    }
    const auto id = fr_bytes();
    const auto idb = bytes_into_boolean_vec_be(cs, std::span<const uint8_t>(id), 256);
    create_label_circuit(cs, std::span<const Boolean>(idb), parents, UInt32::constant(3), UInt64::constant(22));
  } else {
    throw std::invalid_argument("unknown gadget '" + g.name + "' (known: " + gadget_names() + ")");
  }
}

}  // namespace cuzk::circuit
