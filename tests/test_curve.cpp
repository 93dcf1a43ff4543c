// SPDX-License-Identifier: MIT OR Apache-2.0
// Elliptic-curve arithmetic (src/ec) for G1 and G2 of BN254 and BLS12-381:
//   - the generators are on the curve and in the prime-order subgroup;
//   - every way of adding points (Jacobian +, Jacobian.add_affine, XYZZ add_affine / sub_affine /
//     operator+ / dbl) agrees with textbook affine addition, on random points and on the special
//     cases (P + P, P + (-P), P + O, O + P, O + O), with points at several projective scalings;
//   - group laws, scalar multiplication ([a][b]P = [ab]P, [r]P = O, ...);
//   - on_curve rejects off-curve points, in_subgroup rejects on-curve points outside the subgroup;
//   - compress_point: lengths, flag bits, x bytes, and known vectors.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "ec/curves.hpp"
#include "groth16/encode.hpp"
#include "testing.hpp"
#include "util/rng.hpp"

using namespace cuzk;
using cuzk::ec::Affine;
using cuzk::ec::Jacobian;
using cuzk::ec::XYZZ;

namespace {

RandomSource rng_for(uint64_t tag) { return RandomSource(test::seed() ^ (tag * 0x9e3779b97f4a7c15ull)); }

template <class F>
constexpr bool is_fp2 = requires {
  typename F::Base;
};

template <class F>
F rand_f(RandomSource& rs) {
  if constexpr (is_fp2<F>) {
    using B = typename F::Base;
    return F{random_field<B>(rs), random_field<B>(rs)};
  } else {
    return random_field<F>(rs);
  }
}
template <class F>
F rand_nonzero(RandomSource& rs) {
  for (;;) {
    F x = rand_f<F>(rs);
    if (!x.is_zero()) return x;
  }
}
template <class F>
F small_f(uint64_t k) {
  if constexpr (is_fp2<F>)
    return F{F::Base::from_u64(k), F::Base::zero()};
  else
    return F::from_u64(k);
}

template <class F>
std::string hex(const F& a) {
  if constexpr (is_fp2<F>) {
    std::string s = "(";
    s += hex(a.c0);
    s += ", ";
    s += hex(a.c1);
    s += ")";
    return s;
  } else {
    char buf[24];
    std::string s = "0x";
    auto v = a.to_std();
    for (int i = F::N - 1; i >= 0; --i) {
      std::snprintf(buf, sizeof buf, "%016llx", (unsigned long long)v.v[i]);
      s += buf;
    }
    return s;
  }
}
template <class F>
std::string pt(const Affine<F>& p) {
  if (p.is_inf()) return "O";
  std::string s = "[x=";
  s += hex(p.x);
  s += " y=";
  s += hex(p.y);
  s += "]";
  return s;
}

std::string to_hex(const uint8_t* b, size_t n) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    s.push_back(d[b[i] >> 4]);
    s.push_back(d[b[i] & 15]);
  }
  return s;
}

// Textbook affine addition: the reference every projective formula is compared with.
template <class F>
Affine<F> ref_add(const Affine<F>& p, const Affine<F>& q) {
  if (p.is_inf()) return q;
  if (q.is_inf()) return p;
  F lambda;
  if (p.x == q.x) {
    if (p.y != q.y || p.y.is_zero()) return Affine<F>::infinity();
    F x2 = p.x.sqr();
    lambda = (x2 + x2 + x2) * p.y.dbl().inv();
  } else {
    lambda = (q.y - p.y) * (q.x - p.x).inv();
  }
  F x3 = lambda.sqr() - p.x - q.x;
  F y3 = lambda * (p.x - x3) - p.y;
  return {x3, y3};
}

