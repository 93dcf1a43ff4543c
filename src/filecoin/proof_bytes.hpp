// SPDX-License-Identifier: MIT OR Apache-2.0
// Filecoin's Groth16 proof bytes: per partition compressed A (G1, 48 bytes) ‖ B (G2, 96) ‖ C (G1,
// 48) = 192 bytes in the zcash encoding (groth16/encode.hpp), the partitions' proofs concatenated
// in partition order. Decoding checks what bellperson's Proof::read_many checks and more: the
// flags consistent, x canonical, on the curve, in the subgroup, and none of A, B, C the identity.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ec/curves.hpp"
#include "groth16/key.hpp"

namespace cuzk::filecoin {

constexpr size_t kProofBytes = 192;
using BlsProof = groth16::Proof<ec::Bls12381>;

std::vector<uint8_t> encode_proofs(const std::vector<BlsProof>& proofs);

// One partition's 192 bytes: empty on success, else "A: <what is wrong>" (B, C likewise).
std::string decode_proof(std::span<const uint8_t, kProofBytes> in, BlsProof& out);

// All partitions: the size must be a multiple of 192. Throws Error naming the partition and point.
std::vector<BlsProof> decode_proofs(std::span<const uint8_t> in);

}  // namespace cuzk::filecoin
