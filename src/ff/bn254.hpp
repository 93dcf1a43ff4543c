// SPDX-License-Identifier: MIT OR Apache-2.0
// BN254 (alt_bn128, snarkjs "bn128"): base field q and scalar field r.
#pragma once
#include "ff/field.hpp"
#include "ff/fp2.hpp"

namespace cuzk::ff {

struct Bn254FqParams {
  static constexpr int N = 4;
  static constexpr const char* name = "bn254 Fq";
  static constexpr const char* modulus =
      "21888242871839275222246405745257275088696311157297823662689037894645226208583";
};
struct Bn254FrParams {
  static constexpr int N = 4;
  static constexpr const char* name = "bn254 Fr";
  static constexpr const char* modulus =
      "21888242871839275222246405745257275088548364400416034343698204186575808495617";
  // r - 1 = 2^28 * t; 5 is the smallest quadratic non-residue (the generator snarkjs and
  // rapidsnark use for their roots of unity).
  static constexpr int two_adicity = 28;
  static constexpr uint64_t nqr = 5;
  static constexpr uint64_t generator = 5;  // the multiplicative generator
};
using Bn254Fq = Fp<Bn254FqParams>;
using Bn254Fr = Fp<Bn254FrParams>;
using Bn254Fq2 = Fp2<Bn254Fq>;

}  // namespace cuzk::ff