// The same point at projective scale t: Jacobian (x t^2, y t^3, t), XYZZ (x t^2, y t^3, t^2, t^3).
// Infinity keeps non-trivial X, Y (only Z / ZZ = 0 marks it).
template <class F>
Jacobian<F> jac_scaled(const Affine<F>& a, const F& t) {
  F t2 = t.sqr(), t3 = t2 * t;
  if (a.is_inf()) return {t2, t3, F::zero()};
  return {a.x * t2, a.y * t3, t};
}
template <class F>
XYZZ<F> xyzz_scaled(const Affine<F>& a, const F& t) {
  F t2 = t.sqr(), t3 = t2 * t;
  if (a.is_inf()) return {t2, t3, F::zero(), F::zero()};
  return {a.x * t2, a.y * t3, t2, t3};
}

// Standard-form big-endian bytes of a base-field element.
template <class B>
std::vector<uint8_t> be_bytes(const B& x) {
  auto s = x.to_std();
  std::vector<uint8_t> out;
  for (int i = B::N - 1; i >= 0; --i)
    for (int b = 7; b >= 0; --b) out.push_back(uint8_t(s.v[i] >> (8 * b)));
  return out;
}
// y > (p-1)/2 on the standard value.
template <class B>
bool fp_larger(const B& y) {
  auto s = y.to_std();
  auto h = B::K.p_minus_1_div_2;
  for (int i = B::N - 1; i >= 0; --i)
    if (s.v[i] != h.v[i]) return s.v[i] > h.v[i];
  return false;
}

std::vector<uint8_t> from_hex(const char* h) {
  std::vector<uint8_t> out;
  auto nib = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
  for (size_t i = 0; h[i] && h[i + 1]; i += 2) out.push_back(uint8_t(nib(h[i]) << 4 | nib(h[i + 1])));
  return out;
}

// ------------------------------------------------------------------ one group of one curve

template <class E, class Cfg>
struct Group {
  using F = typename Cfg::F;
  using Fr = typename E::Fr;
  using C = ec::Curve<Cfg>;
  using Aff = Affine<F>;
  using Jac = Jacobian<F>;
  using Xyzz = XYZZ<F>;
  static constexpr bool is_g2 = is_fp2<F>;
  static constexpr bool bls = E::id == CurveId::bls12_381;
  const char* name;
  uint64_t tag;

  Aff gen() const { return Cfg::generator(); }
  Jac random_point(RandomSource& rs, Fr* k_out = nullptr) const {
    Fr k = random_field<Fr>(rs);
    if (k_out) *k_out = k;
    return C::mul(Jac::from_affine(gen()), k);
  }

  void generator() const {
    Aff g = gen();
    CHECK_MSG(!g.is_inf(), name);
    CHECK_MSG(g.x.is_reduced() && g.y.is_reduced(), name);
    CHECK_MSG(C::on_curve(g), name << ": generator not on the curve");
    CHECK_MSG(C::template in_subgroup<Fr>(g), name << ": generator not in the subgroup");
    CHECK_MSG(C::on_curve(Aff::infinity()), name << ": (0,0) is the encoding of infinity");
    CHECK(C::template in_subgroup<Fr>(Aff::infinity()));
    // [r-1]G = -G: G has order exactly r (r prime, G != O).
    Fr minus_one = -Fr::one();
    CHECK_MSG(C::mul(Jac::from_affine(g), minus_one).to_affine() == g.neg(), name);
  }

