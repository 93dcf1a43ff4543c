// SPDX-License-Identifier: MIT OR Apache-2.0
// The optimal ate pairing of BN254 and BLS12-381 (host code, for verification), and the
// endomorphism-based subgroup membership tests that go with it.
//
// e(P, Q) = f(P)^((p^12 - 1)/r) with P in G1 (over Fp), Q in G2 (on the sextic twist over Fp2):
//   BN254:     f = f_{6u+2,Q}(P) * l_{[6u+2]Q, pi(Q)}(P) * l_{[6u+2]Q + pi(Q), -pi^2(Q)}(P),
//              u = 4965661367192848881, D-type twist y^2 = x^3 + 3/(9+u), lines at w^0, w^1, w^3.
//   BLS12-381: f = conj(f_{|x|,Q}(P)), x = -0xd201000000010000 (the conjugate is the inverse
//              after the final exponentiation: f_{x,Q} = 1 / f_{|x|,Q} up to factors it kills),
//              M-type twist y^2 = x^3 + 4(1+u), lines at w^0, w^2, w^3.
// The twist point is carried in homogeneous projective coordinates; the doubling and addition
// steps and their line coefficients are those of Costello, Lange, Naehrig ("Faster Pairing
// Computations on Curves with High-Degree Twists", PKC 2010, formulas 11 and 12) as arranged by
// arkworks (ark-ec models/bn, models/bls12). Lines are scaled by factors in proper subfields,
// which the final exponentiation removes.
//
// Final exponentiation: the easy part f^((p^6 - 1)(p^2 + 1)), then the hard part. Two hard parts:
//   final_exponentiation_slow: plain exponentiation by (p^4 - p^2 + 1)/r, an exponent computed
//     at start-up from p and r by the small bignum below (and checked to divide exactly). This is
//     the textbook reduced pairing.
//   final_exponentiation: the addition chains of snarkjs/wasmcurves, arkworks and zkcrypto:
//     BN254 Fuentes-Castaneda, Knapp, Rodriguez-Henriquez ("Faster hashing to G2", SAC 2011),
//     BLS12-381 Hayashida, Hayasaka, Teruya (ePrint 2020/875). They raise to a multiple m of the
//     textbook hard exponent: m = 2u(6u^2 + 3u + 1) for BN254 and m = 3 for BLS12-381 (both
//     coprime to r, so the result is still a non-degenerate bilinear pairing). pairing() uses
//     this one, so that GT values equal snarkjs's (vk_alphabeta_12) coefficient for coefficient;
//     tests check fast == slow^m.
// A product of pairings is checked with one shared Miller loop (one Fp12 squaring per step for
// all pairs) and one final exponentiation.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include "ec/curves.hpp"
#include "ff/fp12.hpp"

