// SPDX-License-Identifier: MIT OR Apache-2.0
// Pairings and the Groth16 verifier:
//   - the Fp6/Fp12 tower: field laws on random elements, the sparse (line) products and the
//     cyclotomic squaring against the generic ones, Frobenius = p-th power, the tower's defining
//     relations (v^3 = xi, w^2 = v, xi neither a square nor a cube in Fp2);
//   - the pairing: fast final exponentiation = slow one ^ m, bilinearity on random scalars,
//     non-degeneracy, e^r = 1, multi-pairing = product of pairings, and as a known answer
//     snarkjs's vk_alphabeta_12 = e(alpha, beta) in every fixture key of both curves;
//   - the endomorphism subgroup tests against [r]P = O on random points in and out of the
//     subgroups (and BLS12-381 G1 points with small-order torsion added);
//   - the strict JSON parser;
//   - the verifier: every committed snarkjs proof verifies; tampered inputs are rejected with
//     messages naming file and field; batches pass, and a batch with one bad proof names it;
//     timing of 16 single verifications against one batch of 16; randomly mutated files.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cuzk/verify.hpp"
#include "ec/pairing.hpp"
#include "groth16/encode.hpp"
#include "groth16/verifier.hpp"
#include "io/json.hpp"
#include "io/json_parse.hpp"
#include "testing.hpp"
#include "util/rng.hpp"
#include "util/time.hpp"

using namespace cuzk;
namespace bn = cuzk::ec::bignum;

namespace {

RandomSource rng_for(uint64_t tag) { return RandomSource(test::seed() ^ (tag * 0x9e3779b97f4a7c15ull)); }

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
void write_file(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary);
  out << data;
}
std::string tmp_path(const std::string& name) { return test::temp_dir() + "/" + name; }

const char* kCircuits[] = {"bits", "manypub", "mulchain", "poseidon"};

template <class E>
const char* curve_dir() {
  return E::id == CurveId::bn254 ? "bn254" : "bls12-381";
}
template <class E>
std::string fixture(const std::string& circuit, const std::string& file) {
  return test::fixtures_dir() + "/" + curve_dir<E>() + "/" + circuit + "/" + file;
}

bool contains(const std::string& s, const std::string& needle) { return s.find(needle) != std::string::npos; }

template <class E>
struct Suite {
  using P = ec::Pairing<E>;
  using GT = typename P::GT;
  using F6 = typename GT::F6;
  using Fq = typename E::Fq;
  using Fq2 = typename E::Fq2;
  using Fr = typename E::Fr;
  using G1 = typename E::G1Affine;
  using G2 = typename E::G2Affine;
  using G1Jac = typename E::G1Jac;
  using G2Jac = typename E::G2Jac;

  const char* name;
  uint64_t tag;

  Fq2 r2(RandomSource& rs) const { return {random_field<Fq>(rs), random_field<Fq>(rs)}; }
  F6 r6(RandomSource& rs) const { return {r2(rs), r2(rs), r2(rs)}; }
  GT r12(RandomSource& rs) const { return {r6(rs), r6(rs)}; }
  static GT embed6(const F6& a) { return {a, F6::zero()}; }
  static bn::Nat nat(const uint64_t* w, int n) { return bn::from_words(w, n); }
  static bn::Nat p_nat() { return nat(Fq::K.p.v, Fq::N); }
  static bn::Nat r_nat() { return nat(Fr::K.p.v, Fr::N); }
  static GT pow(const GT& a, const bn::Nat& e) { return e.empty() ? GT::one() : a.pow(e.data(), int(e.size())); }
  static Fq2 pow2(const Fq2& a, const bn::Nat& e) {
    Fq2 r = Fq2::one();
    for (size_t i = bn::bits(e); i-- > 0;) {
      r = r.sqr();
      if ((e[i / 64] >> (i % 64)) & 1) r = r * a;
    }
    return r;
  }

  // ------------------------------------------------------------ tower
  void tower_laws() const {
    RandomSource rs = rng_for(tag + 1);
    for (int it = 0; it < 20; ++it) {
      F6 a = r6(rs), b = r6(rs), c = r6(rs);
      CHECK(a * b == b * a);
      CHECK((a * b) * c == a * (b * c));
      CHECK(a * (b + c) == a * b + a * c);
      CHECK(a.sqr() == a * a);
      CHECK(a * a.inv() == F6::one());
      CHECK(a - a == F6::zero() && a + (-a) == F6::zero());
      Fq2 s0 = r2(rs), s1 = r2(rs);
      CHECK((a.mul_by_01(s0, s1) == a * F6{s0, s1, Fq2::zero()}));
      CHECK((a.mul_by_1(s1) == a * F6{Fq2::zero(), s1, Fq2::zero()}));
      CHECK((a.mul_by_v() == a * F6{Fq2::zero(), Fq2::one(), Fq2::zero()}));
      CHECK((a.mul_fp2(s0) == a * F6{s0, Fq2::zero(), Fq2::zero()}));

      GT x = r12(rs), y = r12(rs), z = r12(rs);
      CHECK(x * y == y * x);
      CHECK((x * y) * z == x * (y * z));
      CHECK(x * (y + z) == x * y + x * z);
      CHECK(x.sqr() == x * x);
      CHECK(x * x.inv() == GT::one());
      CHECK(x * GT::one() == x);
      Fq2 b0 = r2(rs), b1 = r2(rs), b2 = r2(rs);
      GT s034{{b0, Fq2::zero(), Fq2::zero()}, {b1, b2, Fq2::zero()}};
      GT s014{{b0, b1, Fq2::zero()}, {Fq2::zero(), b2, Fq2::zero()}};
      CHECK(x.mul_by_034(b0, b1, b2) == x * s034);
      CHECK(x.mul_by_014(b0, b1, b2) == x * s014);
    }
    // The tower's defining relations and that it is a field: xi is neither a square nor a cube
    // in Fp2 (so v^3 - xi and w^2 - v are irreducible).
    F6 v{Fq2::zero(), Fq2::one(), Fq2::zero()};
    Fq2 xi{Fq::from_u64(P::Tower::xi_c0), Fq::one()};
    CHECK((v * v * v == F6{xi, Fq2::zero(), Fq2::zero()}));
    GT w{F6::zero(), F6::one()};
    CHECK(w * w == embed6(v));
    CHECK((w.sqr().sqr() * w.sqr() == GT{{xi, Fq2::zero(), Fq2::zero()}, F6::zero()}));
    bn::Nat p2m1 = bn::sub(bn::mul(p_nat(), p_nat()), bn::Nat{1});
    bn::Nat rem;
    CHECK(!(pow2(xi, bn::divmod(p2m1, bn::Nat{2}, rem)) == Fq2::one()));
    CHECK(rem.empty());
    CHECK(!(pow2(xi, bn::divmod(p2m1, bn::Nat{3}, rem)) == Fq2::one()));
    CHECK(rem.empty());
  }

