// SPDX-License-Identifier: MIT OR Apache-2.0
// BLS12-381: base field q (381 bits, 6 limbs) and scalar field r (255 bits, 4 limbs).
#pragma once
#include "ff/field.hpp"
#include "ff/fp2.hpp"

namespace cuzk::ff {

struct Bls12381FqParams {
  static constexpr int N = 6;
  static constexpr const char* name = "bls12-381 Fq";
  static constexpr const char* modulus =
      "0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab";
};
struct Bls12381FrParams {
  static constexpr int N = 4;
  static constexpr const char* name = "bls12-381 Fr";
  static constexpr const char* modulus = "0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001";
  static constexpr int two_adicity = 32;
  static constexpr uint64_t nqr = 5;
  // The multiplicative generator bellperson (blstrs) takes its roots of unity and cosets from.
  static constexpr uint64_t generator = 7;
};
using Bls12381Fq = Fp<Bls12381FqParams>;
using Bls12381Fr = Fp<Bls12381FrParams>;
using Bls12381Fq2 = Fp2<Bls12381Fq>;

}  // namespace cuzk::ff