namespace cuzk::ec {

enum class TwistType { D, M };

template <class E>
struct PairingParams;

template <>
struct PairingParams<Bn254> {
  using Tower = ff::Bn254TowerCfg;
  using G2Cfg = Bn254G2Cfg;
  static constexpr TwistType twist = TwistType::D;
  static constexpr bool is_bn = true;
  static constexpr uint64_t x_abs = 4965661367192848881ull;  // u > 0
  static constexpr bool x_negative = false;
};

template <>
struct PairingParams<Bls12381> {
  using Tower = ff::Bls12381TowerCfg;
  using G2Cfg = Bls12381G2Cfg;
  static constexpr TwistType twist = TwistType::M;
  static constexpr bool is_bn = false;
  static constexpr uint64_t x_abs = 0xd201000000010000ull;  // x < 0
  static constexpr bool x_negative = true;
};

// ------------------------------------------------------------------ a small bignum
// Natural numbers as little-endian 64-bit words, for exponents computed once at start-up.
namespace bignum {

using Nat = std::vector<uint64_t>;

inline void trim(Nat& a) {
  while (!a.empty() && a.back() == 0) a.pop_back();
}
inline Nat from_words(const uint64_t* w, int n) {
  Nat a(w, w + n);
  trim(a);
  return a;
}
inline Nat from_u128(unsigned __int128 v) {
  Nat a{uint64_t(v), uint64_t(v >> 64)};
  trim(a);
  return a;
}
inline int cmp(const Nat& a, const Nat& b) {
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  for (size_t i = a.size(); i-- > 0;)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}
inline Nat add(const Nat& a, const Nat& b) {
  Nat r(std::max(a.size(), b.size()) + 1, 0);
  unsigned __int128 c = 0;
  for (size_t i = 0; i < r.size(); ++i) {
    c += (unsigned __int128)(i < a.size() ? a[i] : 0) + (i < b.size() ? b[i] : 0);
    r[i] = uint64_t(c);
    c >>= 64;
  }
  trim(r);
  return r;
}
inline Nat sub(const Nat& a, const Nat& b) {  // requires a >= b
  if (cmp(a, b) < 0) throw std::logic_error("bignum::sub: negative result");
  Nat r(a.size(), 0);
  uint64_t borrow = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    uint64_t bi = i < b.size() ? b[i] : 0;
    unsigned __int128 d = (unsigned __int128)a[i] - bi - borrow;
    r[i] = uint64_t(d);
    borrow = uint64_t(d >> 64) ? 1 : 0;
  }
  trim(r);
  return r;
}
inline Nat mul(const Nat& a, const Nat& b) {
  if (a.empty() || b.empty()) return {};
  Nat r(a.size() + b.size(), 0);
  for (size_t i = 0; i < a.size(); ++i) {
    unsigned __int128 c = 0;
    for (size_t j = 0; j < b.size(); ++j) {
      c += (unsigned __int128)a[i] * b[j] + r[i + j];
      r[i + j] = uint64_t(c);
      c >>= 64;
    }
    r[i + b.size()] = uint64_t(c);
  }
  trim(r);
  return r;
}
inline size_t bits(const Nat& a) {
  if (a.empty()) return 0;
  return 64 * (a.size() - 1) + (64 - size_t(__builtin_clzll(a.back())));
}
// Binary long division: q = a / d, rem = a mod d.
inline Nat divmod(const Nat& a, const Nat& d, Nat& rem) {
  if (d.empty()) throw std::logic_error("bignum::divmod: division by zero");
  Nat q(a.size() + 1, 0);
  rem.clear();
  for (size_t i = bits(a); i-- > 0;) {
    // rem = 2 rem + bit i of a
    uint64_t carry = (a[i / 64] >> (i % 64)) & 1;
    for (auto& w : rem) {
      uint64_t nc = w >> 63;
      w = (w << 1) | carry;
      carry = nc;
    }
    if (carry) rem.push_back(carry);
    if (cmp(rem, d) >= 0) {
      rem = sub(rem, d);
      q[i / 64] |= uint64_t(1) << (i % 64);
    }
  }
  trim(q);
  trim(rem);
  return q;
}

}  // namespace bignum

// ------------------------------------------------------------------ the pairing

template <class C>
struct CurveCfgOf;
template <class Cfg>
struct CurveCfgOf<Curve<Cfg>> {
  using type = Cfg;
};

template <class E>
struct Pairing {
  using Params = PairingParams<E>;
  using Tower = typename Params::Tower;
  using Fq = typename E::Fq;
  using Fq2 = typename E::Fq2;
  using Fr = typename E::Fr;
  using GT = ff::Fp12<Tower>;
  using G1 = typename E::G1Affine;
  using G2 = typename E::G2Affine;
  using G1Jac = typename E::G1Jac;
  using G2Jac = typename E::G2Jac;
  using G2Cfg = typename Params::G2Cfg;
  static constexpr bool kD = Params::twist == TwistType::D;

  // Coefficients of one line of the Miller loop, before evaluation at P.
  struct Line {
    Fq2 c0, c1, c2;
  };
  // Q with the lines of its Miller loop precomputed (reusable with any P).
  struct G2Prepared {
    std::vector<Line> lines;
    bool infinity = true;
  };
  // One factor e(p, q) of a product.
  struct Term {
    G1 p;
    const G2Prepared* q;
  };

  // Signed digits of the loop count, most significant first, the leading 1 dropped:
  // BN254 the NAF of 6u + 2, BLS12-381 the binary digits of |x|.
  static const std::vector<int8_t>& loop_digits() {
    static const std::vector<int8_t> d = [] {
      std::vector<int8_t> lsb;
      if constexpr (Params::is_bn) {
        unsigned __int128 k = (unsigned __int128)6 * Params::x_abs + 2;
        while (k > 0) {
          if (k & 1) {
            int8_t z = int8_t(2 - int(k & 3));
            lsb.push_back(z);
            if (z == 1)
              k -= 1;
            else
              k += 1;
          } else {
            lsb.push_back(0);
          }
          k >>= 1;
        }
      } else {
        for (uint64_t k = Params::x_abs; k > 0; k >>= 1) lsb.push_back(int8_t(k & 1));
      }
      std::vector<int8_t> msb(lsb.rbegin() + 1, lsb.rend());  // drop the top digit (a 1)
      return msb;
    }();
    return d;
  }