  // Every representation computes a + b; all must equal the affine reference.
  void sum_all_ways(const Aff& a, const Aff& b, RandomSource& rs, const char* what, long& count) const {
    const Aff want = ref_add(a, b);
    CHECK_MSG(C::on_curve(want), name << " " << what << ": reference sum off the curve");
    const F t = rand_nonzero<F>(rs), s = rand_nonzero<F>(rs);
    const Jac ja = Jac::from_affine(a), jb = Jac::from_affine(b);
    const Jac jat = jac_scaled(a, t), jbs = jac_scaled(b, s);
    const Xyzz xa = Xyzz::from_affine(a), xb = Xyzz::from_affine(b);
    const Xyzz xat = xyzz_scaled(a, t), xbs = xyzz_scaled(b, s);
    struct R {
      const char* how;
      Aff got;
    };
    std::vector<R> rs_ = {
        {"jacobian a+b", (ja + jb).to_affine()},
        {"jacobian scaled a+b", (jat + jbs).to_affine()},
        {"jacobian scaled b+a", (jbs + jat).to_affine()},
        {"jacobian +=",
         [&] {
           Jac r = jat;
           r += jbs;
           return r.to_affine();
         }()},
        {"mixed a.add_affine(b)", ja.add_affine(b).to_affine()},
        {"mixed scaled a.add_affine(b)", jat.add_affine(b).to_affine()},
        {"mixed scaled b.add_affine(a)", jbs.add_affine(a).to_affine()},
        {"xyzz a.add_affine(b)", xa.add_affine(b).to_affine()},
        {"xyzz scaled a.add_affine(b)", xat.add_affine(b).to_affine()},
        {"xyzz scaled b.add_affine(a)", xbs.add_affine(a).to_affine()},
        {"xyzz scaled a.sub_affine(-b)", xat.sub_affine(b.neg()).to_affine()},
        {"xyzz a+b", (xa + xb).to_affine()},
        {"xyzz scaled a+b", (xat + xbs).to_affine()},
        {"xyzz scaled b+a", (xbs + xat).to_affine()},
        {"xyzz +=",
         [&] {
           Xyzz r = xat;
           r += xbs;
           return r.to_affine();
         }()},
    };
    if (a == b) {
      rs_.push_back({"jacobian dbl", ja.dbl().to_affine()});
      rs_.push_back({"jacobian scaled dbl", jat.dbl().to_affine()});
      rs_.push_back({"jacobian a+a (same object)", (jat + jat).to_affine()});
      rs_.push_back({"xyzz dbl", xa.dbl().to_affine()});
      rs_.push_back({"xyzz scaled dbl", xat.dbl().to_affine()});
      rs_.push_back({"xyzz a+a (same object)", (xat + xat).to_affine()});
      if (!a.is_inf()) rs_.push_back({"xyzz dbl_affine", Xyzz::dbl_affine(a).to_affine()});
    }
    for (const auto& r : rs_) {
      CHECK_MSG(r.got == want, name << " " << what << " via " << r.how << ": got " << pt(r.got) << " want " << pt(want)
                                    << " (a=" << pt(a) << " b=" << pt(b) << ")");
      ++count;
    }
    CHECK_MSG((jat + jbs).is_inf() == want.is_inf(), name << " " << what);
    CHECK_MSG((xat + xbs).is_inf() == want.is_inf(), name << " " << what);
    CHECK_MSG((jat + jbs) == Jac::from_affine(want), name << " " << what << ": Jacobian == disagrees");
  }

  void representations() const {
    RandomSource rs = rng_for(tag + 1);
    long count = 0;
    const Aff O = Aff::infinity();
    for (int i = 0; i < 12; ++i) {
      Aff p = random_point(rs).to_affine(), q = random_point(rs).to_affine();
      CHECK_MSG(C::on_curve(p), name << ": [k]G off the curve: " << pt(p));
      sum_all_ways(p, q, rs, "P+Q", count);
      sum_all_ways(p, p, rs, "P+P", count);
      sum_all_ways(p, p.neg(), rs, "P+(-P)", count);
      sum_all_ways(p.neg(), p, rs, "(-P)+P", count);
      sum_all_ways(p, O, rs, "P+O", count);
      sum_all_ways(O, p, rs, "O+P", count);
      if (i == 0) {
        sum_all_ways(gen(), gen(), rs, "G+G", count);
        sum_all_ways(gen(), gen().neg(), rs, "G+(-G)", count);
      }
    }
    sum_all_ways(O, O, rs, "O+O", count);
    // Explicit special cases, asserted directly rather than through the reference.
    Aff p = random_point(rs).to_affine();
    F t = rand_nonzero<F>(rs);
    CHECK(jac_scaled(p, t).add_affine(p.neg()).is_inf());
    CHECK((jac_scaled(p, t) + Jac::from_affine(p).neg()).is_inf());
    CHECK((jac_scaled(p, t) + jac_scaled(p, t).neg()).is_inf());
    CHECK(xyzz_scaled(p, t).sub_affine(p).is_inf());
    CHECK(xyzz_scaled(p, t).add_affine(p.neg()).is_inf());
    CHECK((xyzz_scaled(p, t) + Xyzz::from_affine(p.neg())).is_inf());
    CHECK(!xyzz_scaled(p, t).add_affine(p).is_inf());
    CHECK(Jac::infinity().is_inf() && Xyzz::infinity().is_inf() && Jac::infinity().dbl().is_inf() &&
          Xyzz::infinity().dbl().is_inf());
    CHECK(Jac::infinity().to_affine().is_inf() && Xyzz::infinity().to_affine().is_inf());
    CHECK(Xyzz::infinity().sub_affine(p).to_affine() == p.neg());
    CHECK(xyzz_scaled(p, t).sub_affine(O).to_affine() == p);
    CHECK(O.neg().is_inf());
    CHECK(!(Jac::infinity() == Jac::from_affine(p)) && !(Jac::from_affine(p) == Jac::infinity()));
    CHECK(Jac::infinity() == jac_scaled(O, t));
    CHECK(jac_scaled(p, t) == Jac::from_affine(p));
    CHECK(!(jac_scaled(p, t) == Jac::from_affine(p.neg())));
    std::printf("  %-17s %ld sums compared with affine addition\n", name, count);
  }

