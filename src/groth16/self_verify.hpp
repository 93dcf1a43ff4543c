// A proof checked against the key that made it, before anyone sees it: the key's verifying part
// (alpha, beta, gamma, delta, IC) and the witness's public inputs.
#pragma once
#include <vector>

#include "groth16/key.hpp"
#include "groth16/verifier.hpp"

namespace cuzk::groth16 {

template <class E>
VerifyingKey<E> verifying_key_of(const ProvingKey<E>& pk) {
  using P = ec::Pairing<E>;
  VerifyingKey<E> vk;
  vk.n_public = pk.n_public;
  vk.alpha = pk.alpha1;
  vk.beta = pk.beta2;
  vk.gamma = pk.gamma2;
  vk.delta = pk.delta2;
  vk.ic = pk.ic;
  vk.beta_p = P::prepare(vk.beta);
  vk.gamma_p = P::prepare(vk.gamma);
  vk.delta_p = P::prepare(vk.delta);
  return vk;
}

// w: the full witness (standard form); its public inputs are w[1 .. n_public].
template <class E>
bool self_verify(const VerifyingKey<E>& vk, const std::vector<Scalar>& w, const Proof<E>& proof) {
  PublicInputs pub(w.begin() + 1, w.begin() + 1 + vk.n_public);
  VerifyProof<E> vp{proof.a, proof.b, proof.c};
  return verify_proof<E>(vk, pub, vp);
}

}  // namespace cuzk::groth16