  static G2Prepared prepare(const G2& q) {
    G2Prepared out;
    if (q.is_inf()) return out;
    out.infinity = false;
    const auto& digits = loop_digits();
    out.lines.reserve(digits.size() * 2 + 2);
    Proj r{q.x, q.y, Fq2::one()};
    G2 neg_q = q.neg();
    for (int8_t d : digits) {
      out.lines.push_back(double_step(r));
      if (d == 1)
        out.lines.push_back(add_step(r, q));
      else if (d == -1)
        out.lines.push_back(add_step(r, neg_q));
    }
    if constexpr (Params::is_bn) {
      G2 q1 = psi(q);
      G2 q2 = psi(q1).neg();
      out.lines.push_back(add_step(r, q1));
      out.lines.push_back(add_step(r, q2));
    }
    return out;
  }

  // prod_i f_i(p_i) over the terms (pairs with a point at infinity contribute 1).
  static GT miller_loop(const Term* terms, size_t n) {
    std::vector<Term> live;
    live.reserve(n);
    for (size_t i = 0; i < n; ++i)
      if (!terms[i].p.is_inf() && terms[i].q && !terms[i].q->infinity) live.push_back(terms[i]);
    GT f = GT::one();
    if (live.empty()) return f;
    const auto& digits = loop_digits();
    size_t idx = 0;
    for (size_t s = 0; s < digits.size(); ++s) {
      if (s != 0) f = f.sqr();
      for (const Term& t : live) f = ell(f, t.q->lines[idx], t.p);
      ++idx;
      if (digits[s] != 0) {
        for (const Term& t : live) f = ell(f, t.q->lines[idx], t.p);
        ++idx;
      }
    }
    if constexpr (Params::x_negative) f = f.conj();
    if constexpr (Params::is_bn) {
      for (const Term& t : live) f = ell(f, t.q->lines[idx], t.p);
      ++idx;
      for (const Term& t : live) f = ell(f, t.q->lines[idx], t.p);
      ++idx;
    }
    return f;
  }

  // f^((p^6 - 1)(p^2 + 1)): lands in the cyclotomic subgroup.
  static GT easy_part(const GT& f) {
    GT t = f.conj() * f.inv();
    return t.frobenius(2) * t;
  }

  // The fast final exponentiation (snarkjs's, arkworks', zkcrypto's): f^(m (p^12 - 1)/r).
  static GT final_exponentiation(const GT& f) {
    GT r = easy_part(f);
    if constexpr (Params::is_bn) {
      // Fuentes-Castaneda et al., as in arkworks' Bn::final_exponentiation.
      GT y0 = exp_by_neg_x(r);
      GT y1 = y0.cyclotomic_sqr();
      GT y2 = y1.cyclotomic_sqr();
      GT y3 = y2 * y1;
      GT y4 = exp_by_neg_x(y3);
      GT y5 = y4.cyclotomic_sqr();
      GT y6 = exp_by_neg_x(y5);
      y3 = y3.conj();
      y6 = y6.conj();
      GT y7 = y6 * y4;
      GT y8 = y7 * y3;
      GT y9 = y8 * y1;
      GT y10 = y8 * y4;
      GT y11 = y10 * r;
      GT y13 = y9.frobenius(1) * y11;
      GT y14 = y8.frobenius(2) * y13;
      GT y15 = (r.conj() * y9).frobenius(3);
      return y15 * y14;
    } else {
      // Hayashida-Hayasaka-Teruya, as in zkcrypto bls12_381 and wasmcurves.
      // cexp(a) = a^x (x < 0).
      auto cexp = [](const GT& a) { return exp_by_neg_x(a); };
      GT t2 = r;
      GT t1 = t2.cyclotomic_sqr().conj();
      GT t3 = cexp(t2);
      GT t4 = t3.cyclotomic_sqr();
      GT t5 = t1 * t3;
      t1 = cexp(t5);
      GT t0 = cexp(t1);
      GT t6 = cexp(t0);
      t6 = t6 * t4;
      t4 = cexp(t6);
      t5 = t5.conj();
      t4 = t4 * t5 * t2;
      t5 = t2.conj();
      t1 = t1 * t2;
      t1 = t1.frobenius(3);
      t6 = t6 * t5;
      t6 = t6.frobenius(1);
      t3 = t3 * t0;
      t3 = t3.frobenius(2);
      t3 = t3 * t1;
      t3 = t3 * t6;
      return t3 * t4;
    }
  }