  void group_laws() const {
    RandomSource rs = rng_for(tag + 2);
    const Jac O = Jac::infinity();
    for (int i = 0; i < 10; ++i) {
      Jac p = random_point(rs), q = random_point(rs), r = random_point(rs);
      CHECK_MSG((p + q) + r == p + (q + r), name << ": + not associative");
      CHECK_MSG(p + q == q + p, name << ": + not commutative");
      CHECK_MSG((p + p.neg()).is_inf(), name << ": P + (-P) != O");
      CHECK_MSG(p + O == p && O + p == p, name << ": P + O != P");
      CHECK_MSG(p.dbl() == p + p, name << ": dbl != P + P");
      CHECK_MSG(p.dbl().dbl() == p + p + p + p, name << ": [4]P");
      CHECK(!(p == q) || p.to_affine() == q.to_affine());
      CHECK((p + q) + q.neg() == p);
      Aff pa = p.to_affine(), qa = q.to_affine();
      CHECK(p.add_affine(qa) == p + q);
      CHECK(p.add_affine(pa) == p.dbl());
      CHECK(p.add_affine(pa.neg()).is_inf());
      CHECK(Xyzz::from_affine(pa).add_affine(qa).to_affine() == (p + q).to_affine());
      CHECK(C::on_curve((p + q).to_affine()) && C::on_curve(p.dbl().to_affine()));
      CHECK(C::template in_subgroup<Fr>((p + q).to_affine()));
      // An XYZZ bucket accumulating many points agrees with a Jacobian sum.
      Xyzz acc = Xyzz::infinity();
      Jac jsum = O;
      for (int k = 0; k < 8; ++k) {
        Aff a = k % 3 == 2 ? pa : random_point(rs).to_affine();  // repeats hit the doubling case
        acc = k % 2 ? acc.sub_affine(a.neg()) : acc.add_affine(a);
        jsum = jsum.add_affine(a);
      }
      CHECK_MSG(acc.to_affine() == jsum.to_affine(), name << ": XYZZ bucket vs Jacobian");
    }
  }

