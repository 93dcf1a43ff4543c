// SPDX-License-Identifier: MIT OR Apache-2.0
// Short Weierstrass curves y^2 = x^3 + b (a = 0) over F (Fp for G1, Fp2 for G2).
//
// Affine points use (0, 0) for infinity, as .zkey files do ((0, 0) is on no curve here, b != 0).
// Jacobian: (X, Y, Z) ~ (X/Z^2, Y/Z^3), Z = 0 at infinity.
// XYZZ:     (X, Y, ZZ, ZZZ) ~ (X/ZZ, Y/ZZZ) with ZZ^3 = ZZZ^2, ZZ = 0 at infinity; cheaper
//           mixed additions, used for MSM buckets.
// Formulas are from the Explicit-Formulas Database (hyperelliptic.org/EFD/g1p/auto-shortw-*.html),
// named at each function.
#pragma once
#include "ff/field.hpp"

namespace cuzk::ec {

// Cfg provides: using F; static F b(); static Affine generator() pieces via gen_x/gen_y.
template <class F>
struct Affine {
  F x, y;
  CUZK_HD static Affine infinity() { return {F::zero(), F::zero()}; }
  CUZK_HD bool is_inf() const { return x.is_zero() && y.is_zero(); }
  CUZK_HD friend bool operator==(const Affine& a, const Affine& b) { return a.x == b.x && a.y == b.y; }
  CUZK_HD friend bool operator!=(const Affine& a, const Affine& b) { return !(a == b); }
  CUZK_HD Affine neg() const { return is_inf() ? *this : Affine{x, -y}; }
};

template <class F>
struct Jacobian {
  F X, Y, Z;

  CUZK_HD static Jacobian infinity() { return {F::one(), F::one(), F::zero()}; }
  CUZK_HD static Jacobian from_affine(const Affine<F>& p) {
    return p.is_inf() ? infinity() : Jacobian{p.x, p.y, F::one()};
  }
  CUZK_HD bool is_inf() const { return Z.is_zero(); }
  CUZK_HD Jacobian neg() const { return {X, -Y, Z}; }

  // dbl-2009-l
  CUZK_HD Jacobian dbl() const {
    if (is_inf()) return *this;
    F A = X.sqr(), B = Y.sqr(), C = B.sqr();
    F D = ((X + B).sqr() - A - C).dbl();
    F E = A.dbl() + A, Fv = E.sqr();
    Jacobian r;
    r.X = Fv - D.dbl();
    r.Y = E * (D - r.X) - C.dbl().dbl().dbl();
    r.Z = (Y * Z).dbl();
    return r;
  }

  // add-2007-bl, with the doubling and inverse cases handled.
  CUZK_HD friend Jacobian operator+(const Jacobian& p, const Jacobian& q) {
    if (p.is_inf()) return q;
    if (q.is_inf()) return p;
    F Z1Z1 = p.Z.sqr(), Z2Z2 = q.Z.sqr();
    F U1 = p.X * Z2Z2, U2 = q.X * Z1Z1;
    F S1 = p.Y * q.Z * Z2Z2, S2 = q.Y * p.Z * Z1Z1;
    F H = U2 - U1, rr = (S2 - S1).dbl();
    if (H.is_zero()) return rr.is_zero() ? p.dbl() : infinity();
    F I = H.dbl().sqr(), J = H * I, V = U1 * I;
    Jacobian r;
    r.X = rr.sqr() - J - V.dbl();
    r.Y = rr * (V - r.X) - (S1 * J).dbl();
    r.Z = ((p.Z + q.Z).sqr() - Z1Z1 - Z2Z2) * H;
    return r;
  }

  // madd-2007-bl: Jacobian + affine.
  CUZK_HD Jacobian add_affine(const Affine<F>& q) const {
    if (q.is_inf()) return *this;
    if (is_inf()) return from_affine(q);
    F Z1Z1 = Z.sqr(), U2 = q.x * Z1Z1, S2 = q.y * Z * Z1Z1;
    F H = U2 - X, rr = (S2 - Y).dbl();
    if (H.is_zero()) return rr.is_zero() ? dbl() : infinity();
    F HH = H.sqr(), I = HH.dbl().dbl(), J = H * I, V = X * I;
    Jacobian r;
    r.X = rr.sqr() - J - V.dbl();
    r.Y = rr * (V - r.X) - (Y * J).dbl();
    r.Z = (Z + H).sqr() - Z1Z1 - HH;
    return r;
  }
  CUZK_HD Jacobian& operator+=(const Jacobian& q) { return *this = *this + q; }

  CUZK_HD Affine<F> to_affine() const {
    if (is_inf()) return Affine<F>::infinity();
    F zi = Z.inv(), zi2 = zi.sqr();
    return {X * zi2, Y * zi2 * zi};
  }
  CUZK_HD friend bool operator==(const Jacobian& p, const Jacobian& q) {
    if (p.is_inf() || q.is_inf()) return p.is_inf() && q.is_inf();
    F Z1Z1 = p.Z.sqr(), Z2Z2 = q.Z.sqr();
    return p.X * Z2Z2 == q.X * Z1Z1 && p.Y * q.Z * Z2Z2 == q.Y * p.Z * Z1Z1;
  }
};

// Y3 = a b - c d in every formula below goes through ff::mul_sub (over Fp on the GPU, one
// reduction for both products).
template <class F>
struct XYZZ {
  F X, Y, ZZ, ZZZ;