  // (p^4 - p^2 + 1) / r, computed from the moduli (throws if r does not divide it).
  static const bignum::Nat& hard_exponent() {
    static const bignum::Nat e = [] {
      using namespace bignum;
      Nat p = from_words(Fq::K.p.v, Fq::N);
      Nat r = from_words(Fr::K.p.v, Fr::N);
      Nat p2 = mul(p, p);
      Nat phi = add(sub(mul(p2, p2), p2), Nat{1});
      Nat rem;
      Nat q = divmod(phi, r, rem);
      if (!rem.empty()) throw std::logic_error("r does not divide p^4 - p^2 + 1");
      return q;
    }();
    return e;
  }
  // m with final_exponentiation(f) = final_exponentiation_slow(f)^m.
  static bignum::Nat hard_multiplier() {
    using namespace bignum;
    if constexpr (Params::is_bn) {
      Nat u = from_u128(Params::x_abs);
      Nat u2 = mul(u, u);
      Nat inner = add(add(mul(Nat{6}, u2), mul(Nat{3}, u)), Nat{1});
      return mul(mul(Nat{2}, u), inner);
    } else {
      return Nat{3};
    }
  }
  // The textbook reduced pairing exponentiation f^((p^12 - 1)/r), by plain square-and-multiply.
  static GT final_exponentiation_slow(const GT& f) {
    const auto& e = hard_exponent();
    return easy_part(f).pow(e.data(), int(e.size()));
  }

  static GT pairing(const G1& p, const G2& q) {
    G2Prepared qp = prepare(q);
    Term t{p, &qp};
    return final_exponentiation(miller_loop(&t, 1));
  }
  // prod_i e(p_i, q_i) == 1, with one final exponentiation.
  static bool product_is_one(const Term* terms, size_t n) {
    return final_exponentiation(miller_loop(terms, n)).is_one();
  }

  // ---------------------------------------------------------------- endomorphisms, subgroups

  // psi = untwist^-1 o Frobenius o untwist on the twist: Q -> (conj(x) cx, conj(y) cy). On G2 it
  // acts as multiplication by p mod r.
  static G2 psi(const G2& q) {
    if (q.is_inf()) return q;
    const auto& k = psi_consts();
    return {q.x.conj() * k.first, q.y.conj() * k.second};
  }

  // Membership of G1 for a point already known to be on the curve.
  //   BN254: the curve has prime order r (cofactor 1), so every point on it is in G1.
  //   BLS12-381: phi(P) = -[x^2]P with phi(x, y) = (beta x, y), beta a primitive cube root of
  //   unity (Scott, "A note on group membership tests for G1, G2 and GT on BLS pairing-friendly
  //   curves", ePrint 2021/1130; Bowe, ePrint 2019/814). beta is the root whose eigenvalue is -x^2,
  //   picked at start-up on the generator.
  static bool g1_in_subgroup(const G1& p) {
    if constexpr (Params::is_bn) {
      return true;
    } else {
      if (p.is_inf()) return true;
      const uint64_t k[2] = {x2_lo(), x2_hi()};
      G1Jac a = E::G1::mul(G1Jac::from_affine(p), k);
      G1 phi{p.x * beta(), p.y};
      return (a.add_affine(phi)).is_inf();
    }
  }
  // Membership of G2 for a point already known to be on the twist.
  //   BN254: psi(Q) = [6u^2]Q (El Housni, Guillevic, Piellard, "Co-factor clearing and subgroup
  //   membership testing on pairing-friendly curves", AFRICACRYPT 2022; p = 6u^2 mod r).
  //   BLS12-381: psi(Q) = [x]Q (Scott 2021, as above; p = x mod r).
  static bool g2_in_subgroup(const G2& q) {
    if (q.is_inf()) return true;
    G2 pq = psi(q);
    if constexpr (Params::is_bn) {
      unsigned __int128 s = (unsigned __int128)Params::x_abs * Params::x_abs * 6;
      const uint64_t k[2] = {uint64_t(s), uint64_t(s >> 64)};
      G2Jac a = E::G2::mul(G2Jac::from_affine(q), k);
      return a == G2Jac::from_affine(pq);
    } else {
      const uint64_t k[1] = {Params::x_abs};
      G2Jac a = E::G2::mul(G2Jac::from_affine(q), k);  // [|x|]Q = -[x]Q
      return a.add_affine(pq).is_inf();
    }
  }

 private:
  struct Proj {
    Fq2 x, y, z;
  };