  void scalar_mul() const {
    RandomSource rs = rng_for(tag + 3);
    const Aff g = gen();
    const Jac jg = Jac::from_affine(g);
    for (int i = 0; i < 6; ++i) {
      Fr a = random_field<Fr>(rs), b = random_field<Fr>(rs);
      Jac p = random_point(rs);
      CHECK_MSG(C::mul(C::mul(p, b), a) == C::mul(p, a * b), name << ": [a]([b]P) != [ab]P");
      CHECK_MSG(C::mul(p, a) + C::mul(p, b) == C::mul(p, a + b), name << ": [a]P + [b]P != [a+b]P");
      CHECK_MSG(C::mul(p, Fr::K.p.v).is_inf(), name << ": [r]P != O");
      CHECK(C::mul(p, Fr::zero()).is_inf());
      CHECK(C::mul(p, Fr::one()) == p);
      CHECK(C::mul(p, Fr::from_u64(2)) == p.dbl());
      CHECK(C::mul(p, Fr::from_u64(3)) == p.dbl() + p);
      CHECK(C::mul(p, a + Fr::one()) == C::mul(p, a) + p);
      CHECK(C::mul(p, -a) == C::mul(p, a).neg());
      CHECK(C::mul(Jac::infinity(), a).is_inf());
      // [r + 1]P = P through the raw-limb overload with r + 1 (one more limb so nothing wraps).
      uint64_t r_plus_1[Fr::N + 1] = {};
      for (int k = 0; k < Fr::N; ++k) r_plus_1[k] = Fr::K.p.v[k];
      r_plus_1[0] += 1;  // r is odd
      CHECK(C::mul(p, r_plus_1) == p);
    }
    // Small multiples against repeated addition.
    Jac acc = Jac::infinity();
    for (uint64_t k = 0; k < 40; ++k) {
      const uint64_t kk[1] = {k};
      CHECK_MSG(C::mul(jg, kk) == acc, name << ": [" << k << "]G");
      acc = acc.add_affine(g);
    }
  }

  void off_curve() const {
    RandomSource rs = rng_for(tag + 4);
    for (int i = 0; i < 20; ++i) {
      Aff p = random_point(rs).to_affine();
      F d = rand_nonzero<F>(rs);
      CHECK(C::on_curve(p));
      CHECK_MSG(!C::on_curve(Aff{p.x, p.y + d}), name << ": moved y still on the curve");
      CHECK_MSG(!C::on_curve(Aff{p.x + d, p.y}), name << ": moved x still on the curve");
      CHECK_MSG(!C::on_curve(Aff{p.y, p.x}), name << ": swapped coordinates on the curve");
      CHECK(!C::on_curve(Aff{rand_f<F>(rs), rand_f<F>(rs)}));
    }
    CHECK(!C::on_curve(Aff{F::zero(), F::one()}));
    CHECK(!C::on_curve(Aff{F::one(), F::zero()}));
    if constexpr (is_g2) {
      // The base-field curve equation (b = 3 or 4, no twist) must not pass on G2.
      Aff g = gen();
      CHECK(!C::on_curve(Aff{g.x, g.y.conj()}));
    }
  }

  // Points x = 1, 2, 3, ... with y = sqrt(x^3 + b), as long as needed.
  std::vector<Aff> small_x_points(int want) const {
    std::vector<Aff> out;
    for (uint64_t k = 1; int(out.size()) < want && k < 1000; ++k) {
      F x = small_f<F>(k), y;
      F rhs = x.sqr() * x + Cfg::b();
      if (!rhs.sqrt(y)) continue;
      CHECK(y.sqr() == rhs);
      out.push_back(Aff{x, y});
    }
    CHECK_MSG(int(out.size()) == want, name << ": too few points with small x");
    return out;
  }

