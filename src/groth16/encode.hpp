// SPDX-License-Identifier: MIT OR Apache-2.0
// Proof encodings: snarkjs JSON (decimal strings of standard-form affine coordinates) and the
// compressed binary form.
//
// Compressed points: x big-endian (G2: x.c1 then x.c0), flags in the top bits of the first byte.
//   BLS12-381 (the zcash/Filecoin encoding, 48 + 96 + 48 = 192 bytes): 0x80 compressed,
//     0x40 infinity, 0x20 y is the lexicographically larger root.
//   BN254 (gnark's encoding, 32 + 64 + 32 = 128 bytes): 0x80 compressed with the smaller y,
//     0xC0 compressed with the larger y, 0x40 infinity.
// For Fp2, "larger" compares c1, or c0 when c1 = 0.
//
// decompress_point inverts compress_point with every check of blstrs' from_compressed (and
// gnark's decoder): flag bits consistent, the infinity encoding all zero beside its flags, x
// canonical (< q), x the abscissa of a curve point, and the point in the prime-order subgroup.
#pragma once
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "ec/curves.hpp"
#include "ec/pairing.hpp"
#include "groth16/key.hpp"
#include "groth16/verifier.hpp"
#include "io/json.hpp"

namespace cuzk::groth16 {

template <class F>
std::string dec(const F& x) {
  auto s = x.to_std();
  return io::to_decimal(s.v, F::N);
}

template <class F>
io::JsonValue g1_json(const ec::Affine<F>& p) {
  using io::JsonValue;
  if (p.is_inf()) return JsonValue::array({JsonValue::string("0"), JsonValue::string("1"), JsonValue::string("0")});
  return JsonValue::array({JsonValue::string(dec(p.x)), JsonValue::string(dec(p.y)), JsonValue::string("1")});
}

template <class F2>
io::JsonValue g2_json(const ec::Affine<F2>& p) {
  using io::JsonValue;
  auto pair = [](const std::string& a, const std::string& b) {
    return JsonValue::array({JsonValue::string(a), JsonValue::string(b)});
  };
  if (p.is_inf()) return JsonValue::array({pair("0", "0"), pair("1", "0"), pair("0", "0")});
  return JsonValue::array({pair(dec(p.x.c0), dec(p.x.c1)), pair(dec(p.y.c0), dec(p.y.c1)), pair("1", "0")});
}

// A GT element as snarkjs writes it (Gt.toObject): [c0, c1] of [c0, c1, c2] of Fq2 pairs.
template <class GT>
io::JsonValue gt_json(const GT& f) {
  using io::JsonValue;
  auto fq2 = [](const auto& x) {
    return JsonValue::array({JsonValue::string(dec(x.c0)), JsonValue::string(dec(x.c1))});
  };
  auto f6 = [&](const auto& x) { return JsonValue::array({fq2(x.c0), fq2(x.c1), fq2(x.c2)}); };
  return JsonValue::array({f6(f.c0), f6(f.c1)});
}

// verification_key.json exactly as `snarkjs zkey export verificationkey` writes it: its fields in
// its order, vk_alphabeta_12 = e(alpha, beta) (this pairing's GT equals snarkjs's), one space of
// indentation, no trailing newline.
template <class E>
std::string vk_json(const VerifyingKey<E>& vk) {
  using io::JsonValue;
  auto o = JsonValue::object();
  o.add("protocol", JsonValue::string("groth16"));
  o.add("curve", JsonValue::string(curve_snarkjs_name(E::id)));
  o.add("nPublic", JsonValue::number(std::to_string(vk.n_public)));
  o.add("vk_alpha_1", g1_json(vk.alpha));
  o.add("vk_beta_2", g2_json(vk.beta));
  o.add("vk_gamma_2", g2_json(vk.gamma));
  o.add("vk_delta_2", g2_json(vk.delta));
  o.add("vk_alphabeta_12", gt_json(ec::Pairing<E>::pairing(vk.alpha, vk.beta)));
  auto ic = JsonValue::array();
  for (auto& p : vk.ic) ic.items.push_back(g1_json(p));
  o.add("IC", std::move(ic));
  return io::to_json(o);
}

template <class E>
std::string proof_json(const Proof<E>& p) {
  auto o = io::JsonValue::object();
  o.add("pi_a", g1_json(p.a));
  o.add("pi_b", g2_json(p.b));
  o.add("pi_c", g1_json(p.c));
  o.add("protocol", io::JsonValue::string("groth16"));
  o.add("curve", io::JsonValue::string(curve_snarkjs_name(E::id)));
  return io::to_json(o);
}

// public.json: w[1..n_public] as decimal strings.
inline std::string public_json(std::span<const cpu::Scalar> w, uint32_t n_public) {
  auto arr = io::JsonValue::array();
  for (uint32_t i = 1; i <= n_public; ++i) arr.items.push_back(io::JsonValue::string(io::to_decimal(w[i].v, 4)));
  return io::to_json(arr);
}

namespace detail {

// y > (q - 1) / 2 for y in standard form.
template <class F>
bool fp_is_larger(const F& y) {
  auto s = y.to_std();
  auto h = F::K.p_minus_1_div_2;
  for (int i = F::N - 1; i >= 0; --i)
    if (s.v[i] != h.v[i]) return s.v[i] > h.v[i];
  return false;
}
template <class F>
bool is_larger(const F& y) {
  return fp_is_larger(y);
}
template <class B>
bool is_larger(const ff::Fp2<B>& y) {
  return y.c1.is_zero() ? fp_is_larger(y.c0) : fp_is_larger(y.c1);
}

template <class F>
void put_be(const F& x, uint8_t* out) {
  auto s = x.to_std();
  for (int i = 0; i < F::N; ++i)
    for (int b = 0; b < 8; ++b) out[F::BYTES - 1 - (i * 8 + b)] = uint8_t(s.v[i] >> (8 * b));
}
template <class F>
void put_x(const F& x, uint8_t* out) {
  put_be(x, out);
}
template <class B>
void put_x(const ff::Fp2<B>& x, uint8_t* out) {
  put_be(x.c1, out);
  put_be(x.c0, out + B::BYTES);
}
// x from big-endian bytes; false when x >= q.
template <class F>
bool get_be(const uint8_t* in, F& x) {
  ff::Limbs<F::N> v;
  for (int i = 0; i < F::N; ++i) {  // limb i is the big-endian word ending i words from the end
    uint64_t w;
    std::memcpy(&w, in + F::BYTES - 8 * (i + 1), 8);
    v.v[i] = __builtin_bswap64(w);
  }
  if (ff::limbs_geq(v, F::K.p)) return false;
  x = F::from_std(v);
  return true;
}
template <class F>
bool get_x(const uint8_t* in, F& x) {
  return get_be(in, x);
}
template <class B>
bool get_x(const uint8_t* in, ff::Fp2<B>& x) {
  return get_be(in, x.c1) && get_be(in + B::BYTES, x.c0);
}
template <class F>
constexpr size_t x_bytes(const F*) {
  return F::BYTES;
}
template <class B>
constexpr size_t x_bytes(const ff::Fp2<B>*) {
  return 2 * B::BYTES;
}

}  // namespace detail

template <class E, class F>
void compress_point(const ec::Affine<F>& p, std::vector<uint8_t>& out) {
  const size_t n = detail::x_bytes(static_cast<const F*>(nullptr));
  size_t at = out.size();
  out.resize(at + n, 0);
  uint8_t* o = out.data() + at;
  if (p.is_inf()) {
    o[0] = E::id == CurveId::bls12_381 ? 0xC0 : 0x40;
    return;
  }
  detail::put_x(p.x, o);
  bool larger = detail::is_larger(p.y);
  if (E::id == CurveId::bls12_381)
    o[0] |= uint8_t(0x80 | (larger ? 0x20 : 0));
  else
    o[0] |= uint8_t(larger ? 0xC0 : 0x80);
}

// The compressed point at `in` (x_bytes of its field) into p. Returns nullptr on success, else
// what is wrong with the encoding; identity is a valid encoding (callers that refuse it check).
template <class E, class F>
const char* decompress_point(const uint8_t* in, ec::Affine<F>& p) {
  constexpr bool bls = E::id == CurveId::bls12_381;
  const size_t n = detail::x_bytes(static_cast<const F*>(nullptr));
  const uint8_t flags = in[0] & 0xE0;
  bool infinity, larger;
  if (bls) {
    if (!(flags & 0x80)) return "the compression flag (bit 7 of byte 0) is not set";
    infinity = flags & 0x40;
    larger = flags & 0x20;
    if (infinity && larger) return "the point at infinity has its sign flag (bit 5) set";
  } else {
    if ((flags & 0xC0) == 0) return "no compression flag (bits 7, 6 of byte 0 are both 0)";
    if (flags & 0x20) return "bit 5 of byte 0 is set (not part of the encoding)";
    infinity = (flags & 0xC0) == 0x40;
    larger = (flags & 0xC0) == 0xC0;
  }
  if (infinity) {
    if (in[0] & 0x1F) return "the point at infinity has non-zero bits beside its flags";
    for (size_t i = 1; i < n; ++i)
      if (in[i]) return "the point at infinity has non-zero bits beside its flags";
    p = ec::Affine<F>::infinity();
    return nullptr;
  }
  std::vector<uint8_t> x(in, in + n);
  x[0] &= uint8_t(bls ? 0x1F : 0x3F);
  F xv;
  if (!detail::get_x(x.data(), xv)) return "x is not canonical (not less than q)";
  using Curve = std::conditional_t<std::is_same_v<F, typename E::Fq>, typename E::G1, typename E::G2>;
  F rhs = xv.sqr() * xv + ec::CurveCfgOf<Curve>::type::b();
  F y;
  if (!rhs.sqrt(y)) return "x is not the abscissa of a point on the curve";
  if (detail::is_larger(y) != larger) y = -y;
  p = {xv, y};
  bool in_group;
  if constexpr (std::is_same_v<F, typename E::Fq>)
    in_group = ec::Pairing<E>::g1_in_subgroup(p);
  else
    in_group = ec::Pairing<E>::g2_in_subgroup(p);
  if (!in_group) return "the point is on the curve but not in the prime-order subgroup";
  return nullptr;
}

template <class E>
std::vector<uint8_t> proof_compressed(const Proof<E>& p) {
  std::vector<uint8_t> out;
  compress_point<E>(p.a, out);
  compress_point<E>(p.b, out);
  compress_point<E>(p.c, out);
  return out;
}

}  // namespace cuzk::groth16
