// SPDX-License-Identifier: MIT OR Apache-2.0
// A proof checked against the key that made it, before anyone sees it: the key's verifying part
// (alpha, beta, gamma, delta, IC) and the witness's public inputs.
#pragma once
#include <span>
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

// The verifying part of a .zkey straight from its header points and IC (section 3), each checked
// on its curve, without reading the rest of the key.
template <class E>
VerifyingKey<E> verifying_key_of_zkey(const io::ZkeyGroth16& z, ThreadPool& pool) {
  using G1 = typename E::G1;
  using G2 = typename E::G2;
  using A1 = typename E::G1Affine;
  using A2 = typename E::G2Affine;
  using P = ec::Pairing<E>;
  VerifyingKey<E> vk;
  vk.n_public = z.n_public;
  vk.alpha = detail::load_points<G1, A1>(z.path(), "alpha1", z.alpha1, 1, pool)[0];
  vk.beta = detail::load_points<G2, A2>(z.path(), "beta2", z.beta2, 1, pool)[0];
  vk.gamma = detail::load_points<G2, A2>(z.path(), "gamma2", z.gamma2, 1, pool)[0];
  vk.delta = detail::load_points<G2, A2>(z.path(), "delta2", z.delta2, 1, pool)[0];
  const auto ic = detail::load_points<G1, A1>(z.path(), "IC (section 3)", z.ic, z.n_public + 1, pool);
  vk.ic.assign(ic.begin(), ic.end());
  vk.beta_p = P::prepare(vk.beta);
  vk.gamma_p = P::prepare(vk.gamma);
  vk.delta_p = P::prepare(vk.delta);
  return vk;
}

// w: the full witness (standard form); its public inputs are w[1 .. n_public].
template <class E>
bool self_verify(const VerifyingKey<E>& vk, std::span<const Scalar> w, const Proof<E>& proof) {
  PublicInputs pub(w.begin() + 1, w.begin() + 1 + vk.n_public);
  VerifyProof<E> vp{proof.a, proof.b, proof.c};
  return verify_proof<E>(vk, pub, vp);
}

}  // namespace cuzk::groth16