  template <int M>
  void subgroup(const uint64_t (&cofactor)[M]) const {
    const bool cofactor_one = M == 1 && cofactor[0] == 1;
    auto pts = small_x_points(4);
    int outside = 0;
    for (const Aff& q : pts) {
      CHECK_MSG(C::on_curve(q), name << ": small-x point off the curve " << pt(q));
      CHECK(C::on_curve(q.neg()));
      bool in = C::template in_subgroup<Fr>(q);
      Jac rq = C::mul(Jac::from_affine(q), Fr::K.p.v);
      CHECK_MSG(in == rq.is_inf(), name << ": in_subgroup disagrees with [r]Q = O");
      if (cofactor_one) {
        CHECK_MSG(in, name << ": cofactor 1, yet " << pt(q) << " is outside the subgroup");
        continue;
      }
      CHECK_MSG(!in, name << ": " << pt(q) << " (not a multiple of G) reported in the subgroup");
      CHECK(!C::template in_subgroup<Fr>(q.neg()));
      ++outside;
      // The order of the curve group is h r: [h]([r]Q) = O, and [h]Q lands in the subgroup.
      CHECK_MSG(C::mul(rq, cofactor).is_inf(), name << ": [h r]Q != O");
      Aff cleared = C::mul(Jac::from_affine(q), cofactor).to_affine();
      CHECK_MSG(!cleared.is_inf() && C::on_curve(cleared), name);
      CHECK_MSG(C::template in_subgroup<Fr>(cleared), name << ": [h]Q not in the subgroup");
      // A subgroup point plus an outside point is outside.
      Aff mixed = (random_point_fixed() + Jac::from_affine(q)).to_affine();
      CHECK(C::on_curve(mixed) && !C::template in_subgroup<Fr>(mixed));
    }
    if (!cofactor_one) CHECK(outside == 4);
    std::printf("  %-17s %zu small-x points, %d outside the subgroup\n", name, pts.size(), outside);
  }
  Jac random_point_fixed() const {
    RandomSource rs = rng_for(tag + 5);
    return random_point(rs);
  }

  void compress() const {
    RandomSource rs = rng_for(tag + 6);
    const size_t fq_bytes = E::Fq::BYTES;
    const size_t n = is_g2 ? 2 * fq_bytes : fq_bytes;
    CHECK(n == (bls ? (is_g2 ? 96u : 48u) : (is_g2 ? 64u : 32u)));
    const uint8_t flag_mask = bls ? 0xE0 : 0xC0;
    for (int i = 0; i < 20; ++i) {
      Aff p = i == 0 ? gen() : random_point(rs).to_affine();
      for (const Aff& q : {p, p.neg()}) {
        std::vector<uint8_t> out = {0xAB, 0xCD};  // compress_point appends
        groth16::compress_point<E>(q, out);
        CHECK_MSG(out.size() == 2 + n, name << ": compressed length " << out.size() - 2);
        CHECK(out[0] == 0xAB && out[1] == 0xCD);
        const uint8_t* o = out.data() + 2;
        CHECK_MSG(o[0] & 0x80, name << ": compression flag missing");
        std::vector<uint8_t> want_x;
        bool larger;
        if constexpr (is_g2) {
          want_x = be_bytes(q.x.c1);
          auto c0 = be_bytes(q.x.c0);
          want_x.insert(want_x.end(), c0.begin(), c0.end());
          larger = q.y.c1.is_zero() ? fp_larger(q.y.c0) : fp_larger(q.y.c1);
        } else {
          want_x = be_bytes(q.x);
          larger = fp_larger(q.y);
        }
        CHECK_MSG((want_x[0] & flag_mask) == 0, name << ": x uses the flag bits");
        std::vector<uint8_t> got_x(o, o + n);
        got_x[0] &= uint8_t(~flag_mask);
        CHECK_MSG(got_x == want_x,
                  name << ": x bytes " << to_hex(got_x.data(), n) << " want " << to_hex(want_x.data(), n));
        if (bls) {
          CHECK_MSG(!(o[0] & 0x40), name << ": infinity flag on a finite point");
          CHECK_MSG(bool(o[0] & 0x20) == larger, name << ": sign flag " << int(o[0] >> 5) << " for " << pt(q));
        } else {
          CHECK_MSG(bool(o[0] & 0x40) == larger, name << ": sign flag " << int(o[0] >> 6) << " for " << pt(q));
        }
      }
      std::vector<uint8_t> a, b;
      groth16::compress_point<E>(p, a);
      groth16::compress_point<E>(p.neg(), b);
      const uint8_t sign = bls ? 0x20 : 0x40;
      CHECK_MSG((a[0] & sign) != (b[0] & sign), name << ": P and -P carry the same sign flag");
      CHECK(std::memcmp(a.data() + 1, b.data() + 1, n - 1) == 0 && ((a[0] ^ b[0]) & ~sign) == 0);
    }
    std::vector<uint8_t> inf;
    groth16::compress_point<E>(Aff::infinity(), inf);
    CHECK_MSG(inf.size() == n, name);
    CHECK_MSG(inf[0] == (bls ? 0xC0 : 0x40), name << ": infinity encoded as " << to_hex(inf.data(), n));
    for (size_t i = 1; i < n; ++i) CHECK(inf[i] == 0);
  }
};

