// SPDX-License-Identifier: MIT OR Apache-2.0
#include "groth16/verifier.hpp"

#include <chrono>

#include "util/rng.hpp"
#include "util/thread_pool.hpp"
#include "util/time.hpp"

namespace cuzk::groth16 {

namespace {

// [k]P for a k of `words` 64-bit words: signed binary digits (NAF) and mixed additions of the
// affine base, which cost about 30% less than Curve::mul's plain double-and-add.
template <class F>
ec::Jacobian<F> mul_naf(const ec::Affine<F>& p, const uint64_t* k, int words) {
  std::vector<int8_t> naf;
  naf.reserve(size_t(64 * words + 1));
  std::vector<uint64_t> e(k, k + words);
  e.push_back(0);
  auto is_zero = [&] {
    for (uint64_t w : e)
      if (w) return false;
    return true;
  };
  while (!is_zero()) {
    int8_t d = 0;
    if (e[0] & 1) {
      d = int8_t(2 - int(e[0] & 3));
      if (d == 1) {
        e[0] -= 1;  // odd: no borrow
      } else {
        for (auto& w : e)  // += 1
          if (++w != 0) break;
      }
    }
    naf.push_back(d);
    for (size_t i = 0; i < e.size(); ++i) e[i] = (e[i] >> 1) | (i + 1 < e.size() ? e[i + 1] << 63 : 0);
  }
  ec::Affine<F> neg = p.neg();
  ec::Jacobian<F> r = ec::Jacobian<F>::infinity();
  for (size_t i = naf.size(); i-- > 0;) {
    r = r.dbl();
    if (naf[i] == 1)
      r = r.add_affine(p);
    else if (naf[i] == -1)
      r = r.add_affine(neg);
  }
  return r;
}

// Affine forms of many Jacobian points with one field inversion (Montgomery's trick).
template <class F>
std::vector<ec::Affine<F>> to_affine_batch(const std::vector<ec::Jacobian<F>>& pts) {
  std::vector<F> z(pts.size()), scratch(pts.size());
  for (size_t i = 0; i < pts.size(); ++i) z[i] = pts[i].Z;
  ff::batch_inverse(z.data(), z.size(), scratch.data());
  std::vector<ec::Affine<F>> out(pts.size());
  for (size_t i = 0; i < pts.size(); ++i) {
    if (pts[i].is_inf()) {
      out[i] = ec::Affine<F>::infinity();
      continue;
    }
    F zi2 = z[i].sqr();
    out[i] = {pts[i].X * zi2, pts[i].Y * zi2 * z[i]};
  }
  return out;
}

[[noreturn]] void malformed(const std::string& path, const std::string& field, const std::string& what) {
  throw FormatError(path, "field " + field + ": " + what);
}
[[noreturn]] void reject(const std::string& path, const std::string& field, const std::string& what) {
  throw VerifyReject(path, field + " " + what);
}

std::string shorten(const std::string& s) {
  if (s.size() <= 90) return s;
  return s.substr(0, 80) + "...(" + std::to_string(s.size()) + " characters)";
}

const io::Json& member(const io::Json& obj, const char* key, const std::string& path) {
  if (!obj.is_object()) throw FormatError(path, std::string("expected a JSON object, found ") + obj.type_name());
  const io::Json* v = obj.find(key);
  if (!v) malformed(path, key, "missing");
  return *v;
}

template <class E>
const char* curve_label() {
  return E::id == CurveId::bn254 ? "bn254" : "bls12-381";
}

template <class F>
F parse_fq(const io::Json& j, const std::string& path, const std::string& field) {
  if (!j.is_string()) malformed(path, field, std::string("expected a decimal string, found ") + j.type_name());
  ff::Limbs<F::N> v{};
  std::string err = parse_decimal_below(j.text, F::K.p, v);
  if (err == "not less than the modulus")
    reject(path, "field " + field + ":",
           shorten(j.text) + " is not less than the base field modulus q (not a canonical coordinate)");
  if (!err.empty()) malformed(path, field, err + ": \"" + shorten(j.text) + "\"");
  return F::from_std(v);
}

bool is_str(const io::Json& j, const char* s) { return j.is_string() && j.text == s; }

template <class E>
typename E::G1Affine parse_g1(const io::Json& j, const std::string& path, const std::string& field) {
  using Fq = typename E::Fq;
  using Aff = typename E::G1Affine;
  if (!j.is_array() || (j.items.size() != 3 && j.items.size() != 2))
    malformed(path, field,
              std::string("expected a G1 point [x, y, z] (an array of 3 decimal strings), found ") +
                  (j.is_array() ? "an array of " + std::to_string(j.items.size()) : std::string(j.type_name())));
  if (j.items.size() == 3) {
    const io::Json& z = j.items[2];
    if (is_str(z, "0")) {
      if (!is_str(j.items[0], "0") || !is_str(j.items[1], "1"))
        malformed(path, field, "z = 0 (the point at infinity) must be written [\"0\", \"1\", \"0\"]");
      return Aff::infinity();
    }
    if (!is_str(z, "1")) malformed(path, field + "[2]", "z must be \"1\" (affine) or \"0\" (infinity)");
  }
  Aff p{parse_fq<Fq>(j.items[0], path, field + "[0]"), parse_fq<Fq>(j.items[1], path, field + "[1]")};
  if (p.is_inf() || !E::G1::on_curve(p))  // (0, 0) with z = 1 is a point off the curve
    reject(path, field, std::string("is not on the curve (G1 of ") + curve_label<E>() + ")");
  if (!ec::Pairing<E>::g1_in_subgroup(p))
    reject(path, field,
           std::string("is on the curve but not in the prime-order subgroup G1 of ") + curve_label<E>() +
               " (cuzk checks subgroup membership, which snarkjs does not)");
  return p;
}

template <class E>
typename E::Fq2 parse_fq2(const io::Json& j, const std::string& path, const std::string& field) {
  using Fq = typename E::Fq;
  if (!j.is_array() || j.items.size() != 2)
    malformed(path, field, "expected an Fp2 element [c0, c1] (an array of 2 decimal strings)");
  return {parse_fq<Fq>(j.items[0], path, field + "[0]"), parse_fq<Fq>(j.items[1], path, field + "[1]")};
}

template <class E>
typename E::G2Affine parse_g2(const io::Json& j, const std::string& path, const std::string& field) {
  using Aff = typename E::G2Affine;
  if (!j.is_array() || (j.items.size() != 3 && j.items.size() != 2))
    malformed(path, field,
              std::string("expected a G2 point [[x0, x1], [y0, y1], [z0, z1]], found ") +
                  (j.is_array() ? "an array of " + std::to_string(j.items.size()) : std::string(j.type_name())));
  if (j.items.size() == 3) {
    const io::Json& z = j.items[2];
    bool z_arr = z.is_array() && z.items.size() == 2;
    if (z_arr && is_str(z.items[0], "0") && is_str(z.items[1], "0")) {
      const io::Json &x = j.items[0], &y = j.items[1];
      bool ok = x.is_array() && x.items.size() == 2 && is_str(x.items[0], "0") && is_str(x.items[1], "0") &&
                y.is_array() && y.items.size() == 2 && is_str(y.items[0], "1") && is_str(y.items[1], "0");
      if (!ok)
        malformed(path, field,
                  "z = 0 (the point at infinity) must be written [[\"0\",\"0\"],[\"1\",\"0\"],[\"0\",\"0\"]]");
      return Aff::infinity();
    }
    if (!(z_arr && is_str(z.items[0], "1") && is_str(z.items[1], "0")))
      malformed(path, field + "[2]", "z must be [\"1\", \"0\"] (affine) or [\"0\", \"0\"] (infinity)");
  }
  Aff p{parse_fq2<E>(j.items[0], path, field + "[0]"), parse_fq2<E>(j.items[1], path, field + "[1]")};
  if (p.is_inf() || !E::G2::on_curve(p))
    reject(path, field, std::string("is not on the curve (the twist of G2 of ") + curve_label<E>() + ")");
  if (!ec::Pairing<E>::g2_in_subgroup(p))
    reject(path, field,
           std::string("is on the curve but not in the prime-order subgroup G2 of ") + curve_label<E>() +
               " (cuzk checks subgroup membership, which snarkjs does not)");
  return p;
}

template <class E>
typename ec::Pairing<E>::GT parse_gt(const io::Json& j, const std::string& path, const std::string& field) {
  using GT = typename ec::Pairing<E>::GT;
  const char* shape = "expected a GT element: 2 x 3 x 2 decimal strings";
  if (!j.is_array() || j.items.size() != 2) malformed(path, field, shape);
  GT r;
  typename GT::F6* halves[2] = {&r.c0, &r.c1};
  for (int h = 0; h < 2; ++h) {
    const io::Json& six = j.items[size_t(h)];
    if (!six.is_array() || six.items.size() != 3) malformed(path, field + "[" + std::to_string(h) + "]", shape);
    typename E::Fq2* cs[3] = {&halves[h]->c0, &halves[h]->c1, &halves[h]->c2};
    for (int k = 0; k < 3; ++k)
      *cs[k] =
          parse_fq2<E>(six.items[size_t(k)], path, field + "[" + std::to_string(h) + "][" + std::to_string(k) + "]");
  }
  return r;
}

}  // namespace

CurveId vk_curve(const io::Json& vk, const std::string& path) {
  const io::Json& proto = member(vk, "protocol", path);
  if (!proto.is_string()) malformed(path, "protocol", std::string("expected a string, found ") + proto.type_name());
  if (proto.text != "groth16")
    throw FormatError(path, "field protocol: \"" + shorten(proto.text) + "\" is not supported (only \"groth16\")");
  const io::Json& curve = member(vk, "curve", path);
  if (!curve.is_string()) malformed(path, "curve", std::string("expected a string, found ") + curve.type_name());
  if (curve.text == "bn128" || curve.text == "bn254") return CurveId::bn254;
  if (curve.text == "bls12381" || curve.text == "bls12-381") return CurveId::bls12_381;
  throw FormatError(path, "field curve: \"" + shorten(curve.text) + "\" is not supported (\"bn128\" or \"bls12381\")");
}

template <class E>
VerifyingKey<E> vk_from_json(const io::Json& j, const std::string& path) {
  using P = ec::Pairing<E>;
  CurveId c = vk_curve(j, path);
  if (c != E::id)
    throw FormatError(path, std::string("field curve: the key is for ") + curve_snarkjs_name(c) + ", not " +
                                curve_snarkjs_name(E::id));
  VerifyingKey<E> vk;
  const io::Json& np = member(j, "nPublic", path);
  auto n = np.as_u64();
  if (!n)
    malformed(path, "nPublic",
              std::string("expected a non-negative integer, found ") +
                  (np.is_number() ? "\"" + shorten(np.text) + "\"" : std::string(np.type_name())));
  if (*n > (uint64_t(1) << 26))
    malformed(path, "nPublic", std::to_string(*n) + " public inputs is more than cuzk accepts (2^26)");
  vk.n_public = uint32_t(*n);
  vk.alpha = parse_g1<E>(member(j, "vk_alpha_1", path), path, "vk_alpha_1");
  vk.beta = parse_g2<E>(member(j, "vk_beta_2", path), path, "vk_beta_2");
  vk.gamma = parse_g2<E>(member(j, "vk_gamma_2", path), path, "vk_gamma_2");
  vk.delta = parse_g2<E>(member(j, "vk_delta_2", path), path, "vk_delta_2");
  if (vk.alpha.is_inf()) reject(path, "vk_alpha_1", "is the point at infinity (such a key proves nothing)");
  if (vk.beta.is_inf()) reject(path, "vk_beta_2", "is the point at infinity (such a key proves nothing)");
  if (vk.gamma.is_inf()) reject(path, "vk_gamma_2", "is the point at infinity (such a key proves nothing)");
  if (vk.delta.is_inf()) reject(path, "vk_delta_2", "is the point at infinity (such a key proves nothing)");
  const io::Json& ic = member(j, "IC", path);
  if (!ic.is_array()) malformed(path, "IC", std::string("expected an array of G1 points, found ") + ic.type_name());
  if (ic.items.size() != size_t(vk.n_public) + 1)
    malformed(path, "IC",
              "has " + std::to_string(ic.items.size()) + " points; nPublic = " + std::to_string(vk.n_public) +
                  " needs nPublic + 1 = " + std::to_string(vk.n_public + 1));
  vk.ic.reserve(ic.items.size());
  for (size_t i = 0; i < ic.items.size(); ++i)
    vk.ic.push_back(parse_g1<E>(ic.items[i], path, "IC[" + std::to_string(i) + "]"));
  if (const io::Json* ab = j.find("vk_alphabeta_12")) vk.alphabeta = parse_gt<E>(*ab, path, "vk_alphabeta_12");
  vk.beta_p = P::prepare(vk.beta);
  vk.gamma_p = P::prepare(vk.gamma);
  vk.delta_p = P::prepare(vk.delta);
  return vk;
}

template <class E>
VerifyProof<E> proof_from_json(const io::Json& j, const std::string& path) {
  if (!j.is_object()) throw FormatError(path, std::string("expected a JSON object (a proof), found ") + j.type_name());
  if (const io::Json* proto = j.find("protocol")) {
    if (!proto->is_string()) malformed(path, "protocol", std::string("expected a string, found ") + proto->type_name());
    if (proto->text != "groth16")
      reject(path, "protocol", "is \"" + shorten(proto->text) + "\"; only \"groth16\" proofs are verified here");
  }
  if (const io::Json* curve = j.find("curve")) {
    if (!curve->is_string()) malformed(path, "curve", std::string("expected a string, found ") + curve->type_name());
    auto c = curve_from_name(curve->text);
    if (!c || *c != E::id)
      reject(path, "curve",
             "is \"" + shorten(curve->text) + "\" but the verification key is for " + curve_snarkjs_name(E::id));
  }
  VerifyProof<E> p;
  p.a = parse_g1<E>(member(j, "pi_a", path), path, "pi_a");
  p.b = parse_g2<E>(member(j, "pi_b", path), path, "pi_b");
  p.c = parse_g1<E>(member(j, "pi_c", path), path, "pi_c");
  return p;
}

template <class E>
PublicInputs public_from_json(const io::Json& j, const std::string& path, uint32_t n_public) {
  using Fr = typename E::Fr;
  if (!j.is_array())
    throw FormatError(path,
                      std::string("expected a JSON array of decimal strings (public inputs), found ") + j.type_name());
  if (j.items.size() != n_public)
    throw VerifyReject(path, "has " + std::to_string(j.items.size()) + " public input" +
                                 (j.items.size() == 1 ? "" : "s") +
                                 "; the verification key expects nPublic = " + std::to_string(n_public));
  PublicInputs out(n_public);
  for (size_t i = 0; i < j.items.size(); ++i) {
    const io::Json& v = j.items[i];
    std::string field = "[" + std::to_string(i) + "]";
    if (!v.is_string()) malformed(path, field, std::string("expected a decimal string, found ") + v.type_name());
    std::string err = parse_decimal_below(v.text, Fr::K.p, out[i]);
    if (err == "not less than the modulus")
      reject(path, "field " + field + ":",
             "public input " + shorten(v.text) + " is not less than the scalar field modulus r");
    if (!err.empty()) malformed(path, field, err + ": \"" + shorten(v.text) + "\"");
  }
  return out;
}

template <class E>
typename E::G1Affine public_combination(const VerifyingKey<E>& vk, const PublicInputs& pub) {
  if (pub.size() != vk.n_public) throw InvalidArgument("public_combination: wrong number of public inputs");
  ThreadPool inline_pool(1);  // no threads: runs on the caller
  auto acc = cpu::msm(vk.ic.data() + 1, pub.data(), pub.size(), inline_pool);
  return acc.add_affine(vk.ic[0]).to_affine();
}

template <class E>
bool verify_proof(const VerifyingKey<E>& vk, const PublicInputs& pub, const VerifyProof<E>& proof) {
  using P = ec::Pairing<E>;
  auto vk_x = public_combination(vk, pub);
  typename P::G2Prepared bp = P::prepare(proof.b);
  typename P::Term terms[4] = {
      {proof.a.neg(), &bp},
      {vk_x, &vk.gamma_p},
      {proof.c, &vk.delta_p},
      {vk.alpha, &vk.beta_p},
  };
  return P::product_is_one(terms, 4);
}

template <class E>
bool vk_alphabeta_matches(const VerifyingKey<E>& vk) {
  if (!vk.alphabeta) return false;
  using P = ec::Pairing<E>;
  typename P::Term t{vk.alpha, &vk.beta_p};
  return P::final_exponentiation(P::miller_loop(&t, 1)) == *vk.alphabeta;
}

template <class E>
bool batch_check(const VerifyingKey<E>& vk, const std::vector<BatchItem<E>>& items,
                 const std::vector<BatchCoeff>* coeffs) {
  using P = ec::Pairing<E>;
  using Fr = typename E::Fr;
  using G1Jac = typename E::G1Jac;
  const size_t k = items.size();
  if (k == 0) return true;
  std::vector<BatchCoeff> z(k);
  if (coeffs) {
    if (coeffs->size() != k) throw InvalidArgument("batch_check: one coefficient per item is needed");
    z = *coeffs;
    for (auto& c : z)
      if ((c[0] | c[1]) == 0) throw InvalidArgument("batch_check: a zero coefficient");
  } else {
    os_random_bytes(z.data(), k * sizeof(BatchCoeff));
    for (auto& c : z)
      while ((c[0] | c[1]) == 0) os_random_bytes(c.data(), sizeof c);
  }
  // Scalars over IC: (sum z_i, sum z_i pub_i1, ..., sum z_i pub_in), and sum z_i in Fr for alpha.
  const uint32_t n = vk.n_public;
  std::vector<Fr> s(size_t(n) + 1, Fr::zero());
  std::vector<cpu::Scalar> zs(k);
  for (size_t i = 0; i < k; ++i) {
    if (items[i].pub->size() != n) throw InvalidArgument("batch_check: wrong number of public inputs");
    zs[i] = cpu::Scalar{{z[i][0], z[i][1], 0, 0}};
    Fr zi = Fr::from_std(zs[i]);
    s[0] += zi;
    for (uint32_t j = 0; j < n; ++j) s[j + 1] += zi * Fr::from_std((*items[i].pub)[j]);
  }
  std::vector<cpu::Scalar> s_std(s.size());
  for (size_t j = 0; j < s.size(); ++j) s_std[j] = s[j].to_std();
  ThreadPool inline_pool(1);
  auto x = cpu::msm(vk.ic.data(), s_std.data(), s_std.size(), inline_pool).to_affine();
  std::vector<typename E::G1Affine> cs(k);
  for (size_t i = 0; i < k; ++i) cs[i] = items[i].proof->c;
  auto csum = cpu::msm(cs.data(), zs.data(), k, inline_pool).to_affine();
  // -z_i A_i and (sum z_i) alpha, made affine together.
  std::vector<G1Jac> g1s(k + 1);
  for (size_t i = 0; i < k; ++i) g1s[i] = mul_naf(items[i].proof->a.neg(), z[i].data(), 2);
  g1s[k] = mul_naf(vk.alpha, s_std[0].v, 4);
  auto g1a = to_affine_batch(g1s);

  std::vector<typename P::G2Prepared> bps(k);
  std::vector<typename P::Term> terms;
  terms.reserve(k + 3);
  for (size_t i = 0; i < k; ++i) {
    bps[i] = P::prepare(items[i].proof->b);
    terms.push_back({g1a[i], &bps[i]});
  }
  terms.push_back({x, &vk.gamma_p});
  terms.push_back({csum, &vk.delta_p});
  terms.push_back({g1a[k], &vk.beta_p});
  return P::product_is_one(terms.data(), terms.size());
}

#define CUZK_VERIFIER_INSTANTIATE(E)                                                                 \
  template VerifyingKey<E> vk_from_json<E>(const io::Json&, const std::string&);                     \
  template VerifyProof<E> proof_from_json<E>(const io::Json&, const std::string&);                   \
  template PublicInputs public_from_json<E>(const io::Json&, const std::string&, uint32_t);          \
  template typename E::G1Affine public_combination<E>(const VerifyingKey<E>&, const PublicInputs&);  \
  template bool verify_proof<E>(const VerifyingKey<E>&, const PublicInputs&, const VerifyProof<E>&); \
  template bool vk_alphabeta_matches<E>(const VerifyingKey<E>&);                                     \
  template bool batch_check<E>(const VerifyingKey<E>&, const std::vector<BatchItem<E>>&,             \
                               const std::vector<BatchCoeff>*);
CUZK_VERIFIER_INSTANTIATE(ec::Bn254)
CUZK_VERIFIER_INSTANTIATE(ec::Bls12381)
#undef CUZK_VERIFIER_INSTANTIATE

}  // namespace cuzk::groth16
