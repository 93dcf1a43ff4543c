// SPDX-License-Identifier: MIT OR Apache-2.0
#include "ff/curve_id.hpp"

#include <algorithm>
#include <array>
#include <cstring>

namespace cuzk {

namespace {

// Little-endian bytes of the primes (checked against the decimal/hex constants with python3).
// BN254 r = 21888242871839275222246405745257275088548364400416034343698204186575808495617
constexpr std::array<uint8_t, 32> kBn254R = {
    0x01, 0x00, 0x00, 0xf0, 0x93, 0xf5, 0xe1, 0x43, 0x91, 0x70, 0xb9, 0x79, 0x48, 0xe8, 0x33, 0x28,
    0x5d, 0x58, 0x81, 0x81, 0xb6, 0x45, 0x50, 0xb8, 0x29, 0xa0, 0x31, 0xe1, 0x72, 0x4e, 0x64, 0x30,
};
// BN254 q = 21888242871839275222246405745257275088696311157297823662689037894645226208583
constexpr std::array<uint8_t, 32> kBn254Q = {
    0x47, 0xfd, 0x7c, 0xd8, 0x16, 0x8c, 0x20, 0x3c, 0x8d, 0xca, 0x71, 0x68, 0x91, 0x6a, 0x81, 0x97,
    0x5d, 0x58, 0x81, 0x81, 0xb6, 0x45, 0x50, 0xb8, 0x29, 0xa0, 0x31, 0xe1, 0x72, 0x4e, 0x64, 0x30,
};
// BLS12-381 r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001
constexpr std::array<uint8_t, 32> kBls12381R = {
    0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x5b, 0xfe, 0xff, 0x02, 0xa4, 0xbd, 0x53,
    0x05, 0xd8, 0xa1, 0x09, 0x08, 0xd8, 0x39, 0x33, 0x48, 0x7d, 0x9d, 0x29, 0x53, 0xa7, 0xed, 0x73,
};
// BLS12-381 q = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f624
//               1eabfffeb153ffffb9feffffffffaaab
constexpr std::array<uint8_t, 48> kBls12381Q = {
    0xab, 0xaa, 0xff, 0xff, 0xff, 0xff, 0xfe, 0xb9, 0xff, 0xff, 0x53, 0xb1, 0xfe, 0xff, 0xab, 0x1e,
    0x24, 0xf6, 0xb0, 0xf6, 0xa0, 0xd2, 0x30, 0x67, 0xbf, 0x12, 0x85, 0xf3, 0x84, 0x4b, 0x77, 0x64,
    0xd7, 0xac, 0x4b, 0x43, 0xb6, 0xa7, 0x1b, 0x4b, 0x9a, 0xe6, 0x7f, 0x39, 0xea, 0x11, 0x01, 0x1a,
};

bool equal(std::span<const uint8_t> a, std::span<const uint8_t> b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

}  // namespace

const char* curve_name(CurveId c) { return c == CurveId::bn254 ? "bn254" : "bls12-381"; }

const char* curve_snarkjs_name(CurveId c) { return c == CurveId::bn254 ? "bn128" : "bls12381"; }

std::optional<CurveId> curve_from_name(const std::string& s) {
  if (s == "bn254" || s == "bn128" || s == "BN254" || s == "bn-254") return CurveId::bn254;
  if (s == "bls12-381" || s == "bls12381" || s == "bls12_381" || s == "BLS12-381") return CurveId::bls12_381;
  return std::nullopt;
}

std::optional<CurveId> curve_from_scalar_prime(std::span<const uint8_t> le) {
  if (equal(le, kBn254R)) return CurveId::bn254;
  if (equal(le, kBls12381R)) return CurveId::bls12_381;
  return std::nullopt;
}

std::optional<CurveId> curve_from_base_prime(std::span<const uint8_t> le) {
  if (equal(le, kBn254Q)) return CurveId::bn254;
  if (equal(le, kBls12381Q)) return CurveId::bls12_381;
  return std::nullopt;
}

std::span<const uint8_t> scalar_prime_le(CurveId c) {
  return c == CurveId::bn254 ? std::span<const uint8_t>(kBn254R) : std::span<const uint8_t>(kBls12381R);
}

std::span<const uint8_t> base_prime_le(CurveId c) {
  return c == CurveId::bn254 ? std::span<const uint8_t>(kBn254Q) : std::span<const uint8_t>(kBls12381Q);
}

bool le_less(std::span<const uint8_t> a, std::span<const uint8_t> m) {
  // Compare as numbers; a longer operand's extra high bytes count only if non-zero.
  size_t n = std::max(a.size(), m.size());
  for (size_t i = n; i-- > 0;) {
    uint8_t x = i < a.size() ? a[i] : 0;
    uint8_t y = i < m.size() ? m[i] : 0;
    if (x != y) return x < y;
  }
  return false;
}

}  // namespace cuzk