const Group<ec::Bn254, ec::Bn254G1Cfg> kBnG1{"bn254 G1", 0x1001};
const Group<ec::Bn254, ec::Bn254G2Cfg> kBnG2{"bn254 G2", 0x1002};
const Group<ec::Bls12381, ec::Bls12381G1Cfg> kBlsG1{"bls12-381 G1", 0x2001};
const Group<ec::Bls12381, ec::Bls12381G2Cfg> kBlsG2{"bls12-381 G2", 0x2002};

// Cofactors: #E(Fq) = h r. BN254 G1: 1; BN254 G2: 2q - r; BLS12-381 G1: (x-1)^2/3;
// BLS12-381 G2: (x^8 - 4x^7 + 5x^6 - 4x^4 + 6x^3 - 4x^2 - 4x + 13)/9, x = -0xd201000000010000.
constexpr uint64_t kBnG1Cofactor[1] = {1};
constexpr uint64_t kBnG2Cofactor[4] = {0x345f2299c0f9fa8dull, 0x06ceecda572a2489ull, 0xb85045b68181585eull,
                                       0x30644e72e131a029ull};
constexpr uint64_t kBlsG1Cofactor[2] = {0x8c00aaab0000aaabull, 0x396c8c005555e156ull};
constexpr uint64_t kBlsG2Cofactor[8] = {0xcf1c38e31c7238e5ull, 0x1616ec6e786f0c70ull, 0x21537e293a6691aeull,
                                        0xa628f1cb4d9e82efull, 0xa68a205b2e5a7ddfull, 0xcd91de4547085abaull,
                                        0x091d50792876a202ull, 0x05d543a95414e7f1ull};

}  // namespace

CUZK_TEST(curve_bn254_g1_generator) { kBnG1.generator(); }
CUZK_TEST(curve_bn254_g2_generator) { kBnG2.generator(); }
CUZK_TEST(curve_bls12_381_g1_generator) { kBlsG1.generator(); }
CUZK_TEST(curve_bls12_381_g2_generator) { kBlsG2.generator(); }

CUZK_TEST(curve_bn254_g1_representations) { kBnG1.representations(); }
CUZK_TEST(curve_bn254_g2_representations) { kBnG2.representations(); }
CUZK_TEST(curve_bls12_381_g1_representations) { kBlsG1.representations(); }
CUZK_TEST(curve_bls12_381_g2_representations) { kBlsG2.representations(); }

CUZK_TEST(curve_bn254_g1_group_laws) { kBnG1.group_laws(); }
CUZK_TEST(curve_bn254_g2_group_laws) { kBnG2.group_laws(); }
CUZK_TEST(curve_bls12_381_g1_group_laws) { kBlsG1.group_laws(); }
CUZK_TEST(curve_bls12_381_g2_group_laws) { kBlsG2.group_laws(); }

CUZK_TEST(curve_bn254_g1_scalar_mul) { kBnG1.scalar_mul(); }
CUZK_TEST(curve_bn254_g2_scalar_mul) { kBnG2.scalar_mul(); }
CUZK_TEST(curve_bls12_381_g1_scalar_mul) { kBlsG1.scalar_mul(); }
CUZK_TEST(curve_bls12_381_g2_scalar_mul) { kBlsG2.scalar_mul(); }

CUZK_TEST(curve_bn254_g1_off_curve) { kBnG1.off_curve(); }
CUZK_TEST(curve_bn254_g2_off_curve) { kBnG2.off_curve(); }
CUZK_TEST(curve_bls12_381_g1_off_curve) { kBlsG1.off_curve(); }
CUZK_TEST(curve_bls12_381_g2_off_curve) { kBlsG2.off_curve(); }