  CUZK_HD static XYZZ infinity() { return {F::one(), F::one(), F::zero(), F::zero()}; }
  CUZK_HD bool is_inf() const { return ZZ.is_zero(); }
  CUZK_HD static XYZZ from_affine(const Affine<F>& p) {
    return p.is_inf() ? infinity() : XYZZ{p.x, p.y, F::one(), F::one()};
  }

  // dbl-2008-s-1 (a = 0)
  CUZK_HD XYZZ dbl() const {
    if (is_inf()) return *this;
    F U = Y.dbl(), V = U.sqr(), W = U * V, S = X * V;
    F X2 = X.sqr(), M = X2.dbl() + X2;
    XYZZ r;
    r.X = M.sqr() - S.dbl();
    r.Y = mul_sub(M, S - r.X, W, Y);
    r.ZZ = V * ZZ;
    r.ZZZ = W * ZZZ;
    return r;
  }
  // mdbl-2008-s-1: doubling of an affine point.
  CUZK_HD static XYZZ dbl_affine(const Affine<F>& p) {
    F U = p.y.dbl(), V = U.sqr(), W = U * V, S = p.x * V;
    F X2 = p.x.sqr(), M = X2.dbl() + X2;
    XYZZ r;
    r.X = M.sqr() - S.dbl();
    r.Y = mul_sub(M, S - r.X, W, p.y);
    r.ZZ = V;
    r.ZZZ = W;
    return r;
  }
  // madd-2008-s
  CUZK_HD XYZZ add_affine(const Affine<F>& q) const {
    if (q.is_inf()) return *this;
    if (is_inf()) return from_affine(q);
    F U2 = q.x * ZZ, S2 = q.y * ZZZ;
    F P = U2 - X, R = S2 - Y;
    if (P.is_zero()) return R.is_zero() ? dbl_affine(q) : infinity();
    F PP = P.sqr(), PPP = P * PP, Q = X * PP;
    XYZZ r;
    r.X = R.sqr() - PPP - Q.dbl();
    r.Y = mul_sub(R, Q - r.X, Y, PPP);
    r.ZZ = ZZ * PP;
    r.ZZZ = ZZZ * PPP;
    return r;
  }
  CUZK_HD XYZZ sub_affine(const Affine<F>& q) const { return add_affine(q.neg()); }
  // add-2008-s
  CUZK_HD friend XYZZ operator+(const XYZZ& p, const XYZZ& q) {
    if (p.is_inf()) return q;
    if (q.is_inf()) return p;
    F U1 = p.X * q.ZZ, U2 = q.X * p.ZZ, S1 = p.Y * q.ZZZ, S2 = q.Y * p.ZZZ;
    F P = U2 - U1, R = S2 - S1;
    if (P.is_zero()) return R.is_zero() ? p.dbl() : infinity();
    F PP = P.sqr(), PPP = P * PP, Q = U1 * PP;
    XYZZ r;
    r.X = R.sqr() - PPP - Q.dbl();
    r.Y = mul_sub(R, Q - r.X, S1, PPP);
    r.ZZ = p.ZZ * q.ZZ * PP;
    r.ZZZ = p.ZZZ * q.ZZZ * PPP;
    return r;
  }
  CUZK_HD XYZZ& operator+=(const XYZZ& q) { return *this = *this + q; }

  CUZK_HD Affine<F> to_affine() const {
    if (is_inf()) return Affine<F>::infinity();
    // x = X / ZZ, y = Y / ZZZ with one inversion: 1/ZZZ = (ZZ * ZZZ)^-1 * ZZ, etc.
    F t = (ZZ * ZZZ).inv();
    return {X * t * ZZZ, Y * t * ZZ};
  }
};

// Curve-level operations, parameterised by a config with
//   using F = ...;  static F b();  static Affine<F> generator();
template <class Cfg>
struct Curve {
  using F = typename Cfg::F;
  using Aff = Affine<F>;
  using Jac = Jacobian<F>;

  static bool on_curve(const Aff& p) {
    if (p.is_inf()) return true;
    return p.y.sqr() == p.x.sqr() * p.x + Cfg::b();
  }
  // [k]P by double-and-add over the little-endian limbs of k (standard form).
  template <int M>
  static Jac mul(const Jac& p, const uint64_t (&k)[M]) {
    Jac r = Jac::infinity();
    for (int i = M - 1; i >= 0; --i)
      for (int b = 63; b >= 0; --b) {
        r = r.dbl();
        if ((k[i] >> b) & 1) r = r + p;
      }
    return r;
  }
  template <class Scalar>
  static Jac mul(const Jac& p, const Scalar& s) {  // s: a field element (Montgomery form)
    auto k = s.to_std();
    return mul(p, k.v);
  }
  // Membership of the prime-order subgroup: [r]P = O, r the scalar field modulus.
  template <class Fr>
  static bool in_subgroup(const Aff& p) {
    if (p.is_inf()) return true;
    return mul(Jac::from_affine(p), Fr::K.p.v).is_inf();
  }
};

}  // namespace cuzk::ec
