// SPDX-License-Identifier: MIT OR Apache-2.0
// BLS12-381 points in the zcash uncompressed encoding (bellperson's .params, blst's serialize):
// G1 x ‖ y, G2 x.c1 ‖ x.c0 ‖ y.c1 ‖ y.c0, each coordinate 48 bytes big-endian; the top three bits
// of byte 0 are flags (compressed: must be 0 here; infinity: the rest all zero; sort: must be 0
// when uncompressed). One decoder for host and device code, so that a key decoded by a GPU is
// the host's bit for bit: coordinates canonical (< q), to Montgomery form, on the curve, and the
// identity refused where the caller says so. The subgroup check is the caller's (it is costly and
// optional).
#pragma once
#include <cstdint>
#include <cstring>

#include "ec/curve.hpp"
#include "ff/bls12_381.hpp"

namespace cuzk::ec::zcash {

enum class PointCode : uint8_t {
  ok = 0,
  compressed_flag,  // an uncompressed point was expected
  sort_flag,        // never set on an uncompressed point
  bad_infinity,     // the infinity flag with other bits set
  not_canonical,    // a coordinate >= q
  off_curve,
  identity,  // the point at infinity where the caller refuses it
};

// What is wrong, as "point i <message>" reads.
inline const char* message(PointCode c, bool g2) {
  switch (c) {
    case PointCode::ok:
      return "decodes";
    case PointCode::compressed_flag:
      return "has the compression flag set (an uncompressed point was expected)";
    case PointCode::sort_flag:
      return "has the sort flag set, which an uncompressed point never has";
    case PointCode::bad_infinity:
      return "is the point at infinity with non-zero bits beside its flag";
    case PointCode::not_canonical:
      return "has a coordinate that is not canonical (not less than q)";
    case PointCode::off_curve:
      return g2 ? "is not on the curve (G2 of BLS12-381, the twist)" : "is not on the curve (G1 of BLS12-381)";
    case PointCode::identity:
      return "is the point at infinity, which bellperson refuses here";
  }
  return "is malformed";
}

using Fq = ff::Bls12381Fq;
using Fq2 = ff::Bls12381Fq2;
constexpr size_t kFqBytes = 48;

CUZK_HD uint64_t load_be64(const uint8_t* p) {
  uint64_t w;
  memcpy(&w, p, 8);
#if defined(__CUDA_ARCH__)
  const uint32_t lo = uint32_t(w), hi = uint32_t(w >> 32);
  return uint64_t(__byte_perm(lo, 0, 0x0123)) << 32 | __byte_perm(hi, 0, 0x0123);
#else
  return __builtin_bswap64(w);
#endif
}

// One coordinate (flag bits of the first cleared); false when it is not below q.
CUZK_HD bool coordinate(const uint8_t* in, bool first, Fq& out) {
  ff::Limbs<Fq::N> v;
  CUZK_UNROLL for (int i = 0; i < Fq::N; ++i) v.v[i] = load_be64(in + kFqBytes - 8 * (i + 1));
  if (first) v.v[Fq::N - 1] &= ~uint64_t(0) >> 3;
  for (int i = Fq::N - 1; i >= 0; --i) {  // v < q, from the top limb
    if (v.v[i] != Fq::mod(i)) {
      if (v.v[i] > Fq::mod(i)) return false;
      break;
    }
    if (i == 0) return false;  // equal to q
  }
  out = Fq::from_std(v);
  return true;
}

CUZK_HD PointCode flags(const uint8_t* in, size_t n, bool& infinity) {
  const uint8_t f = in[0] & 0xE0;
  if (f & 0x80) return PointCode::compressed_flag;
  if (f & 0x20) return PointCode::sort_flag;
  infinity = f & 0x40;
  if (infinity) {
    if (in[0] & 0x1F) return PointCode::bad_infinity;
    for (size_t i = 1; i < n; ++i)
      if (in[i]) return PointCode::bad_infinity;
  }
  return PointCode::ok;
}

// G1: 96 bytes.
CUZK_HD PointCode decode(const uint8_t* in, Affine<Fq>& out, bool refuse_identity) {
  bool inf = false;
  const PointCode f = flags(in, 2 * kFqBytes, inf);
  if (f != PointCode::ok) return f;
  if (inf) {
    out = Affine<Fq>::infinity();
    return refuse_identity ? PointCode::identity : PointCode::ok;
  }
  if (!coordinate(in, true, out.x) || !coordinate(in + kFqBytes, false, out.y)) return PointCode::not_canonical;
  // y^2 = x^3 + 4
  if (out.y.sqr() != out.x.sqr() * out.x + Fq::from_u64(4)) return PointCode::off_curve;
  return PointCode::ok;
}

// G2: 192 bytes.
CUZK_HD PointCode decode(const uint8_t* in, Affine<Fq2>& out, bool refuse_identity) {
  bool inf = false;
  const PointCode f = flags(in, 4 * kFqBytes, inf);
  if (f != PointCode::ok) return f;
  if (inf) {
    out = Affine<Fq2>::infinity();
    return refuse_identity ? PointCode::identity : PointCode::ok;
  }
  if (!coordinate(in, true, out.x.c1) || !coordinate(in + kFqBytes, false, out.x.c0) ||
      !coordinate(in + 2 * kFqBytes, false, out.y.c1) || !coordinate(in + 3 * kFqBytes, false, out.y.c0))
    return PointCode::not_canonical;
  // y^2 = x^3 + 4 (1 + u)
  const Fq four = Fq::from_u64(4);
  if (out.y.sqr() != out.x.sqr() * out.x + Fq2{four, four}) return PointCode::off_curve;
  return PointCode::ok;
}

}  // namespace cuzk::ec::zcash