CUZK_TEST(curve_bn254_g1_all_points_in_subgroup) { kBnG1.subgroup(kBnG1Cofactor); }
CUZK_TEST(curve_bn254_g2_not_in_subgroup) { kBnG2.subgroup(kBnG2Cofactor); }
CUZK_TEST(curve_bls12_381_g1_not_in_subgroup) { kBlsG1.subgroup(kBlsG1Cofactor); }
CUZK_TEST(curve_bls12_381_g2_not_in_subgroup) { kBlsG2.subgroup(kBlsG2Cofactor); }

CUZK_TEST(curve_bn254_g1_compress) { kBnG1.compress(); }
CUZK_TEST(curve_bn254_g2_compress) { kBnG2.compress(); }
CUZK_TEST(curve_bls12_381_g1_compress) { kBlsG1.compress(); }
CUZK_TEST(curve_bls12_381_g2_compress) { kBlsG2.compress(); }

// The twist constants: BN254 b' = 3 / (9 + u), BLS12-381 b' = 4 (1 + u).
CUZK_TEST(curve_twist_constants) {
  using BF = ff::Bn254Fq;
  ff::Bn254Fq2 xi = {BF::from_u64(9), BF::one()};
  CHECK(ec::Bn254G2Cfg::b() * xi == (ff::Bn254Fq2{BF::from_u64(3), BF::zero()}));
  CHECK(ec::Bn254G1Cfg::b() == BF::from_u64(3));
  using LF = ff::Bls12381Fq;
  CHECK(ec::Bls12381G2Cfg::b() == (ff::Bls12381Fq2{LF::from_u64(4), LF::from_u64(4)}));
  CHECK(ec::Bls12381G1Cfg::b() == LF::from_u64(4));
}

// Published encodings of the BLS12-381 generators (zcash serialization), and the BN254 G1 and G2
// generators in gnark's encoding.
CUZK_TEST(curve_compress_known_vectors) {
  {
    std::vector<uint8_t> out;
    groth16::compress_point<ec::Bls12381>(ec::Bls12381G1Cfg::generator(), out);
    auto want =
        from_hex("97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb");
    CHECK_MSG(out == want, "BLS12-381 G1 generator compressed: " << to_hex(out.data(), out.size()));
  }
  {
    std::vector<uint8_t> out;
    groth16::compress_point<ec::Bls12381>(ec::Bls12381G2Cfg::generator(), out);
    auto want = from_hex(
        "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
        "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8");
    CHECK_MSG(out == want, "BLS12-381 G2 generator compressed: " << to_hex(out.data(), out.size()));
  }
  {
    // (1, 2): y = 2 is the smaller root, so the flag is 0x80.
    std::vector<uint8_t> out;
    groth16::compress_point<ec::Bn254>(ec::Bn254G1Cfg::generator(), out);
    auto want = from_hex("8000000000000000000000000000000000000000000000000000000000000001");
    CHECK_MSG(out == want, "BN254 G1 generator compressed: " << to_hex(out.data(), out.size()));
    // -G: y = q - 2 is the larger root, flag 0xC0.
    out.clear();
    groth16::compress_point<ec::Bn254>(ec::Bn254G1Cfg::generator().neg(), out);
    want[0] = 0xC0;
    CHECK_MSG(out == want, "BN254 -G1 compressed: " << to_hex(out.data(), out.size()));
  }
  {
    // x.c1 = 0x198e93..., x.c0 = 0x1800de...; y.c1 = 0x090689... < (q-1)/2, so the flag is 0x80.
    std::vector<uint8_t> out;
    groth16::compress_point<ec::Bn254>(ec::Bn254G2Cfg::generator(), out);
    auto want = from_hex(
        "998e9393920d483a7260bfb731fb5d25f1aa493335a9e71297e485b7aef312c2"
        "1800deef121f1e76426a00665e5c4479674322d4f75edadd46debd5cd992f6ed");
    CHECK_MSG(out == want, "BN254 G2 generator compressed: " << to_hex(out.data(), out.size()));
  }
}