  static const Fq2& twist_b() {
    static const Fq2 b = G2Cfg::b();
    return b;
  }
  static const Fq& two_inv() {
    static const Fq t = Fq::from_u64(2).inv();
    return t;
  }
  static std::pair<Fq2, Fq2> compute_psi_consts() {
    const auto& g = ff::FrobeniusConsts<Tower>::get().gamma[1];
    if constexpr (kD)
      return {g[2], g[3]};
    else
      return {g[2].inv(), g[3].inv()};
  }
  static const std::pair<Fq2, Fq2>& psi_consts() {
    static const std::pair<Fq2, Fq2> k = compute_psi_consts();
    return k;
  }

  static constexpr uint64_t x2_lo() { return uint64_t((unsigned __int128)Params::x_abs * Params::x_abs); }
  static constexpr uint64_t x2_hi() { return uint64_t(((unsigned __int128)Params::x_abs * Params::x_abs) >> 64); }
  static Fq compute_beta() {
    // A primitive cube root of unity: g^((q-1)/3) != 1 for the first g that is not a cube.
    ff::Limbs<Fq::N> e = Fq::K.p;
    ff::Limbs<Fq::N> one{};
    one.v[0] = 1;
    ff::limbs_sub(e, one);
    uint64_t rem = 0;
    e = ff::detail::limbs_div_small(e, 3, rem);
    Fq b = Fq::one();
    for (uint64_t g = 2; g < 100; ++g) {
      b = Fq::from_u64(g).pow(e);
      if (!b.is_one()) break;
    }
    return b;
  }
  // Of beta and beta^2, the one with phi(G) = -[x^2]G on the generator.
  static const Fq& beta() {
    static const Fq b = [] {
      Fq b1 = compute_beta();
      G1 g = generator_g1();
      const uint64_t k[2] = {x2_lo(), x2_hi()};
      G1Jac a = E::G1::mul(G1Jac::from_affine(g), k);
      for (const Fq& cand : {b1, b1.sqr()}) {
        G1 phi{g.x * cand, g.y};
        if (a.add_affine(phi).is_inf()) return cand;
      }
      throw std::logic_error("no cube root of unity acts as -x^2 on the G1 generator");
    }();
    return b;
  }
  static G1 generator_g1() {
    if constexpr (Params::is_bn)
      return Bn254G1Cfg::generator();
    else
      return Bls12381G1Cfg::generator();
  }

  // conj(f^|x|) for f in the cyclotomic subgroup (where conj is the inverse): f^(-u) for BN254
  // (arkworks' exp_by_neg_x) and f^x for BLS12-381 (zkcrypto's cyclotomic_exp, x < 0).
  static GT exp_by_neg_x(const GT& f) { return f.cyclotomic_pow_u64(Params::x_abs).conj(); }

  // Doubling step (CLN formula 11, a = 0): R <- 2R and the tangent line's coefficients.
  static Line double_step(Proj& r) {
    Fq2 a = (r.x * r.y).mul_base(two_inv());
    Fq2 b = r.y.sqr();
    Fq2 c = r.z.sqr();
    Fq2 e = twist_b() * (c.dbl() + c);
    Fq2 f = e.dbl() + e;
    Fq2 g = (b + f).mul_base(two_inv());
    Fq2 h = (r.y + r.z).sqr() - (b + c);
    Fq2 i = e - b;
    Fq2 j = r.x.sqr();
    Fq2 e2 = e.sqr();
    r.x = a * (b - f);
    r.y = g.sqr() - (e2.dbl() + e2);
    r.z = b * h;
    if constexpr (kD)
      return {-h, j.dbl() + j, i};
    else
      return {i, j.dbl() + j, -h};
  }
  // Addition step (CLN formula 12): R <- R + Q and the chord's coefficients.
  static Line add_step(Proj& r, const G2& q) {
    Fq2 theta = r.y - q.y * r.z;
    Fq2 lambda = r.x - q.x * r.z;
    Fq2 c = theta.sqr();
    Fq2 d = lambda.sqr();
    Fq2 e = lambda * d;
    Fq2 f = r.z * c;
    Fq2 g = r.x * d;
    Fq2 h = e + f - g.dbl();
    r.x = lambda * h;
    r.y = theta * (g - h) - e * r.y;
    r.z = r.z * e;
    Fq2 j = theta * q.x - lambda * q.y;
    if constexpr (kD)
      return {lambda, -theta, j};
    else
      return {j, -theta, lambda};
  }
  // f * line(P).
  static GT ell(const GT& f, const Line& l, const G1& p) {
    if constexpr (kD)
      return f.mul_by_034(l.c0.mul_base(p.y), l.c1.mul_base(p.x), l.c2);
    else
      return f.mul_by_014(l.c0, l.c1.mul_base(p.x), l.c2.mul_base(p.y));
  }
};

}  // namespace cuzk::ec
