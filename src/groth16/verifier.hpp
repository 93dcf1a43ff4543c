// SPDX-License-Identifier: MIT OR Apache-2.0
// Groth16 verification of snarkjs files (verification_key.json, public.json, proof.json) on
// BN254 and BLS12-381, single and batched. The file-level API is include/cuzk/verify.hpp; this
// header exposes the pieces (parsed key, proof, public inputs, the checks) to tests and tools.
//
// Checks, stricter than `snarkjs groth16 verify`:
//   - the key's "protocol" is "groth16" and its "curve" is "bn128" or "bls12381"; a proof's
//     "protocol"/"curve", when present, agree (rapidsnark omits "curve");
//   - every coordinate is a canonical decimal string < q (snarkjs reduces larger values);
//   - every point of the key and the proof is on its curve AND in the prime-order subgroup
//     (snarkjs checks the curve equation only); alpha, beta, gamma, delta are not infinity;
//   - public inputs: exactly nPublic decimal strings, each < r;
//   - e(-A, B) * e(vk_x, gamma) * e(C, delta) * e(alpha, beta) == 1, vk_x = IC0 + sum pub_i IC_i,
//     with one shared Miller loop and one final exponentiation.
// Batch: for proofs 1..k under one key and random 128-bit z_i (OS CSPRNG),
//   prod_i e(-z_i A_i, B_i) * e(sum_i z_i vk_x_i, gamma) * e(sum_i z_i C_i, delta)
//     * e((sum_i z_i) alpha, beta) == 1,
// k + 3 Miller loops and one final exponentiation; sum_i z_i vk_x_i is one MSM over IC with the
// scalars (sum_i z_i, sum_i z_i pub_i1, ...). A false batch accepts an invalid proof with
// probability about 2^-128; when the batch fails, each proof is checked alone to name the bad ones.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backend/cpu/msm.hpp"
#include "ec/pairing.hpp"
#include "ff/curve_id.hpp"
#include "io/json_parse.hpp"
#include "util/error.hpp"

namespace cuzk::groth16 {

// A well-formed input that fails a check (a point off its curve or outside its subgroup, a
// public input >= r, a wrong number of public inputs, a curve mismatch). The message starts
// with the file's path.
struct VerifyReject : Error {
  VerifyReject(const std::string& path, const std::string& what) : Error(path + ": " + what) {}
};

using PublicInputs = std::vector<cpu::Scalar>;  // standard form, each < r

template <class E>
struct VerifyingKey {
  using Pairing = ec::Pairing<E>;
  uint32_t n_public = 0;
  typename E::G1Affine alpha;
  typename E::G2Affine beta, gamma, delta;
  std::vector<typename E::G1Affine> ic;                   // nPublic + 1 points
  std::optional<typename Pairing::GT> alphabeta;          // vk_alphabeta_12 as written (not trusted)
  typename Pairing::G2Prepared beta_p, gamma_p, delta_p;  // lines precomputed once
};

template <class E>
struct VerifyProof {
  typename E::G1Affine a;
  typename E::G2Affine b;
  typename E::G1Affine c;
};

// The curve named by a verification key (its "curve" field; "protocol" must be "groth16").
// Throws FormatError naming the file and the field.
CurveId vk_curve(const io::Json& vk, const std::string& path);

// Parsers: throw FormatError (malformed: missing field, wrong type, bad decimal) or VerifyReject
// (well-formed but invalid), both naming the file and the field.
template <class E>
VerifyingKey<E> vk_from_json(const io::Json& j, const std::string& path);
template <class E>
VerifyProof<E> proof_from_json(const io::Json& j, const std::string& path);
template <class E>
PublicInputs public_from_json(const io::Json& j, const std::string& path, uint32_t n_public);

// vk_x = IC0 + sum pub_i IC_i.
template <class E>
typename E::G1Affine public_combination(const VerifyingKey<E>& vk, const PublicInputs& pub);

// The pairing equation of one proof.
template <class E>
bool verify_proof(const VerifyingKey<E>& vk, const PublicInputs& pub, const VerifyProof<E>& proof);

// e(alpha, beta) as computed here equals the key's vk_alphabeta_12 (false when absent).
template <class E>
bool vk_alphabeta_matches(const VerifyingKey<E>& vk);

template <class E>
struct BatchItem {
  const PublicInputs* pub;
  const VerifyProof<E>* proof;
};
using BatchCoeff = std::array<uint64_t, 2>;  // a 128-bit z_i, little-endian

// The random-linear-combination check of all items at once. Coefficients come from the OS
// CSPRNG unless `coeffs` gives them (tests); zero coefficients are redrawn (or refused).
template <class E>
bool batch_check(const VerifyingKey<E>& vk, const std::vector<BatchItem<E>>& items,
                 const std::vector<BatchCoeff>* coeffs = nullptr);

// Decimal string -> standard-form limbs, strictly: digits only, value < modulus. Returns an
// explanation on failure (empty on success).
template <int N>
std::string parse_decimal_below(const std::string& s, const ff::Limbs<N>& modulus, ff::Limbs<N>& out) {
  if (s.empty()) return "an empty string is not a number";
  if (s.size() > 200) return "a decimal string of " + std::to_string(s.size()) + " digits is too long";
  ff::Limbs<N> v{};
  for (char c : s) {
    if (c < '0' || c > '9') return "expected decimal digits only";
    unsigned __int128 carry = uint64_t(c - '0');
    for (int i = 0; i < N; ++i) {
      unsigned __int128 t = (unsigned __int128)v.v[i] * 10 + carry;
      v.v[i] = uint64_t(t);
      carry = t >> 64;
    }
    if (carry) return "not less than the modulus";
  }
  if (ff::limbs_geq(v, modulus)) return "not less than the modulus";
  out = v;
  return {};
}

#define CUZK_VERIFIER_EXTERN(E)                                                                             \
  extern template VerifyingKey<E> vk_from_json<E>(const io::Json&, const std::string&);                     \
  extern template VerifyProof<E> proof_from_json<E>(const io::Json&, const std::string&);                   \
  extern template PublicInputs public_from_json<E>(const io::Json&, const std::string&, uint32_t);          \
  extern template typename E::G1Affine public_combination<E>(const VerifyingKey<E>&, const PublicInputs&);  \
  extern template bool verify_proof<E>(const VerifyingKey<E>&, const PublicInputs&, const VerifyProof<E>&); \
  extern template bool vk_alphabeta_matches<E>(const VerifyingKey<E>&);                                     \
  extern template bool batch_check<E>(const VerifyingKey<E>&, const std::vector<BatchItem<E>>&,             \
                                      const std::vector<BatchCoeff>*);
CUZK_VERIFIER_EXTERN(ec::Bn254)
CUZK_VERIFIER_EXTERN(ec::Bls12381)
#undef CUZK_VERIFIER_EXTERN

}  // namespace cuzk::groth16
