// SPDX-License-Identifier: MIT OR Apache-2.0
// cuzk's Groth16 verifier for snarkjs files: verification_key.json (or, on BLS12-381, a
// bellperson .vk / .params: its verifying part), public.json, proof.json, on BN254 ("curve":
// "bn128") and BLS12-381 ("bls12381"). No CUDA types here.
//
// Stricter than `snarkjs groth16 verify`: every point must be on its curve and in the
// prime-order subgroup (snarkjs checks the curve equation only), coordinates must be canonical
// (< q), public inputs < r and exactly nPublic of them.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace cuzk {

struct VerifyResult {
  bool valid = false;
  // An input could not be read or is not a well-formed snarkjs file (as opposed to a
  // well-formed proof that fails a check).
  bool malformed = false;
  // Empty when valid; otherwise what failed, naming the file and the field, e.g.
  // "proof.json: pi_b is on the curve but not in the prime-order subgroup G2 ..." or
  // "pairing check failed: the proof does not verify against the key and public inputs".
  std::string error;
  std::string public_path, proof_path;
};

// Verifies one proof. Never throws for bad inputs: every problem is reported in the result.
VerifyResult verify_files(const std::string& vk_path, const std::string& public_path, const std::string& proof_path);

struct BatchInfo {
  size_t parsed_ok = 0;       // items that passed parsing and the point/input checks
  bool batch_passed = false;  // the combined check accepted all of them at once
  bool fell_back = false;     // the combined check failed and each was checked alone
  double parse_ms = 0, check_ms = 0;
};

// Verifies many (public.json, proof.json) pairs under one key: inputs are parsed and checked one
// by one, then all well-formed proofs are checked together with a random linear combination
// (random 128-bit coefficients from the OS CSPRNG, one final exponentiation); if that fails,
// each is checked alone so that the results name exactly the invalid ones. Results are in the
// order of the input.
std::vector<VerifyResult> verify_batch(const std::string& vk_path,
                                       const std::vector<std::pair<std::string, std::string>>& public_and_proof,
                                       BatchInfo* info = nullptr);

}  // namespace cuzk
