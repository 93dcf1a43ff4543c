// SPDX-License-Identifier: MIT OR Apache-2.0
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace cuzk {

enum class CurveId { bn254, bls12_381 };

// "bn254" / "bls12-381" (the names used on the command line and in fixture paths).
const char* curve_name(CurveId c);
// snarkjs's names in JSON files: "bn128" / "bls12381".
const char* curve_snarkjs_name(CurveId c);
std::optional<CurveId> curve_from_name(const std::string& s);  // accepts both spellings

// Identify a curve from the little-endian bytes of a prime stored in a file header:
// the scalar field r (wtns, r1cs, zkey n8r) or the base field q (zkey n8q).
std::optional<CurveId> curve_from_scalar_prime(std::span<const uint8_t> le);
std::optional<CurveId> curve_from_base_prime(std::span<const uint8_t> le);

// Little-endian bytes of r (32 bytes for both curves) and q (32 / 48 bytes).
std::span<const uint8_t> scalar_prime_le(CurveId c);
std::span<const uint8_t> base_prime_le(CurveId c);

// a < m for little-endian byte strings of the same length.
bool le_less(std::span<const uint8_t> a, std::span<const uint8_t> m);

}  // namespace cuzk
