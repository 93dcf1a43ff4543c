// SPDX-License-Identifier: MIT OR Apache-2.0
// The two pairing-friendly curves of cuzk: their G1/G2 configurations, and a per-curve bundle
// (Engine) that the prover, the MSM and the file codecs are templated on.
#pragma once
#include "ec/curve.hpp"
#include "ff/bls12_381.hpp"
#include "ff/bn254.hpp"
#include "ff/curve_id.hpp"

namespace cuzk::ec {

template <class F>
inline F fq_from_dec(const char* s) {
  return F::from_std(ff::parse_limbs<F::N>(s));
}

// ---------------------------------------------------------------- BN254
struct Bn254G1Cfg {
  using F = ff::Bn254Fq;
  static F b() { return F::from_u64(3); }
  static Affine<F> generator() { return {F::from_u64(1), F::from_u64(2)}; }
};
struct Bn254G2Cfg {
  using F = ff::Bn254Fq2;
  using B = ff::Bn254Fq;
  // b' = 3 / (9 + u) (the D-type twist)
  static F b() {
    return {fq_from_dec<B>("19485874751759354771024239261021720505790618469301721065564631296452457478373"),
            fq_from_dec<B>("266929791119991161246907387137283842545076965332900288569378510910307636690")};
  }
  static Affine<F> generator() {
    return {{fq_from_dec<B>("10857046999023057135944570762232829481370756359578518086990519993285655852781"),
             fq_from_dec<B>("11559732032986387107991004021392285783925812861821192530917403151452391805634")},
            {fq_from_dec<B>("8495653923123431417604973247489272438418190587263600148770280649306958101930"),
             fq_from_dec<B>("4082367875863433681332203403145435568316851327593401208105741076214120093531")}};
  }
};

// ---------------------------------------------------------------- BLS12-381
struct Bls12381G1Cfg {
  using F = ff::Bls12381Fq;
  static F b() { return F::from_u64(4); }
  static Affine<F> generator() {
    return {fq_from_dec<F>(
                "0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"),
            fq_from_dec<F>(
                "0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1")};
  }
};
struct Bls12381G2Cfg {
  using F = ff::Bls12381Fq2;
  using B = ff::Bls12381Fq;
  // b' = 4 (1 + u) (the M-type twist)
  static F b() { return {B::from_u64(4), B::from_u64(4)}; }
  static Affine<F> generator() {
    return {
        {fq_from_dec<B>(
             "0x024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"),
         fq_from_dec<B>(
             "0x13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e")},
        {fq_from_dec<B>(
             "0x0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801"),
         fq_from_dec<B>(
             "0x0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be")}};
  }
};

// Everything the generic code needs about one curve.
template <class FqT, class FrT, class G1C, class G2C, CurveId ID>
struct Engine {
  using Fq = FqT;
  using Fr = FrT;
  using Fq2 = ff::Fp2<Fq>;
  using G1 = Curve<G1C>;
  using G2 = Curve<G2C>;
  using G1Affine = Affine<Fq>;
  using G2Affine = Affine<Fq2>;
  using G1Jac = Jacobian<Fq>;
  using G2Jac = Jacobian<Fq2>;
  static constexpr CurveId id = ID;
  static constexpr size_t fq_bytes = Fq::BYTES;  // 32 / 48
  static constexpr size_t fr_bytes = Fr::BYTES;  // 32
};

using Bn254 = Engine<ff::Bn254Fq, ff::Bn254Fr, Bn254G1Cfg, Bn254G2Cfg, CurveId::bn254>;
using Bls12381 = Engine<ff::Bls12381Fq, ff::Bls12381Fr, Bls12381G1Cfg, Bls12381G2Cfg, CurveId::bls12_381>;

}  // namespace cuzk::ec