  void frobenius() const {
    RandomSource rs = rng_for(tag + 2);
    const bn::Nat p = p_nat();
    for (int it = 0; it < 3; ++it) {
      GT x = r12(rs);
      GT xp = pow(x, p);
      CHECK_MSG(x.frobenius(1) == xp, name << ": Frobenius(1) != x^p");
      CHECK(x.frobenius(2) == pow(xp, p));
      CHECK(x.frobenius(3) == x.frobenius(1).frobenius(1).frobenius(1));
      CHECK(x.frobenius(2) == x.frobenius(1).frobenius(1));
      CHECK(x.frobenius(6) == x.conj());
      CHECK(x.frobenius(12) == x);
      CHECK((x * x.frobenius(1)).frobenius(1) == x.frobenius(1) * x.frobenius(2));
      F6 a = r6(rs);
      CHECK_MSG(embed6(a.frobenius(1)) == pow(embed6(a), p), name << ": Fp6 Frobenius != x^p");
      CHECK(a.frobenius(2) == a.frobenius(1).frobenius(1));
      CHECK(a.frobenius(3) == a.frobenius(2).frobenius(1));
    }
  }

  void cyclotomic() const {
    RandomSource rs = rng_for(tag + 3);
    for (int it = 0; it < 10; ++it) {
      GT g = P::easy_part(r12(rs));
      // In the cyclotomic subgroup: g^(p^4 - p^2 + 1) = 1, so conj = inverse.
      CHECK(g * g.conj() == GT::one());
      CHECK_MSG(g.cyclotomic_sqr() == g.sqr(), name << ": cyclotomic squaring");
      uint64_t e = rs.next();
      CHECK(g.cyclotomic_pow_u64(e) == g.pow(ff::Limbs<1>{{e}}));
    }
  }

  // ------------------------------------------------------------ final exponentiation
  void final_exponentiation() const {
    RandomSource rs = rng_for(tag + 4);
    const bn::Nat m = P::hard_multiplier();
    // (p^4 - p^2 + 1) / r is exact (hard_exponent throws otherwise) and has the expected size.
    const size_t hb = bn::bits(P::hard_exponent());
    CHECK(hb > 4 * bn::bits(p_nat()) - bn::bits(r_nat()) - 2 && hb < 4 * bn::bits(p_nat()));
    for (int it = 0; it < 2; ++it) {
      GT f = r12(rs);
      GT slow = P::final_exponentiation_slow(f);
      GT fast = P::final_exponentiation(f);
      CHECK_MSG(!slow.is_one(), name);
      CHECK_MSG(pow(slow, r_nat()).is_one(), name << ": f^((p^12-1)/r) has order != r");
      CHECK_MSG(fast == pow(slow, m), name << ": fast final exponentiation != slow^m");
    }
  }

  // ------------------------------------------------------------ bilinearity
  G1 g1() const {
    if constexpr (E::id == CurveId::bn254)
      return ec::Bn254G1Cfg::generator();
    else
      return ec::Bls12381G1Cfg::generator();
  }
  G2 g2() const {
    if constexpr (E::id == CurveId::bn254)
      return ec::Bn254G2Cfg::generator();
    else
      return ec::Bls12381G2Cfg::generator();
  }
  G1 mul1(const G1& p, const Fr& k) const { return E::G1::mul(G1Jac::from_affine(p), k).to_affine(); }
  G2 mul2(const G2& q, const Fr& k) const { return E::G2::mul(G2Jac::from_affine(q), k).to_affine(); }

  void bilinearity() const {
    RandomSource rs = rng_for(tag + 5);
    GT base = P::pairing(g1(), g2());
    CHECK_MSG(!base.is_one(), name << ": e(G1, G2) = 1");
    CHECK_MSG(pow(base, r_nat()).is_one(), name << ": e(G1, G2)^r != 1");
    for (int it = 0; it < 3; ++it) {
      Fr a = random_field<Fr>(rs), b = random_field<Fr>(rs), c = random_field<Fr>(rs);
      G1 p = mul1(g1(), c);  // a random G1 point
      G2 q = g2();
      GT epq = P::pairing(p, q);
      GT lhs = P::pairing(mul1(p, a), mul2(q, b));
      GT rhs = epq.pow((a * b).to_std());
      CHECK_MSG(lhs == rhs, name << ": e(aP, bQ) != e(P, Q)^(ab)");
      CHECK(P::pairing(mul1(p, a), q) == P::pairing(p, mul2(q, a)));
      CHECK(P::pairing(p.neg(), q) == epq.conj());
      CHECK(P::pairing(p, q.neg()) == epq.conj());
      // e(P1 + P2, Q) = e(P1, Q) e(P2, Q), and the shared Miller loop of a product.
      G1 p2 = mul1(g1(), b);
      G1 sum = (G1Jac::from_affine(p) + G1Jac::from_affine(p2)).to_affine();
      CHECK(P::pairing(sum, q) == epq * P::pairing(p2, q));
      G2 q2 = mul2(g2(), a);
      auto qp = P::prepare(q), q2p = P::prepare(q2);
      typename P::Term terms[2] = {{p, &qp}, {p2, &q2p}};
      CHECK(P::final_exponentiation(P::miller_loop(terms, 2)) == epq * P::pairing(p2, q2));
      // e(aP, Q) e(-P, aQ) = 1 with one final exponentiation.
      auto aq = P::prepare(mul2(q, a));
      typename P::Term t2[2] = {{mul1(p, a), &qp}, {p.neg(), &aq}};
      CHECK(P::product_is_one(t2, 2));
      typename P::Term t3[2] = {{mul1(p, a), &qp}, {p, &aq}};
      CHECK(!P::product_is_one(t3, 2));
    }
    // Infinity on either side pairs to 1.
    CHECK(P::pairing(G1::infinity(), g2()).is_one());
    CHECK(P::pairing(g1(), G2::infinity()).is_one());
  }

  // ------------------------------------------------------------ subgroup tests
  template <class F>
  static F rand_coord(RandomSource& rs) {
    if constexpr (requires { typename F::Base; })
      return F{random_field<typename F::Base>(rs), random_field<typename F::Base>(rs)};
    else
      return random_field<F>(rs);
  }
  // A random point of the whole curve group (almost surely outside the subgroup when h > 1).
  template <class C>
  static ec::Affine<typename C::F> random_curve_point(RandomSource& rs, const typename C::F& b) {
    using F = typename C::F;
    for (;;) {
      F x = rand_coord<F>(rs);
      F y;
      if ((x.sqr() * x + b).sqrt(y)) return {x, y};
    }
  }
  static Fq2 twist_b() { return P::G2Cfg::b(); }
  static Fq g1_b() { return Fq::from_u64(E::id == CurveId::bn254 ? 3 : 4); }

