// prove_files on the CPU for one curve; instantiated once per curve (prover_<curve>.cpp) so the
// heavy template code compiles in parallel. A GPU proof goes through the engine (prove_one).
#pragma once
#include <chrono>

#include "cuzk/prove.hpp"
#include "groth16/encode.hpp"
#include "groth16/prover.hpp"
#include "io/r1cs.hpp"
#include "io/wtns.hpp"
#include "io/zkey.hpp"
#include "groth16/self_verify.hpp"
#include "r1cs/check.hpp"
#include "util/rng.hpp"

namespace cuzk::groth16 {

template <class E>
ProveOutput prove_with(const io::ZkeyGroth16& z, const io::Wtns& wt, const io::R1cs* cs, const ProveOptions& opt,
                       ThreadPool& pool) {
  using Fr = typename E::Fr;
  auto log = [&](const std::string& s) { if (opt.log) opt.log(s); };
  ProveOutput out;
  out.curve = curve_name(E::id);
  auto t0 = std::chrono::steady_clock::now();
  if (cs) {
    r1cs::check_witness<Fr>(*cs, wt, pool);
    out.times.check_ms = detail::ms_since(t0);
    log("witness satisfies all " + std::to_string(cs->n_constraints) + " constraints (" +
        std::to_string(int(out.times.check_ms)) + " ms)");
    t0 = std::chrono::steady_clock::now();
  }
  ProvingKey<E> pk = load_proving_key<E>(z, pool);
  std::vector<Scalar> w = witness_scalars(wt.values, wt.n_witness);
  out.times.load_ms = detail::ms_since(t0);
  log("key loaded: " + std::to_string(pk.n_vars) + " variables, " + std::to_string(pk.n_public) +
      " public, domain 2^" + std::to_string(pk.log_n) + " (" + std::to_string(int(out.times.load_ms)) + " ms)");

  RandomSource rs(opt.seed);
  Fr r = random_field<Fr>(rs), s = random_field<Fr>(rs);
  ProveTimings t;
  out.device = opt.device.name();
  Proof<E> proof;
  proof = prove<E>(pk, w, r, s, pool, &t);
  out.times.abc_ms = t.abc_ms;
  out.times.ntt_h_ms = t.ntt_h_ms;
  out.times.msm_a_ms = t.msm_a_ms;
  out.times.msm_b1_ms = t.msm_b1_ms;
  out.times.msm_b2_ms = t.msm_b2_ms;
  out.times.msm_c_ms = t.msm_c_ms;
  out.times.msm_h_ms = t.msm_h_ms;
  out.times.finish_ms = t.finish_ms;
  out.times.prove_ms = t.total_ms;
  if (opt.verify) {
    // The key's own verifying part (alpha, beta, gamma, delta, IC): a proof that does not verify
    // is never returned.
    auto tv = std::chrono::steady_clock::now();
    VerifyingKey<E> vk = verifying_key_of<E>(pk);
    if (!self_verify<E>(vk, w, proof))
      throw Error("the proof made on " + out.device + " does not verify against the key " + z.path() +
                  " (is the witness satisfying? check with --r1cs); nothing written");
    out.times.verify_ms = detail::ms_since(tv);
    log("proof verified (" + std::to_string(int(out.times.verify_ms)) + " ms)");
  }
  out.proof_json = proof_json(proof);
  out.public_json = public_json(w, pk.n_public);
  out.proof_compressed = proof_compressed(proof);
  return out;
}

}  // namespace cuzk::groth16
