// SPDX-License-Identifier: MIT OR Apache-2.0
#include "filecoin/proof_bytes.hpp"

#include "groth16/encode.hpp"
#include "util/error.hpp"

namespace cuzk::filecoin {

std::vector<uint8_t> encode_proofs(const std::vector<BlsProof>& proofs) {
  std::vector<uint8_t> out;
  out.reserve(proofs.size() * kProofBytes);
  for (const BlsProof& p : proofs) {
    auto one = groth16::proof_compressed(p);
    out.insert(out.end(), one.begin(), one.end());
  }
  return out;
}

std::string decode_proof(std::span<const uint8_t, kProofBytes> in, BlsProof& out) {
  using E = ec::Bls12381;
  const char* e = groth16::decompress_point<E>(in.data(), out.a);
  if (!e && out.a.is_inf()) e = "the point at infinity (bellperson refuses it)";
  if (e) return std::string("A: ") + e;
  e = groth16::decompress_point<E>(in.data() + 48, out.b);
  if (!e && out.b.is_inf()) e = "the point at infinity (bellperson refuses it)";
  if (e) return std::string("B: ") + e;
  e = groth16::decompress_point<E>(in.data() + 144, out.c);
  if (!e && out.c.is_inf()) e = "the point at infinity (bellperson refuses it)";
  if (e) return std::string("C: ") + e;
  return {};
}

std::vector<BlsProof> decode_proofs(std::span<const uint8_t> in) {
  if (in.size() % kProofBytes != 0)
    throw Error("proof bytes: " + std::to_string(in.size()) + " bytes is not a multiple of " +
                std::to_string(kProofBytes) + " (one compressed Groth16 proof per partition)");
  std::vector<BlsProof> out(in.size() / kProofBytes);
  for (size_t i = 0; i < out.size(); ++i) {
    std::string e = decode_proof(in.subspan(i * kProofBytes).first<kProofBytes>(), out[i]);
    if (!e.empty()) throw Error("proof bytes: partition " + std::to_string(i) + ", " + e);
  }
  return out;
}

}  // namespace cuzk::filecoin