  void subgroup_checks(G1* off_g1, G2* off_g2) const {
    RandomSource rs = rng_for(tag + 6);
    int outside1 = 0, outside2 = 0;
    for (int it = 0; it < 6; ++it) {
      G1 p = random_curve_point<typename E::G1>(rs, g1_b());
      CHECK(E::G1::on_curve(p));
      bool naive = E::G1::template in_subgroup<Fr>(p);
      CHECK_MSG(P::g1_in_subgroup(p) == naive, name << ": G1 endomorphism test disagrees with [r]P = O");
      if (!naive) {
        ++outside1;
        if (off_g1) *off_g1 = p;
      }
      G2 q = random_curve_point<typename E::G2>(rs, twist_b());
      CHECK(E::G2::on_curve(q));
      bool naive2 = E::G2::template in_subgroup<Fr>(q);
      CHECK_MSG(P::g2_in_subgroup(q) == naive2, name << ": G2 endomorphism test disagrees with [r]Q = O");
      if (!naive2) {
        ++outside2;
        if (off_g2) *off_g2 = q;
      }
      // Subgroup points pass.
      Fr k = random_field<Fr>(rs);
      CHECK(P::g1_in_subgroup(mul1(g1(), k)));
      CHECK(P::g2_in_subgroup(mul2(g2(), k)));
      // psi acts on G2 as multiplication by p mod r.
      G2 s = mul2(g2(), k);
      bn::Nat rem;
      bn::divmod(p_nat(), r_nat(), rem);
      ff::Limbs<4> pr{};
      for (size_t i = 0; i < rem.size(); ++i) pr.v[i] = rem[i];
      CHECK(P::psi(s) == E::G2::mul(G2Jac::from_affine(s), pr.v).to_affine());
    }
    if (E::id == CurveId::bn254)
      CHECK(outside1 == 0);  // cofactor 1
    else
      CHECK(outside1 == 6);
    CHECK(outside2 == 6);
    if constexpr (E::id == CurveId::bls12_381) {
      // Subgroup point + a point of small order l (l = 3, 11 divide the G1 cofactor h):
      // T = [r h / l^k]R for a random curve point R (l^k the full power of l in h), then
      // multiplied by l until the next multiple would be O: a point of order exactly l.
      const uint64_t h[2] = {0x8c00aaab0000aaabull, 0x396c8c005555e156ull};
      for (uint64_t l : {3ull, 11ull}) {
        bn::Nat hl = bn::from_words(h, 2), rem;
        for (;;) {
          bn::Nat q = bn::divmod(hl, bn::Nat{l}, rem);
          if (!rem.empty()) break;
          hl = q;
        }
        CHECK(bn::cmp(hl, bn::from_words(h, 2)) < 0);
        uint64_t hw[2] = {hl.size() > 0 ? hl[0] : 0, hl.size() > 1 ? hl[1] : 0};
        uint64_t lw[1] = {l};
        G1 t;
        for (;;) {
          G1 r = random_curve_point<typename E::G1>(rs, g1_b());
          auto rr = E::G1::mul(G1Jac::from_affine(r), Fr::K.p.v);
          auto tj = E::G1::mul(rr, hw);
          if (tj.is_inf()) continue;
          for (auto next = E::G1::mul(tj, lw); !next.is_inf(); next = E::G1::mul(tj, lw)) tj = next;
          t = tj.to_affine();
          break;
        }
        CHECK(E::G1::mul(G1Jac::from_affine(t), lw).is_inf());
        G1 s = (G1Jac::from_affine(mul1(g1(), random_field<Fr>(rs))) + G1Jac::from_affine(t)).to_affine();
        CHECK(!E::G1::template in_subgroup<Fr>(s));
        CHECK_MSG(!P::g1_in_subgroup(s), name << ": G1 point with a torsion component of order " << l << " accepted");
      }
    }
  }
};

const Suite<ec::Bn254> kBn{"bn254", 100};
const Suite<ec::Bls12381> kBls{"bls12-381", 200};

}  // namespace

CUZK_TEST(pairing_bn254_tower_laws) { kBn.tower_laws(); }
CUZK_TEST(pairing_bls12_381_tower_laws) { kBls.tower_laws(); }
CUZK_TEST(pairing_bn254_frobenius) { kBn.frobenius(); }
CUZK_TEST(pairing_bls12_381_frobenius) { kBls.frobenius(); }
CUZK_TEST(pairing_bn254_cyclotomic) { kBn.cyclotomic(); }
CUZK_TEST(pairing_bls12_381_cyclotomic) { kBls.cyclotomic(); }
CUZK_TEST(pairing_bn254_final_exponentiation) { kBn.final_exponentiation(); }
CUZK_TEST(pairing_bls12_381_final_exponentiation) { kBls.final_exponentiation(); }
CUZK_TEST(pairing_bn254_bilinearity) { kBn.bilinearity(); }
CUZK_TEST(pairing_bls12_381_bilinearity) { kBls.bilinearity(); }
CUZK_TEST(pairing_bn254_subgroup_checks) { kBn.subgroup_checks(nullptr, nullptr); }
CUZK_TEST(pairing_bls12_381_subgroup_checks) { kBls.subgroup_checks(nullptr, nullptr); }

// ================================================================ e(G1, G2), a known answer

namespace {

// e(G1, G2) as snarkjs computes it (ffjavascript 0.3 in tools/js: `curve.Gt.toObject(
// curve.pairing(curve.G1.g, curve.G2.g))`), flattened in the order of snarkjs's GT layout
// [[c0.c0, c0.c1, c0.c2], [c1.c0, c1.c1, c1.c2]], each an Fp2 [a, b].
const char* const kBnGenPairing[12] = {"17264119758069723980713015158403419364912226240334615592005620718956030922389",
                                       "1300711225518851207585954685848229181392358478699795190245709208408267917898",
                                       "8894217292938489450175280157304813535227569267786222825147475294561798790624",
                                       "1829859855596098509359522796979920150769875799037311140071969971193843357227",
                                       "4968700049505451466697923764727215585075098085662966862137174841375779106779",
                                       "12814315002058128940449527172080950701976819591738376253772993495204862218736",
                                       "4233474252585134102088637248223601499779641130562251948384759786370563844606",
                                       "9420544134055737381096389798327244442442230840902787283326002357297404128074",
                                       "13457906610892676317612909831857663099224588803620954529514857102808143524905",
                                       "5122435115068592725432309312491733755581898052459744089947319066829791570839",
                                       "8891987925005301465158626530377582234132838601606565363865129986128301774627",
                                       "440796048150724096437130979851431985500142692666486515369083499585648077975"};
const char* const kBlsGenPairing[12] = {
    "281910560595369124527780305632268408688470300047396106571648550603358850420383102906644864235804259750101429410450"
    "2",
    "132396823298699674257131520615140596510424254233968072216422090081230352433462837016336615383998419629868522773479"
    "9",
    "298733504972131250442860298844761632883034172237696221401167487596905283504387565857942554851292563404014470419213"
    "5",
    "387972358245255245253868431447908196750211149741307659881616375902884292766832754287510845775596641788179796627131"
    "1",
    "26150818251799700317138574337465333918605951849423954313983902587887001261497530267629670493088098223830832668125"
    "3",
    "23148899224646045966381359834244866985447394210505438151134678671900588334087603204360673907088309964777379317061"
    "4",
    "399358209551642265877366906893136113418873815976671557618749030561175912655479656986805381810585066114222294819855"
    "7",
    "107477351169842234450226400615985971050216404591141275083164168078301252555587246710824927128675739912118350890063"
    "4",
    "272758829908354568673902431799851274056116701104694024998855741932306880901913762494370391026779060128707333919394"
    "3",
    "49364329981443764091474567785436967004108034434960750465654335579907748553628886600924502809198814610705951454659"
    "4",
    "73440133219664144183943910594262314123414895797240778225735506022919385432492741786540189559610812444357528386865"
    "5",
    "234833009828855642091867250292366495262015248312859348430175939458332035835418648272362999937024167497383231824849"
    "7"};

template <class E>
void generator_pairing_known_answer(const char* const (&expect)[12]) {
  using P = ec::Pairing<E>;
  typename P::GT g = P::pairing(Suite<E>{"", 0}.g1(), Suite<E>{"", 0}.g2());
  typename E::Fq2* cs[6] = {&g.c0.c0, &g.c0.c1, &g.c0.c2, &g.c1.c0, &g.c1.c1, &g.c1.c2};
  for (int i = 0; i < 6; ++i) {
    CHECK_MSG(groth16::dec(cs[i]->c0) == expect[2 * i], curve_dir<E>() << ": e(G1, G2) coefficient " << 2 * i);
    CHECK_MSG(groth16::dec(cs[i]->c1) == expect[2 * i + 1], curve_dir<E>() << ": e(G1, G2) coefficient " << 2 * i + 1);
  }
}

}  // namespace

CUZK_TEST(pairing_bn254_generator_known_answer) { generator_pairing_known_answer<ec::Bn254>(kBnGenPairing); }
CUZK_TEST(pairing_bls12_381_generator_known_answer) { generator_pairing_known_answer<ec::Bls12381>(kBlsGenPairing); }

// ================================================================ the strict JSON parser

namespace {

std::string json_error(const std::string& text) {
  try {
    io::parse_json(text);
  } catch (const io::JsonError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

CUZK_TEST(json_parse_accepts_valid_documents) {
  io::Json j = io::parse_json(
      " {\"a\": [1, -2.5e3, 0, 0.5E-2, true, false, null, \"x\\u00e9\\ud83d\\ude00\\n\\\"\\/\"],\n"
      "  \"b\": {}, \"c\": [], \"d\": \"caf\xc3\xa9\", \"n\": 18446744073709551615} ");
  CHECK(j.is_object() && j.fields.size() == 5);
  const io::Json* a = j.find("a");
  CHECK(a && a->is_array() && a->items.size() == 8);
  CHECK(a->items[0].is_number() && a->items[0].as_u64() == 1u);
  CHECK(a->items[1].is_number() && a->items[1].text == "-2.5e3" && !a->items[1].as_u64());
  CHECK(a->items[4].is_bool() && a->items[4].boolean && a->items[5].is_bool() && !a->items[5].boolean);
  CHECK(a->items[6].is_null());
  CHECK(a->items[7].is_string() && a->items[7].text == "x\xc3\xa9\xf0\x9f\x98\x80\n\"/");
  CHECK(j.find("b")->is_object() && j.find("c")->is_array() && j.find("d")->text == "caf\xc3\xa9");
  CHECK(j.find("n")->as_u64() == 18446744073709551615ull);
  CHECK(!io::parse_json("18446744073709551616").as_u64());
  CHECK(a->line == 1 && a->column == 8);
  CHECK(j.find("b")->line == 2);
  CHECK(io::parse_json("\"\"").is_string());
  CHECK(io::parse_json("[[[]]]").items[0].items[0].is_array());
  // Every fixture JSON file parses.
  int files = 0;
  for (auto& e : std::filesystem::recursive_directory_iterator(test::fixtures_dir()))
    if (e.path().extension() == ".json") {
      io::parse_json_file(e.path().string());
      ++files;
    }
  CHECK(files >= 8 * 7);
  std::printf("  parsed %d fixture JSON files\n", files);
}

CUZK_TEST(json_parse_rejects_with_line_and_column) {
  struct Case {
    const char* text;
    const char* needle;
  };
  const Case cases[] = {
      {"", "line 1, column 1: empty input"},
      {"   \n  ", "line 2, column 3: empty input"},
      {"{\"a\": [1,]\n}", "line 1, column 10: trailing comma before ']'"},
      {"{\n  \"a\": 1,\n}", "line 3, column 1: trailing comma before '}'"},
      {"{\"a\": 1, \"a\": 2}", "line 1, column 10: duplicate key \"a\""},
      {"[01]", "line 1, column 3: invalid number: leading zero"},
      {"[+1]", "unexpected character '+'"},
      {"[1.]", "expected a digit after '.'"},
      {"[1e]", "expected a digit in the exponent"},
      {"[-]", "invalid number"},
      {"[NaN]", "unexpected character 'N'"},
      {"\xEF\xBB\xBF{}", "byte-order mark"},
      {"[\"a\tb\"]", "unescaped control byte 0x09"},
      {"[\"\\x\"]", "invalid escape '\\x'"},
      {"[\"\\ud800\"]", "high surrogate not followed"},
      {"[\"\\udc00\"]", "unpaired low surrogate"},
      {"[\"\\u12g4\"]", "not a hex digit"},
      {"[\"\xff\"]", "invalid UTF-8"},
      {"[\"\xc0\xaf\"]", "invalid UTF-8"},      // overlong '/'
      {"[\"\xed\xa0\x80\"]", "invalid UTF-8"},  // an encoded surrogate
      {"[\"abc", "unterminated string"},
      {"{\"a\" 1}", "expected ':'"},
      {"{1: 2}", "expected a string key"},
      {"{'a': 1}", "expected a string key"},
      {"[1 2]", "expected ',' or ']'"},
      {"{\"a\": 1 \"b\": 2}", "expected ',' or '}'"},
      {"[1]]", "line 1, column 4: unexpected character ']' after the JSON value"},
      {"{} // comment", "after the JSON value"},
      {"[tru]", "invalid literal (expected 'true')"},
      {"nul", "invalid literal (expected 'null')"},
      {"[1,\n2,\n", "line 3, column 1: unexpected end of input"},
  };
  for (const Case& c : cases) {
    std::string e = json_error(c.text);
    CHECK_MSG(contains(e, c.needle), "input '" << c.text << "': error '" << e << "' lacks '" << c.needle << "'");
  }
  std::string deep(300, '[');
  CHECK(contains(json_error(deep + std::string(300, ']')), "nesting deeper than 256"));
  std::string ok(200, '[');
  CHECK(io::parse_json(ok + std::string(200, ']')).is_array());
  // Files: the error names the file, and the position.
  std::string path = tmp_path("bad.json");
  write_file(path, "{\n  \"pi_a\": [\"1\",\n}");
  CHECK_THROWS_WITH(io::parse_json_file(path), FormatError, path + ": invalid JSON: line 3, column 1");
  CHECK_THROWS_WITH(io::parse_json_file(tmp_path("missing.json")), FormatError, "cannot open");
}

// ================================================================ the verifier

namespace {

template <class E>
groth16::VerifyingKey<E> load_vk(const std::string& path) {
  return groth16::vk_from_json<E>(io::parse_json_file(path), path);
}
template <class E>
groth16::VerifyProof<E> load_proof(const std::string& path) {
  return groth16::proof_from_json<E>(io::parse_json_file(path), path);
}
template <class E>
groth16::PublicInputs load_public(const std::string& path, uint32_t n) {
  return groth16::public_from_json<E>(io::parse_json_file(path), path, n);
}

template <class E>
std::string proof_text(const groth16::VerifyProof<E>& p) {
  auto o = io::JsonValue::object();
  o.add("pi_a", groth16::g1_json(p.a));
  o.add("pi_b", groth16::g2_json(p.b));
  o.add("pi_c", groth16::g1_json(p.c));
  o.add("protocol", io::JsonValue::string("groth16"));
  o.add("curve", io::JsonValue::string(curve_snarkjs_name(E::id)));
  return io::to_json(o);
}
std::string public_text(const std::vector<std::string>& values) {
  auto a = io::JsonValue::array();
  for (auto& v : values) a.items.push_back(io::JsonValue::string(v));
  return io::to_json(a);
}
std::string public_text(const groth16::PublicInputs& pub) {
  std::vector<std::string> v;
  for (auto& x : pub) v.push_back(io::to_decimal(x.v, 4));
  return public_text(v);
}

// A different valid proof of the same statement: A' = A/t, B' = t B + t s delta, C' = C + s A
// (e(A', B') = e(A, B) e(sA, delta) and e(C', delta) = e(C, delta) e(sA, delta)).
template <class E>
groth16::VerifyProof<E> rerandomize(const groth16::VerifyProof<E>& p, const groth16::VerifyingKey<E>& vk,
                                    RandomSource& rs) {
  using Fr = typename E::Fr;
  using G1Jac = typename E::G1Jac;
  using G2Jac = typename E::G2Jac;
  Fr t = random_field<Fr>(rs), s = random_field<Fr>(rs);
  groth16::VerifyProof<E> q;
  q.a = E::G1::mul(G1Jac::from_affine(p.a), t.inv()).to_affine();
  q.b = (E::G2::mul(G2Jac::from_affine(p.b), t) + E::G2::mul(G2Jac::from_affine(vk.delta), t * s)).to_affine();
  q.c = (G1Jac::from_affine(p.c) + E::G1::mul(G1Jac::from_affine(p.a), s)).to_affine();
  return q;
}

template <class E>
void expect_rejected(const std::string& vk, const std::string& pub, const std::string& proof, const std::string& needle,
                     bool malformed = false) {
  VerifyResult r = verify_files(vk, pub, proof);
  CHECK_MSG(!r.valid, "accepted: " << pub << " / " << proof);
  CHECK_MSG(contains(r.error, needle), "error '" << r.error << "' lacks '" << needle << "'");
  CHECK_MSG(r.malformed == malformed, "malformed = " << r.malformed << " for '" << r.error << "'");
}

template <class E>
void known_answer_alphabeta() {
  int keys = 0;
  for (const char* c : kCircuits) {
    for (const char* f : {"verification_key.json", "verification_key_setup.json"}) {
      std::string path = fixture<E>(c, f);
      if (!std::filesystem::exists(path)) continue;
      auto vk = load_vk<E>(path);
      CHECK_MSG(vk.alphabeta.has_value(), path);
      CHECK_MSG(groth16::vk_alphabeta_matches(vk), path << ": e(alpha, beta) != vk_alphabeta_12");
      // And the textbook pairing differs from snarkjs's by the known power m.
      using P = ec::Pairing<E>;
      typename P::Term t{vk.alpha, &vk.beta_p};
      auto slow = P::final_exponentiation_slow(P::miller_loop(&t, 1));
      auto m = P::hard_multiplier();
      CHECK(slow.pow(m.data(), int(m.size())) == *vk.alphabeta);
      ++keys;
    }
  }
  CHECK(keys == 5);
  std::printf("  %s: e(alpha, beta) == vk_alphabeta_12 for %d keys\n", curve_dir<E>(), keys);
}

template <class E>
void fixtures_verify() {
  int n = 0;
  for (const char* c : kCircuits) {
    std::string vk = fixture<E>(c, "verification_key.json");
    for (auto [pub, proof] : {std::pair{"public.json", "proof.json"}, std::pair{"public2.json", "proof2.json"}}) {
      VerifyResult r = verify_files(vk, fixture<E>(c, pub), fixture<E>(c, proof));
      CHECK_MSG(r.valid && r.error.empty(), c << "/" << proof << ": " << r.error);
      ++n;
    }
    // Swapped statements do not verify.
    VerifyResult x = verify_files(vk, fixture<E>(c, "public2.json"), fixture<E>(c, "proof.json"));
    CHECK_MSG(!x.valid && contains(x.error, "pairing check failed"), c << ": " << x.error);
  }
  VerifyResult s = verify_files(fixture<E>("mulchain", "verification_key_setup.json"),
                                fixture<E>("mulchain", "public.json"), fixture<E>("mulchain", "proof_setup.json"));
  CHECK_MSG(s.valid, s.error);
  ++n;
  std::printf("  %s: %d snarkjs proofs verify\n", curve_dir<E>(), n);
}

template <class E>
void tampered() {
  using Fq = typename E::Fq;
  using Fr = typename E::Fr;
  const std::string c = "mulchain";
  const std::string vk = fixture<E>(c, "verification_key.json");
  const std::string pub = fixture<E>(c, "public.json");
  const std::string prf = fixture<E>(c, "proof.json");
  const std::string tag = std::string(curve_dir<E>()) + "_";
  auto key = load_vk<E>(vk);
  auto proof = load_proof<E>(prf);
  auto inputs = load_public<E>(pub, key.n_public);
  CHECK(inputs.size() == 2);
  auto put = [&](const std::string& name, const std::string& text) {
    std::string p = tmp_path(tag + name);
    write_file(p, text);
    return p;
  };
  auto dec = [](const auto& f) { return groth16::dec(f); };

  // 1. A public input changed.
  {
    auto p2 = inputs;
    p2[1] = (Fr::from_std(p2[1]) + Fr::one()).to_std();
    expect_rejected<E>(vk, put("pub_changed.json", public_text(p2)), prf, "pairing check failed");
  }
  // 2. A proof coordinate changed: off the curve.
  {
    auto q = proof;
    q.a.x = q.a.x + Fq::one();
    std::string path = put("off_curve.json", proof_text(q));
    expect_rejected<E>(vk, pub, path, path + ": pi_a is not on the curve");
    q = proof;
    q.b.y.c1 = q.b.y.c1 + Fq::one();
    expect_rejected<E>(vk, pub, put("off_curve_b.json", proof_text(q)), "pi_b is not on the curve");
  }
  // 3. pi_c replaced by pi_a.
  {
    auto q = proof;
    q.c = q.a;
    expect_rejected<E>(vk, pub, put("c_is_a.json", proof_text(q)), "pairing check failed");
  }
  // 4. The proof against another circuit's key (poseidon also has 2 public inputs).
  expect_rejected<E>(fixture<E>("poseidon", "verification_key.json"), pub, prf, "pairing check failed");
  // 5. Public inputs >= r: r itself, and x + r (the same value mod r; snarkjs rejects it too).
  {
    std::vector<std::string> v = {io::to_decimal(Fr::K.p.v, 4), io::to_decimal(inputs[1].v, 4)};
    expect_rejected<E>(vk, put("pub_r.json", public_text(v)), prf,
                       "field [0]: public input " + v[0] + " is not less than the scalar field modulus r");
    bn::Nat plus = bn::add(bn::from_words(inputs[0].v, 4), bn::from_words(Fr::K.p.v, 4));
    v[0] = io::to_decimal(plus.data(), int(plus.size()));
    expect_rejected<E>(vk, put("pub_plus_r.json", public_text(v)), prf, "is not less than the scalar field modulus r");
  }
  // 6. Wrong number of public inputs.
  {
    std::vector<std::string> v = {io::to_decimal(inputs[0].v, 4), io::to_decimal(inputs[1].v, 4), "1"};
    expect_rejected<E>(vk, put("pub_3.json", public_text(v)), prf,
                       "has 3 public inputs; the verification key expects nPublic = 2");
    v.resize(1);
    expect_rejected<E>(vk, put("pub_1.json", public_text(v)), prf,
                       "has 1 public input; the verification key expects nPublic = 2");
  }
  // 7. Points on the curve but outside the prime-order subgroup (snarkjs accepts those).
  {
    typename Suite<E>::G1 off1 = E::G1Affine::infinity();
    typename Suite<E>::G2 off2 = E::G2Affine::infinity();
    Suite<E>{"tamper", 900 + uint64_t(E::id)}.subgroup_checks(&off1, &off2);
    CHECK(!off2.is_inf() && E::G2::on_curve(off2));
    auto q = proof;
    q.b = off2;
    expect_rejected<E>(vk, pub, put("b_not_g2.json", proof_text(q)),
                       "pi_b is on the curve but not in the prime-order subgroup G2 of " + std::string(curve_dir<E>()) +
                           " (cuzk checks subgroup membership, which snarkjs does not)");
    if constexpr (E::id == CurveId::bls12_381) {
      CHECK(!off1.is_inf() && E::G1::on_curve(off1));
      q = proof;
      q.a = off1;
      expect_rejected<E>(vk, pub, put("a_not_g1.json", proof_text(q)),
                         "pi_a is on the curve but not in the prime-order subgroup G1 of bls12-381");
      q = proof;
      q.c = off1;
      expect_rejected<E>(vk, pub, put("c_not_g1.json", proof_text(q)),
                         "pi_c is on the curve but not in the prime-order subgroup G1");
    }
  }
  // 8. A coordinate >= q (x + q: the same point to snarkjs, which reduces).
  {
    std::string text = proof_text(proof);
    bn::Nat xq = bn::add(bn::from_words(proof.a.x.to_std().v, Fq::N), bn::from_words(Fq::K.p.v, Fq::N));
    std::string x = dec(proof.a.x);
    text.replace(text.find(x), x.size(), io::to_decimal(xq.data(), int(xq.size())));
    expect_rejected<E>(vk, pub, put("x_plus_q.json", text),
                       "x_plus_q.json: field pi_a[0]: " + io::to_decimal(xq.data(), int(xq.size())).substr(0, 40));
    expect_rejected<E>(vk, pub, put("x_plus_q.json", text), "is not less than the base field modulus q");
  }
  // 9. Malformed files: bad JSON, a missing field, a number instead of a string, bad z.
  {
    std::string text = proof_text(proof);
    expect_rejected<E>(vk, pub, put("truncated.json", text.substr(0, text.size() / 2)), "invalid JSON: line", true);
    std::string no_c = text;
    no_c.replace(no_c.find("\"pi_c\""), 6, "\"pi_d\"");
    expect_rejected<E>(vk, pub, put("no_c.json", no_c), "field pi_c: missing", true);
    std::string x = dec(proof.a.x);
    std::string num = text;
    num.replace(num.find("\"" + x + "\""), x.size() + 2, "12");
    expect_rejected<E>(vk, pub, put("num.json", num), "field pi_a[0]: expected a decimal string, found a number", true);
    std::string hex = text;
    hex.replace(hex.find(x), x.size(), "0x12");
    expect_rejected<E>(vk, pub, put("hex.json", hex), "field pi_a[0]: expected decimal digits only", true);
    expect_rejected<E>(vk, put("pub_obj.json", "{}"), prf, "expected a JSON array", true);
    expect_rejected<E>(vk, pub, tmp_path("does-not-exist.json"), "cannot open", true);
    expect_rejected<E>(tmp_path("no-vk.json"), pub, prf, "no-vk.json: cannot open", true);
  }
  // 10. A proof for the other curve, a vk whose IC does not match nPublic, a non-Groth16 proof.
  {
    const char* other = E::id == CurveId::bn254 ? "bls12-381" : "bn254";
    std::string other_proof = test::fixtures_dir() + "/" + other + "/mulchain/proof.json";
    expect_rejected<E>(vk, pub, other_proof,
                       std::string("proof.json: curve is \"") + (E::id == CurveId::bn254 ? "bls12381" : "bn128") +
                           "\" but the verification key is for " + curve_snarkjs_name(E::id));
    std::string vk_text = read_file(vk);
    size_t at = vk_text.find("\"nPublic\": 2");
    CHECK(at != std::string::npos);
    vk_text.replace(at, 12, "\"nPublic\": 3");
    expect_rejected<E>(put("vk_ic.json", vk_text), pub, prf,
                       "field IC: has 3 points; nPublic = 3 needs nPublic + 1 = 4", true);
    std::string plonk = proof_text(proof);
    plonk.replace(plonk.find("\"groth16\""), 9, "\"plonk\"");
    expect_rejected<E>(vk, pub, put("plonk.json", plonk), "protocol is \"plonk\"");
  }
  // 11. Proof points at infinity are in the subgroup and are accepted as input, but fail the check.
  {
    auto q = proof;
    q.a = E::G1Affine::infinity();
    expect_rejected<E>(vk, pub, put("a_inf.json", proof_text(q)), "pairing check failed");
  }
  std::printf("  %s: every tampered input rejected with its reason\n", curve_dir<E>());
}

template <class E>
void batches() {
  RandomSource rs = rng_for(700 + uint64_t(E::id));
  const std::string tag = std::string(curve_dir<E>()) + "_batch_";
  // All fixture proofs of each key at once.
  for (const char* c : kCircuits) {
    BatchInfo info;
    auto rs2 = verify_batch(fixture<E>(c, "verification_key.json"),
                            {{fixture<E>(c, "public.json"), fixture<E>(c, "proof.json")},
                             {fixture<E>(c, "public2.json"), fixture<E>(c, "proof2.json")}},
                            &info);
    CHECK(rs2.size() == 2 && rs2[0].valid && rs2[1].valid);
    CHECK(info.parsed_ok == 2 && info.batch_passed && !info.fell_back);
  }
  // Distinct valid proofs by re-randomization, one invalid one (a wrong statement) and one
  // unreadable one: the batch names exactly those two.
  const std::string c = "bits";
  const std::string vk_path = fixture<E>(c, "verification_key.json");
  auto vk = load_vk<E>(vk_path);
  auto p1 = load_proof<E>(fixture<E>(c, "proof.json"));
  auto p2 = load_proof<E>(fixture<E>(c, "proof2.json"));
  std::vector<std::pair<std::string, std::string>> items;
  const size_t bad = 4, missing = 6;
  for (size_t i = 0; i < 8; ++i) {
    bool second = i % 2 == 1;
    auto q = rerandomize<E>(second ? p2 : p1, vk, rs);
    std::string pub = fixture<E>(c, second ? "public2.json" : "public.json");
    if (i == bad) pub = fixture<E>(c, "public2.json");  // proof of public.json's statement
    std::string path = tmp_path(tag + std::to_string(i) + ".json");
    write_file(path, proof_text(q));
    if (i == missing) path = tmp_path(tag + "missing.json");
    items.push_back({pub, path});
  }
  BatchInfo info;
  auto res = verify_batch(vk_path, items, &info);
  CHECK(res.size() == items.size());
  for (size_t i = 0; i < res.size(); ++i) {
    CHECK(res[i].public_path == items[i].first && res[i].proof_path == items[i].second);
    if (i == bad)
      CHECK_MSG(!res[i].valid && contains(res[i].error, "pairing check failed"), res[i].error);
    else if (i == missing)
      CHECK_MSG(!res[i].valid && res[i].malformed && contains(res[i].error, "cannot open"), res[i].error);
    else
      CHECK_MSG(res[i].valid, i << ": " << res[i].error);
  }
  CHECK(info.parsed_ok == 7 && !info.batch_passed && info.fell_back);
  // Without the bad one, the batch passes at once.
  items.erase(items.begin() + bad);
  res = verify_batch(vk_path, items, &info);
  for (size_t i = 0; i < res.size(); ++i) CHECK(res[i].valid == (i != missing - 1));
  CHECK(info.parsed_ok == 6 && info.batch_passed && !info.fell_back);
  // Why the coefficients must be random: two invalid proofs whose errors cancel in the sum
  // (C + D and C' - D) pass a batch with all coefficients 1, and fail with random ones.
  {
    using G1Jac = typename E::G1Jac;
    auto pub1 = load_public<E>(fixture<E>(c, "public.json"), vk.n_public);
    auto pub2 = load_public<E>(fixture<E>(c, "public2.json"), vk.n_public);
    auto d = E::G1::mul(G1Jac::from_affine(Suite<E>{"", 0}.g1()), random_field<typename E::Fr>(rs));
    auto x1 = p1, x2 = p2;
    x1.c = (G1Jac::from_affine(p1.c) + d).to_affine();
    x2.c = (G1Jac::from_affine(p2.c) + d.neg()).to_affine();
    CHECK(!groth16::verify_proof(vk, pub1, x1) && !groth16::verify_proof(vk, pub2, x2));
    std::vector<groth16::BatchItem<E>> b = {{&pub1, &x1}, {&pub2, &x2}};
    std::vector<groth16::BatchCoeff> ones = {{1, 0}, {1, 0}};
    CHECK(groth16::batch_check(vk, b, &ones));
    CHECK(!groth16::batch_check(vk, b));
    std::vector<groth16::BatchItem<E>> good = {{&pub1, &p1}, {&pub2, &p2}};
    CHECK(groth16::batch_check(vk, good));
  }
  std::printf("  %s: batches pass; a bad proof and an unreadable file are named\n", curve_dir<E>());
}

template <class E>
void timing(const char* c, double* ratio_out) {
  RandomSource rs = rng_for(800 + uint64_t(E::id));
  const size_t n = 16;
  const std::string vk_path = fixture<E>(c, "verification_key.json");
  auto vk = load_vk<E>(vk_path);
  auto p1 = load_proof<E>(fixture<E>(c, "proof.json"));
  auto p2 = load_proof<E>(fixture<E>(c, "proof2.json"));
  auto pub1 = load_public<E>(fixture<E>(c, "public.json"), vk.n_public);
  auto pub2 = load_public<E>(fixture<E>(c, "public2.json"), vk.n_public);
  std::vector<groth16::VerifyProof<E>> proofs;
  std::vector<std::pair<std::string, std::string>> files;
  for (size_t i = 0; i < n; ++i) {
    bool second = i % 2 == 1;
    proofs.push_back(rerandomize<E>(second ? p2 : p1, vk, rs));
    std::string path = tmp_path(std::string(curve_dir<E>()) + "_" + c + "_t" + std::to_string(i) + ".json");
    write_file(path, proof_text(proofs.back()));
    files.push_back({fixture<E>(c, second ? "public2.json" : "public.json"), path});
  }
  // In memory: parsed key, proofs and inputs; the best of 3 runs (the machine may be shared).
  std::vector<groth16::BatchItem<E>> items;
  for (size_t i = 0; i < n; ++i) items.push_back({i % 2 ? &pub2 : &pub1, &proofs[i]});
  double single_ms = 1e300, batch_ms = 1e300;
  for (int rep = 0; rep < 3; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    for (size_t i = 0; i < n; ++i) CHECK(groth16::verify_proof(vk, i % 2 ? pub2 : pub1, proofs[i]));
    single_ms = std::min(single_ms, ms_since(t0));
    t0 = std::chrono::steady_clock::now();
    CHECK(groth16::batch_check(vk, items));
    batch_ms = std::min(batch_ms, ms_since(t0));
  }
  // Files: 16 x verify_files against one verify_batch (parsing and point checks included).
  auto t0 = std::chrono::steady_clock::now();
  for (auto& [pub, prf] : files) CHECK(verify_files(vk_path, pub, prf).valid);
  double files_single_ms = ms_since(t0);
  BatchInfo info;
  t0 = std::chrono::steady_clock::now();
  auto res = verify_batch(vk_path, files, &info);
  double files_batch_ms = ms_since(t0);
  for (auto& r : res) CHECK(r.valid);
  CHECK(info.batch_passed);
  std::printf(
      "  %-9s %-8s nPublic %2u: in memory 16 x verify_proof %6.1f ms (%4.2f ms each), batch_check of 16 "
      "%5.1f ms: %4.1fx | files: 16 x verify_files %6.1f ms, verify_batch %5.1f ms (parse+point checks %5.1f, "
      "pairings %5.1f): %4.1fx\n",
      curve_dir<E>(), c, vk.n_public, single_ms, single_ms / n, batch_ms, single_ms / batch_ms, files_single_ms,
      files_batch_ms, info.parse_ms, info.check_ms, files_single_ms / files_batch_ms);
  if (ratio_out) *ratio_out = single_ms / batch_ms;
}

}  // namespace

CUZK_TEST(verify_bn254_vk_alphabeta_known_answer) { known_answer_alphabeta<ec::Bn254>(); }
CUZK_TEST(verify_bls12_381_vk_alphabeta_known_answer) { known_answer_alphabeta<ec::Bls12381>(); }
CUZK_TEST(verify_bn254_fixture_proofs) { fixtures_verify<ec::Bn254>(); }
CUZK_TEST(verify_bls12_381_fixture_proofs) { fixtures_verify<ec::Bls12381>(); }
CUZK_TEST(verify_bn254_tampered_inputs_rejected) { tampered<ec::Bn254>(); }
CUZK_TEST(verify_bls12_381_tampered_inputs_rejected) { tampered<ec::Bls12381>(); }
CUZK_TEST(verify_bn254_batch) { batches<ec::Bn254>(); }
CUZK_TEST(verify_bls12_381_batch) { batches<ec::Bls12381>(); }
CUZK_TEST(verify_timing_single_vs_batch) {
  double r[4] = {0, 0, 0, 0};
  timing<ec::Bn254>("mulchain", &r[0]);
  timing<ec::Bn254>("manypub", &r[1]);
  timing<ec::Bls12381>("mulchain", &r[2]);
  timing<ec::Bls12381>("manypub", &r[3]);
  // The aim is >= 3x; timings on a loaded machine are noisy, so the test only insists that the
  // batch is clearly faster.
  for (double x : r) CHECK_MSG(x > 1.5, "batch of 16 only " << x << "x faster than 16 single verifications");
}

// ================================================================ mutated inputs

namespace {

// Random byte edits of a valid proof.json: parsing either fails with a cuzk::Error naming the
// file, or yields points that, if they verify, are the original proof's (a benign edit, e.g. in
// whitespace). Nothing else may escape, and nothing crashes (also worth running under
// -fsanitize=address,undefined; it was, cleanly, when written).
template <class E>
void mutated_inputs() {
  RandomSource rs = rng_for(1000 + uint64_t(E::id));
  const std::string c = "mulchain";
  auto vk = load_vk<E>(fixture<E>(c, "verification_key.json"));
  const std::string pub_path = fixture<E>(c, "public.json");
  const std::string proof_path = fixture<E>(c, "proof.json");
  auto pub = load_public<E>(pub_path, vk.n_public);
  auto orig = load_proof<E>(proof_path);
  const std::string text = read_file(proof_path), pub_text = read_file(pub_path);
  const char alphabet[] = "0123456789\"[]{},:. -\n\\ue";
  int rejected = 0, accepted = 0;
  for (int it = 0; it < 400; ++it) {
    bool mutate_pub = it % 4 == 3;
    std::string t = mutate_pub ? pub_text : text;
    int edits = 1 + int(rs.next() % 3);
    for (int e = 0; e < edits && !t.empty(); ++e) {
      size_t at = size_t(rs.next() % t.size());
      switch (rs.next() % 4) {
        case 0:
          t[at] = alphabet[rs.next() % (sizeof alphabet - 1)];
          break;
        case 1:
          t.erase(at, 1 + size_t(rs.next() % 8));
          break;
        case 2:
          t.insert(at, 1, alphabet[rs.next() % (sizeof alphabet - 1)]);
          break;
        case 3:
          t.resize(at);
          break;
      }
    }
    try {
      io::Json j = io::parse_json(t);
      groth16::PublicInputs p = pub;
      groth16::VerifyProof<E> q = orig;
      if (mutate_pub)
        p = groth16::public_from_json<E>(j, "public.json", vk.n_public);
      else
        q = groth16::proof_from_json<E>(j, "proof.json");
      if (groth16::verify_proof(vk, p, q)) {
        bool same_pub = p.size() == pub.size() &&
                        std::equal(p.begin(), p.end(), pub.begin(), [](const cpu::Scalar& x, const cpu::Scalar& y) {
                          return x.v[0] == y.v[0] && x.v[1] == y.v[1] && x.v[2] == y.v[2] && x.v[3] == y.v[3];
                        });
        CHECK(same_pub && q.a == orig.a && q.b == orig.b && q.c == orig.c);
        ++accepted;
      } else {
        ++rejected;
      }
    } catch (const Error& e) {
      ++rejected;
      CHECK_MSG(std::string(e.what()).size() > 0, "empty error");
    }
  }
  std::printf("  %s: 400 mutated files, %d rejected, %d benign edits accepted\n", curve_dir<E>(), rejected, accepted);
}

}  // namespace

CUZK_TEST(verify_bn254_mutated_inputs) { mutated_inputs<ec::Bn254>(); }
CUZK_TEST(verify_bls12_381_mutated_inputs) { mutated_inputs<ec::Bls12381>(); }
