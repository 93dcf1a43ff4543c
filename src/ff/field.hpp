// SPDX-License-Identifier: MIT OR Apache-2.0
// Prime fields in Montgomery form, as one template usable from host and device code.
//
// An element is N little-endian 64-bit limbs holding a*R mod p, R = 2^(64N). Every modulus
// used here leaves the top bit of the top limb free (p < 2^(64N-1)), so a sum of two reduced
// values never overflows N limbs and the CIOS product needs only one final subtraction.
// The Montgomery constants are derived from the modulus at compile time (see MontConsts), so a
// field is declared by its modulus alone.
#pragma once
#include <cstddef>
#include <cstdint>
#if !defined(__CUDACC__) && defined(__x86_64__)
#include <cpuid.h>

#include <x86intrin.h>
#define CUZK_X86_CARRY 1
#include "ff/mont_x86.hpp"
#endif

#if defined(__CUDACC__)
#define CUZK_HD __host__ __device__ __forceinline__
#define CUZK_UNROLL _Pragma("unroll")
#else
#define CUZK_HD inline
#define CUZK_UNROLL _Pragma("GCC unroll 16")
#endif
// The field's own operations, inlined on the host too: left to the compiler, the product and
// the difference stayed calls (a third of a CPU proof's time was spent in them as functions).
#if defined(__CUDACC__)
#define CUZK_HD_HOT CUZK_HD
#else
#define CUZK_HD_HOT inline __attribute__((always_inline))
#endif

// Member functions read the field constants through `k`. Device code cannot odr-use a static
// constexpr member of class type, so there it is a compile-time copy; host code refers to the
// member itself (a local copy there is materialised on the stack on every call).
#if defined(__CUDA_ARCH__)
#define CUZK_FIELD_CONSTS constexpr MontConsts<N> k = K;
#else
#define CUZK_FIELD_CONSTS constexpr const MontConsts<N>& k = K;
#endif

namespace cuzk::ff {

#if defined(CUZK_X86_CARRY)
// The processor runs mulx, adcx and adox (BMI2 and ADX: Intel since 2014, AMD since 2017); the
// products of 4 and 6 limbs then use mont_x86.hpp's assembly. Read before its initialisation
// (a static constructor elsewhere) it is false: the portable product, the same value.
inline const bool x86_mulx_adx = [] {
  unsigned a = 0, b = 0, c = 0, d = 0;  // leaf 7: EBX bit 8 BMI2, bit 19 ADX
  return __get_cpuid_count(7, 0, &a, &b, &c, &d) != 0 && (b >> 8 & 1) != 0 && (b >> 19 & 1) != 0;
}();
#endif

template <int N>
struct Limbs {
  uint64_t v[N];
};

// Add and subtract with carry: the x86 intrinsics compile to adc/sbb chains; elsewhere
// (device code, other hosts) the same thing in portable C++.
CUZK_HD uint8_t add_carry(uint8_t c, uint64_t a, uint64_t b, uint64_t* out) {
#if defined(CUZK_X86_CARRY)
  unsigned long long o;
  c = _addcarry_u64(c, a, b, &o);
  *out = o;
  return c;
#else
  uint64_t s = a + b;
  uint8_t c1 = s < a;
  uint64_t s2 = s + c;
  *out = s2;
  return uint8_t(c1 | (s2 < s));
#endif
}
CUZK_HD uint8_t sub_borrow(uint8_t c, uint64_t a, uint64_t b, uint64_t* out) {
#if defined(CUZK_X86_CARRY)
  unsigned long long o;
  c = _subborrow_u64(c, a, b, &o);
  *out = o;
  return c;
#else
  uint64_t d = a - b;
  uint8_t b1 = a < b;
  uint64_t d2 = d - c;
  *out = d2;
  return uint8_t(b1 | (d < uint64_t(c)));
#endif
}

// ------------------------------------------------------------- compile-time helpers

template <int N>
constexpr bool limbs_geq(const Limbs<N>& a, const Limbs<N>& b) {
  for (int i = N - 1; i >= 0; --i) {
    if (a.v[i] != b.v[i]) return a.v[i] > b.v[i];
  }
  return true;
}

template <int N>
constexpr uint64_t limbs_sub(Limbs<N>& a, const Limbs<N>& b) {  // a -= b, returns borrow
  uint64_t borrow = 0;
  for (int i = 0; i < N; ++i) {
    uint64_t bi = b.v[i] + borrow;
    uint64_t nb = (bi < borrow) || (a.v[i] < bi);
    a.v[i] -= bi;
    borrow = nb;
  }
  return borrow;
}

template <int N>
constexpr uint64_t limbs_add(Limbs<N>& a, const Limbs<N>& b) {  // a += b, returns carry
  uint64_t carry = 0;
  for (int i = 0; i < N; ++i) {
    uint64_t s = a.v[i] + carry;
    uint64_t c1 = s < carry;
    a.v[i] = s + b.v[i];
    carry = c1 + (a.v[i] < s);
  }
  return carry;
}

// Hexadecimal ("0x..." or bare) or decimal string to limbs, at compile time.
template <int N>
constexpr Limbs<N> parse_limbs(const char* s) {
  Limbs<N> r{};
  bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  if (hex) s += 2;
  for (; *s; ++s) {
    uint64_t d = 0, base = hex ? 16 : 10;
    char c = *s;
    if (c >= '0' && c <= '9')
      d = uint64_t(c - '0');
    else if (c >= 'a' && c <= 'f')
      d = uint64_t(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      d = uint64_t(c - 'A' + 10);
    else
      continue;  // separators
    // r = r * base + d
    unsigned __int128 carry = d;
    for (int i = 0; i < N; ++i) {
      unsigned __int128 t = (unsigned __int128)r.v[i] * base + carry;
      r.v[i] = uint64_t(t);
      carry = t >> 64;
    }
  }
  return r;
}

template <int N>
struct MontConsts {
  Limbs<N> p;
  Limbs<N> r1;               // R mod p (Montgomery one)
  Limbs<N> r2;               // R^2 mod p
  uint64_t inv;              // -p^-1 mod 2^64
  Limbs<N> p_minus_2;        // exponent for Fermat inversion
  Limbs<N> p_plus_1_div_4;   // square-root exponent when p = 3 mod 4
  Limbs<N> p_minus_1_div_2;  // Euler's criterion exponent
  bool p_is_3_mod_4;
};

template <int N>
constexpr Limbs<N> double_mod(const Limbs<N>& a, const Limbs<N>& p) {
  Limbs<N> r = a;
  uint64_t top = 0;
  for (int i = 0; i < N; ++i) {
    uint64_t nt = r.v[i] >> 63;
    r.v[i] = (r.v[i] << 1) | top;
    top = nt;
  }
  if (top || limbs_geq(r, p)) limbs_sub(r, p);
  return r;
}

template <int N>
constexpr MontConsts<N> make_mont_consts(const Limbs<N>& p) {
  MontConsts<N> k{};
  k.p = p;
  // Newton iteration for p^-1 mod 2^64: each step doubles the number of correct bits.
  uint64_t x = 1;
  for (int i = 0; i < 7; ++i) x *= 2 - p.v[0] * x;
  k.inv = ~x + 1;
  Limbs<N> one{};
  one.v[0] = 1;
  Limbs<N> t = one;
  for (int i = 0; i < 64 * N; ++i) t = double_mod(t, p);
  k.r1 = t;
  for (int i = 0; i < 64 * N; ++i) t = double_mod(t, p);
  k.r2 = t;
  Limbs<N> two{};
  two.v[0] = 2;
  k.p_minus_2 = p;
  limbs_sub(k.p_minus_2, two);
  Limbs<N> q = p;
  limbs_add(q, one);
  for (int i = 0; i < N; ++i) q.v[i] = (q.v[i] >> 2) | (i + 1 < N ? q.v[i + 1] << 62 : 0);
  k.p_plus_1_div_4 = q;
  Limbs<N> h = p;
  limbs_sub(h, one);
  for (int i = 0; i < N; ++i) h.v[i] = (h.v[i] >> 1) | (i + 1 < N ? h.v[i + 1] << 63 : 0);
  k.p_minus_1_div_2 = h;
  k.p_is_3_mod_4 = (p.v[0] & 3) == 3;
  return k;
}

// ------------------------------------------------------------- device fast path
//
// On the GPU the same N 64-bit limbs are handled as n = 2N little-endian 32-bit words, with
// the carry flag of PTX's add/madc chains (the technique of sppark's mont_t). Each helper below
// is one instruction; the carry flag lives between them, so they are `asm volatile` (kept in
// order) and nothing else may be placed inside a chain. Results are fully reduced, so they are
// bit-identical to the host's.
#if defined(__CUDA_ARCH__) || defined(CUZK_PTX_EMULATE)
#if defined(__CUDA_ARCH__)
#define CUZK_DEV __device__ __forceinline__
#else
// CUZK_PTX_EMULATE (tests on the host): the same word-level algorithms over an emulation of the
// instructions below, the carry flag a variable of the thread.
#define CUZK_DEV inline
#endif
namespace ptx {
#if defined(__CUDA_ARCH__)
#define CUZK_PTX __device__ __forceinline__
CUZK_PTX uint32_t mul_lo(uint32_t a, uint32_t b) {
  uint32_t r;
  asm("mul.lo.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
CUZK_PTX uint32_t mul_hi(uint32_t a, uint32_t b) {
  uint32_t r;
  asm("mul.hi.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
// acc += lo/hi(a * b) with carry in (madc) and/or out (.cc).
CUZK_PTX void mad_lo_cc(uint32_t& acc, uint32_t a, uint32_t b) {
  asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(acc) : "r"(a), "r"(b));
}
CUZK_PTX void madc_lo_cc(uint32_t& acc, uint32_t a, uint32_t b) {
  asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(acc) : "r"(a), "r"(b));
}
CUZK_PTX void madc_hi_cc(uint32_t& acc, uint32_t a, uint32_t b) {
  asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(acc) : "r"(a), "r"(b));
}
// d = lo(a * b) + c, carry out.
CUZK_PTX uint32_t mad_lo_cc3(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t r;
  asm volatile("mad.lo.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
}
// d = lo/hi(a * b) + c + carry (carry out with .cc).
CUZK_PTX uint32_t madc_lo_cc3(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t r;
  asm volatile("madc.lo.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
}
CUZK_PTX uint32_t madc_hi_cc3(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t r;
  asm volatile("madc.hi.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
}
CUZK_PTX uint32_t madc_hi3(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t r;
  asm volatile("madc.hi.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
}
CUZK_PTX uint32_t add_cc(uint32_t a, uint32_t b) {
  uint32_t r;
  asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
CUZK_PTX uint32_t addc_cc(uint32_t a, uint32_t b) {
  uint32_t r;
  asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
CUZK_PTX uint32_t addc(uint32_t a, uint32_t b) {
  uint32_t r;
  asm volatile("addc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
CUZK_PTX uint32_t sub_cc(uint32_t a, uint32_t b) {
  uint32_t r;
  asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
CUZK_PTX uint32_t subc_cc(uint32_t a, uint32_t b) {
  uint32_t r;
  asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
// 0 or 0xffffffff: the borrow left by a sub.cc/subc.cc chain, as a mask.
CUZK_PTX uint32_t borrow_mask() {
  uint32_t r;
  asm volatile("subc.u32 %0, 0, 0;" : "=r"(r));
  return r;
}
#undef CUZK_PTX
#else
inline thread_local uint32_t cf = 0;  // the carry (or borrow) flag
inline uint32_t put(uint64_t s) {     // s < 2^33: the low word, the flag from bit 32
  cf = uint32_t(s >> 32);
  return uint32_t(s);
}
inline uint32_t lo(uint32_t a, uint32_t b) { return uint32_t(uint64_t(a) * b); }
inline uint32_t hi(uint32_t a, uint32_t b) { return uint32_t((uint64_t(a) * b) >> 32); }
inline uint32_t mul_lo(uint32_t a, uint32_t b) { return lo(a, b); }
inline uint32_t mul_hi(uint32_t a, uint32_t b) { return hi(a, b); }
inline void mad_lo_cc(uint32_t& acc, uint32_t a, uint32_t b) { acc = put(uint64_t(acc) + lo(a, b)); }
inline void madc_lo_cc(uint32_t& acc, uint32_t a, uint32_t b) { acc = put(uint64_t(acc) + lo(a, b) + cf); }
inline void madc_hi_cc(uint32_t& acc, uint32_t a, uint32_t b) { acc = put(uint64_t(acc) + hi(a, b) + cf); }
inline uint32_t mad_lo_cc3(uint32_t a, uint32_t b, uint32_t c) { return put(uint64_t(lo(a, b)) + c); }
inline uint32_t madc_lo_cc3(uint32_t a, uint32_t b, uint32_t c) { return put(uint64_t(lo(a, b)) + c + cf); }
inline uint32_t madc_hi_cc3(uint32_t a, uint32_t b, uint32_t c) { return put(uint64_t(hi(a, b)) + c + cf); }
inline uint32_t madc_hi3(uint32_t a, uint32_t b, uint32_t c) { return uint32_t(uint64_t(hi(a, b)) + c + cf); }
inline uint32_t add_cc(uint32_t a, uint32_t b) { return put(uint64_t(a) + b); }
inline uint32_t addc_cc(uint32_t a, uint32_t b) { return put(uint64_t(a) + b + cf); }
inline uint32_t addc(uint32_t a, uint32_t b) { return uint32_t(uint64_t(a) + b + cf); }
inline uint32_t sub_cc(uint32_t a, uint32_t b) {
  const uint32_t r = a - b;
  cf = a < b;
  return r;
}
inline uint32_t subc_cc(uint32_t a, uint32_t b) {
  const uint64_t t = uint64_t(b) + cf;
  const uint32_t r = uint32_t(uint64_t(a) - t);
  cf = uint64_t(a) < t;
  return r;
}
inline uint32_t borrow_mask() { return cf ? 0xffffffffu : 0u; }
#endif
}  // namespace ptx

// Words of the modulus and -p^-1 mod 2^32, folded to constants from MontConsts.
template <int N>
CUZK_DEV constexpr uint32_t mod_word(const MontConsts<N>& k, int i) {
  return uint32_t(k.p.v[i / 2] >> (32 * (i & 1)));
}

template <int N>
struct DevWords {
  static constexpr int n = 2 * N;
  uint32_t w[n];
  CUZK_DEV explicit DevWords(const uint64_t* l) {
    CUZK_UNROLL for (int i = 0; i < N; ++i) {
      w[2 * i] = uint32_t(l[i]);
      w[2 * i + 1] = uint32_t(l[i] >> 32);
    }
  }
  CUZK_DEV void store(uint64_t* l) const {
    CUZK_UNROLL for (int i = 0; i < N; ++i) l[i] = uint64_t(w[2 * i]) | (uint64_t(w[2 * i + 1]) << 32);
  }
};

// acc[0..n) += the products x[off], x[off+2], ... times y, each 64-bit product landing on a word
// pair (lo in acc[2j], hi in acc[2j+1]). Starts a fresh chain; the carry out (into acc[n]'s
// position) is left in the flag.
template <int n>
CUZK_DEV void mad_row(uint32_t* acc, const uint32_t* x, int off, uint32_t y) {
  ptx::mad_lo_cc(acc[0], x[off], y);
  ptx::madc_hi_cc(acc[1], x[off], y);
  CUZK_UNROLL for (int j = 2; j < n; j += 2) {
    ptx::madc_lo_cc(acc[j], x[off + j], y);
    ptx::madc_hi_cc(acc[j + 1], x[off + j], y);
  }
}

// r = (r < p ? r : r - p) for r < 2p.
template <int N>
CUZK_DEV void final_sub(uint32_t* r, const MontConsts<N>& k) {
  constexpr int n = 2 * N;
  uint32_t t[n];
  t[0] = ptx::sub_cc(r[0], mod_word<N>(k, 0));
  CUZK_UNROLL for (int i = 1; i < n; ++i) t[i] = ptx::subc_cc(r[i], mod_word<N>(k, i));
  uint32_t borrow = ptx::borrow_mask();
  CUZK_UNROLL for (int i = 0; i < n; ++i) r[i] = borrow ? r[i] : t[i];
}

// Montgomery product a*b/2^(32n) mod p, CIOS over 32-bit words with two accumulators: the
// products of even-indexed words of a (and p) go to one, odd-indexed to the other (offset by
// one word), so every multiply-add chain writes disjoint word pairs. After each round the
// accumulator at offset 0 has a zero low word; dividing by 2^32 turns the other one into the
// offset-0 accumulator and this one, shifted down two words while the next round's odd products
// are added, into the offset-1 one. With p < 2^(32n-1) every round's total stays below
// 2^(32n+32) (T < 2p invariant), so the offset-1 chain never carries out.
template <int N>
CUZK_DEV void mont_mul_dev(uint32_t* r, const uint32_t* a, const uint32_t* b, const MontConsts<N>& k) {
  constexpr int n = 2 * N;
  uint32_t p[n];
  CUZK_UNROLL for (int i = 0; i < n; ++i) p[i] = mod_word<N>(k, i);
  const uint32_t m0 = uint32_t(k.inv);
  uint32_t acc0[n], acc1[n];
  CUZK_UNROLL for (int i = 0; i < n; ++i) {
    uint32_t* E = (i & 1) ? acc1 : acc0;  // offset 0
    uint32_t* O = (i & 1) ? acc0 : acc1;  // offset 1 (holds the previous round's offset-0 words)
    const uint32_t bi = b[i];
    if (i == 0) {
      CUZK_UNROLL for (int j = 0; j < n; j += 2) {
        E[j] = ptx::mul_lo(a[j], bi);
        E[j + 1] = ptx::mul_hi(a[j], bi);
        O[j] = ptx::mul_lo(a[j + 1], bi);
        O[j + 1] = ptx::mul_hi(a[j + 1], bi);
      }
    } else {
      // E (last round's offset-1 words) now sits at offset 0; O's words 1.. move down to
      // offset 1, meeting the odd products of this round in one chain.
      E[0] = ptx::add_cc(E[0], O[1]);
      CUZK_UNROLL for (int j = 0; j < n - 2; j += 2) {
        O[j] = ptx::madc_lo_cc3(a[j + 1], bi, O[j + 2]);
        O[j + 1] = ptx::madc_hi_cc3(a[j + 1], bi, O[j + 3]);
      }
      O[n - 2] = ptx::madc_lo_cc3(a[n - 1], bi, 0);
      O[n - 1] = ptx::madc_hi3(a[n - 1], bi, 0);
      mad_row<n>(E, a, 0, bi);
      O[n - 1] = ptx::addc(O[n - 1], 0);
    }
    const uint32_t m = ptx::mul_lo(E[0], m0);
    mad_row<n>(O, p, 1, m);  // never carries out (see above)
    mad_row<n>(E, p, 0, m);
    O[n - 1] = ptx::addc(O[n - 1], 0);
  }
  // n is even: the last round's offset-0 accumulator is acc1 (low word zero), offset 1 is acc0.
  r[0] = ptx::add_cc(acc0[0], acc1[1]);
  CUZK_UNROLL for (int i = 1; i < n - 1; ++i) r[i] = ptx::addc_cc(acc0[i], acc1[i + 1]);
  r[n - 1] = ptx::addc(acc0[n - 1], 0);
  final_sub<N>(r, k);
}

// a + b mod p (a, b < p, so a + b < 2p < 2^(32n) does not carry out).
template <int N>
CUZK_DEV void add_mod_dev(uint32_t* r, const uint32_t* a, const uint32_t* b, const MontConsts<N>& k) {
  constexpr int n = 2 * N;
  r[0] = ptx::add_cc(a[0], b[0]);
  CUZK_UNROLL for (int i = 1; i < n - 1; ++i) r[i] = ptx::addc_cc(a[i], b[i]);
  r[n - 1] = ptx::addc(a[n - 1], b[n - 1]);
  final_sub<N>(r, k);
}

// a - b mod p: subtract, then add p back under the borrow mask.
template <int N>
CUZK_DEV void sub_mod_dev(uint32_t* r, const uint32_t* a, const uint32_t* b, const MontConsts<N>& k) {
  constexpr int n = 2 * N;
  r[0] = ptx::sub_cc(a[0], b[0]);
  CUZK_UNROLL for (int i = 1; i < n; ++i) r[i] = ptx::subc_cc(a[i], b[i]);
  uint32_t mask = ptx::borrow_mask();
  r[0] = ptx::add_cc(r[0], mod_word<N>(k, 0) & mask);
  CUZK_UNROLL for (int i = 1; i < n - 1; ++i) r[i] = ptx::addc_cc(r[i], mod_word<N>(k, i) & mask);
  r[n - 1] = ptx::addc(r[n - 1], mod_word<N>(k, n - 1) & mask);
}
// ------------------------------------------------------------- lazy reduction
//
// A product kept at double width (2n words, no reduction) lets a difference of products share
// one Montgomery reduction: a*b - c*d is two products and one reduction instead of two full
// products (the Y coordinate of every XYZZ addition). The reduction below takes any
// T < p 2^(32n) (the Montgomery R) to T / R mod p, fully reduced, so every result is
// bit-identical to the one of full products.

// acc[s, s + n) += x[off], x[off + 2], ... times y, each 64-bit product on a word pair. Words at
// index >= top have not been written yet and count as 0. A chain whose top word was not written
// before cannot carry out of it (hi(x y) + 1 < 2^32); otherwise its carry goes to acc[s + n],
// which the row order of mul_wide_dev has not written yet (there the rows come in pairs with
// the same start: the first meets a fresh top word, the second carries one word above it).
// Returns the new top. All indices fold to constants once the caller's loops are unrolled.
template <int n>
CUZK_DEV int wide_row(uint32_t* acc, int s, int top, const uint32_t* x, int off, uint32_t y) {
  acc[s] = ptx::mad_lo_cc3(x[off], y, s < top ? acc[s] : 0);
  acc[s + 1] = ptx::madc_hi_cc3(x[off], y, s + 1 < top ? acc[s + 1] : 0);
  CUZK_UNROLL for (int j = 2; j < n; j += 2) {
    acc[s + j] = ptx::madc_lo_cc3(x[off + j], y, s + j < top ? acc[s + j] : 0);
    acc[s + j + 1] = ptx::madc_hi_cc3(x[off + j], y, s + j + 1 < top ? acc[s + j + 1] : 0);
  }
  if (s + n - 1 >= top) return s + n;
  acc[s + n] = ptx::addc(0, 0);
  return s + n + 1;
}

// t[0, 2n) = a * b, no reduction. Two accumulators, as in mont_mul_dev: rows whose products
// start at an even word go to `ev`, the others to `od` (od[j] is word j + 1), so no chain ever
// writes a word pair another chain of the same round writes; one add chain joins them.
template <int N>
CUZK_DEV void mul_wide_dev(uint32_t* t, const uint32_t* a, const uint32_t* b) {
  constexpr int n = 2 * N;
  uint32_t ev[2 * n], od[2 * n];
  int top_e = 0, top_o = 0;
  CUZK_UNROLL for (int i = 0; i < n; ++i) {
    const uint32_t bi = b[i];
    if ((i & 1) == 0) {
      top_e = wide_row<n>(ev, i, top_e, a, 0, bi);
      top_o = wide_row<n>(od, i, top_o, a, 1, bi);
    } else {
      top_o = wide_row<n>(od, i - 1, top_o, a, 0, bi);
      top_e = wide_row<n>(ev, i + 1, top_e, a, 1, bi);
    }
  }
  t[0] = ev[0];
  t[1] = ptx::add_cc(ev[1], od[0]);
  CUZK_UNROLL for (int j = 2; j < 2 * n - 1; ++j) t[j] = ptx::addc_cc(ev[j], od[j - 1]);
  t[2 * n - 1] = ptx::addc(ev[2 * n - 1], od[2 * n - 2]);
}

// r = t / R mod p for t < p R (R = 2^(32n)), fully reduced. The low half is reduced as in
// mont_mul_dev's rounds with the product rows left out (the shift by one word joins the odd
// reduction row's chain, m taken from the sum's low word first): (t_lo + m p) / R <= p; the
// high half (< p) is then added and one subtraction of p finishes.
template <int N>
CUZK_DEV void redc_dev(uint32_t* r, const uint32_t* t, const MontConsts<N>& k) {
  constexpr int n = 2 * N;
  uint32_t p[n];
  CUZK_UNROLL for (int i = 0; i < n; ++i) p[i] = mod_word<N>(k, i);
  const uint32_t m0 = uint32_t(k.inv);
  uint32_t acc0[n], acc1[n];
  CUZK_UNROLL for (int i = 0; i < n; ++i) {
    uint32_t* E = (i & 1) ? acc1 : acc0;  // offset 0
    uint32_t* O = (i & 1) ? acc0 : acc1;  // offset 1
    uint32_t m;
    if (i == 0) {
      CUZK_UNROLL for (int j = 0; j < n; ++j) E[j] = t[j];
      m = ptx::mul_lo(E[0], m0);
      CUZK_UNROLL for (int j = 0; j < n; j += 2) {
        O[j] = ptx::mul_lo(p[j + 1], m);
        O[j + 1] = ptx::mul_hi(p[j + 1], m);
      }
    } else {
      m = ptx::mul_lo(E[0] + O[1], m0);
      E[0] = ptx::add_cc(E[0], O[1]);
      CUZK_UNROLL for (int j = 0; j < n - 2; j += 2) {
        O[j] = ptx::madc_lo_cc3(p[j + 1], m, O[j + 2]);
        O[j + 1] = ptx::madc_hi_cc3(p[j + 1], m, O[j + 3]);
      }
      O[n - 2] = ptx::madc_lo_cc3(p[n - 1], m, 0);
      O[n - 1] = ptx::madc_hi3(p[n - 1], m, 0);
    }
    mad_row<n>(E, p, 0, m);
    O[n - 1] = ptx::addc(O[n - 1], 0);
  }
  r[0] = ptx::add_cc(acc0[0], acc1[1]);
  CUZK_UNROLL for (int i = 1; i < n - 1; ++i) r[i] = ptx::addc_cc(acc0[i], acc1[i + 1]);
  r[n - 1] = ptx::addc(acc0[n - 1], 0);
  r[0] = ptx::add_cc(r[0], t[n]);
  CUZK_UNROLL for (int i = 1; i < n - 1; ++i) r[i] = ptx::addc_cc(r[i], t[n + i]);
  r[n - 1] = ptx::addc(r[n - 1], t[2 * n - 1]);
  final_sub<N>(r, k);
}

// r = x - y over 2n words, plus p R when that went below 0: for |x - y| < p R the result is in
// [0, p R) and congruent to x - y, as redc_dev needs.
template <int N>
CUZK_DEV void sub_wide_dev(uint32_t* r, const uint32_t* x, const uint32_t* y, const MontConsts<N>& k) {
  constexpr int n = 2 * N;
  r[0] = ptx::sub_cc(x[0], y[0]);
  CUZK_UNROLL for (int i = 1; i < 2 * n; ++i) r[i] = ptx::subc_cc(x[i], y[i]);
  const uint32_t mask = ptx::borrow_mask();
  r[n] = ptx::add_cc(r[n], mod_word<N>(k, 0) & mask);
  CUZK_UNROLL for (int i = 1; i < n - 1; ++i) r[n + i] = ptx::addc_cc(r[n + i], mod_word<N>(k, i) & mask);
  r[2 * n - 1] = ptx::addc(r[2 * n - 1], mod_word<N>(k, n - 1) & mask);
}

// r = a * b - c * d (Montgomery form), one reduction: |ab - cd| < p^2 < p R. (Each product
// below p R is enough: one factor of each may be any value below R.)
template <int N>
CUZK_DEV void mul_sub_dev(uint32_t* r, const uint32_t* a, const uint32_t* b, const uint32_t* c, const uint32_t* d,
                          const MontConsts<N>& k) {
  constexpr int n = 2 * N;
  uint32_t x[2 * n], y[2 * n];
  mul_wide_dev<N>(x, a, b);
  mul_wide_dev<N>(y, c, d);
  sub_wide_dev<N>(x, x, y, k);
  redc_dev<N>(r, x, k);
}

#undef CUZK_DEV
#endif  // __CUDA_ARCH__ || CUZK_PTX_EMULATE

// ------------------------------------------------------------- the field

// Params provides: static constexpr int N; static constexpr const char* modulus (hex);
// static constexpr const char* name.
template <class ParamsT>
struct Fp {
  using Params = ParamsT;
  static constexpr int N = Params::N;
  static constexpr int BYTES = 8 * N;
  static constexpr MontConsts<N> K = make_mont_consts<N>(parse_limbs<N>(Params::modulus));
  using Limbs = ff::Limbs<N>;
  static_assert(K.p.v[N - 1] < 0x7fffffffffffffffull, "the no-carry Montgomery product needs a spare top bit");

  uint64_t l[N];

  CUZK_HD static uint64_t mod(int i) { CUZK_FIELD_CONSTS return k.p.v[i]; }

  CUZK_HD static Fp zero() {
    Fp r;
    CUZK_UNROLL for (int i = 0; i < N; ++i) r.l[i] = 0;
    return r;
  }
  CUZK_HD static Fp one() {
    CUZK_FIELD_CONSTS
    Fp r;
    CUZK_UNROLL for (int i = 0; i < N; ++i) r.l[i] = k.r1.v[i];
    return r;
  }
  // Montgomery form of a standard-form value that is already < p.
  CUZK_HD static Fp from_std(const Limbs& a) {
    CUZK_FIELD_CONSTS
    Fp r, r2;
    CUZK_UNROLL for (int i = 0; i < N; ++i) {
      r.l[i] = a.v[i];
      r2.l[i] = k.r2.v[i];
    }
    return r * r2;
  }
  CUZK_HD static Fp from_u64(uint64_t v) {
    Limbs a{};
    a.v[0] = v;
    return from_std(a);
  }
  // Raw limbs are taken as they are (already Montgomery form), e.g. zkey point coordinates.
  CUZK_HD static Fp from_raw(const uint64_t* raw) {
    Fp r;
    CUZK_UNROLL for (int i = 0; i < N; ++i) r.l[i] = raw[i];
    return r;
  }
  CUZK_HD Limbs to_std() const {
    Fp one_raw = zero();
    one_raw.l[0] = 1;
    Fp t = *this * one_raw;
    Limbs r;
    CUZK_UNROLL for (int i = 0; i < N; ++i) r.v[i] = t.l[i];
    return r;
  }
  // True when the raw limbs hold a value < p (as every stored coordinate must).
  CUZK_HD bool is_reduced() const {
    CUZK_FIELD_CONSTS
    for (int i = N - 1; i >= 0; --i) {
      if (l[i] != k.p.v[i]) return l[i] < k.p.v[i];
    }
    return false;
  }

  CUZK_HD bool is_zero() const {
    uint64_t acc = 0;
    CUZK_UNROLL for (int i = 0; i < N; ++i) acc |= l[i];
    return acc == 0;
  }
  CUZK_HD bool is_one() const { return *this == one(); }
  CUZK_HD friend bool operator==(const Fp& a, const Fp& b) {
    uint64_t acc = 0;
    CUZK_UNROLL for (int i = 0; i < N; ++i) acc |= a.l[i] ^ b.l[i];
    return acc == 0;
  }
  CUZK_HD friend bool operator!=(const Fp& a, const Fp& b) { return !(a == b); }

  // r = a - p if a >= p (a holds at most 2p - 1 and fits N limbs).
  CUZK_HD_HOT void reduce_once() {
    CUZK_FIELD_CONSTS
    uint64_t t[N];
    uint8_t borrow = 0;
    CUZK_UNROLL for (int i = 0; i < N; ++i) borrow = sub_borrow(borrow, l[i], k.p.v[i], &t[i]);
    CUZK_UNROLL for (int i = 0; i < N; ++i) l[i] = borrow ? l[i] : t[i];
  }

  CUZK_HD_HOT friend Fp operator+(const Fp& a, const Fp& b) {
#if defined(__CUDA_ARCH__)
    CUZK_FIELD_CONSTS
    DevWords<N> x(a.l), y(b.l);
    add_mod_dev<N>(x.w, x.w, y.w, k);
    Fp r;
    x.store(r.l);
    return r;
#else
    Fp r;
    uint8_t carry = 0;
    CUZK_UNROLL for (int i = 0; i < N; ++i) carry = add_carry(carry, a.l[i], b.l[i], &r.l[i]);
    r.reduce_once();  // no carry out: p < 2^(64N-1)
    return r;
#endif
  }
  CUZK_HD_HOT friend Fp operator-(const Fp& a, const Fp& b) {
    CUZK_FIELD_CONSTS
#if defined(__CUDA_ARCH__)
    DevWords<N> x(a.l), y(b.l);
    sub_mod_dev<N>(x.w, x.w, y.w, k);
    Fp r;
    x.store(r.l);
    return r;
#else
    Fp r;
    uint8_t borrow = 0;
    CUZK_UNROLL for (int i = 0; i < N; ++i) borrow = sub_borrow(borrow, a.l[i], b.l[i], &r.l[i]);
    uint64_t mask = 0 - uint64_t(borrow);  // add p back when the difference went negative
    uint8_t carry = 0;
    CUZK_UNROLL for (int i = 0; i < N; ++i) carry = add_carry(carry, r.l[i], k.p.v[i] & mask, &r.l[i]);
    return r;
#endif
  }
  CUZK_HD Fp operator-() const { return is_zero() ? *this : zero() - *this; }
  CUZK_HD Fp dbl() const { return *this + *this; }

  // Montgomery product, CIOS (Koc, Acar, Kaliski 1996) in the "no-carry" form: when the top
  // limb of p is below 2^63 - 1 the intermediate t never needs an (N+1)-th and (N+2)-th word
  // (Gnark's observation, see gnark-crypto's field generator), which saves a third of the
  // additions. Final conditional subtraction as usual.
  CUZK_HD_HOT friend Fp operator*(const Fp& a, const Fp& b) {
    CUZK_FIELD_CONSTS
#if defined(__CUDA_ARCH__)
    DevWords<N> x(a.l), y(b.l);
    uint32_t t[2 * N];
    mont_mul_dev<N>(t, x.w, y.w, k);
    Fp r;
    CUZK_UNROLL for (int i = 0; i < N; ++i) r.l[i] = uint64_t(t[2 * i]) | (uint64_t(t[2 * i + 1]) << 32);
    return r;
#else
#if defined(CUZK_X86_CARRY)
    if constexpr (N == 4 || N == 6) {
      if (x86_mulx_adx) {
        Fp r;
        if constexpr (N == 4)
          x86::mont_mul_x86_4(r.l, a.l, b.l, k.p.v, k.inv);
        else
          x86::mont_mul_x86_6(r.l, a.l, b.l, k.p.v, k.inv);
        r.reduce_once();
        return r;
      }
    }
#endif
    return mul_portable(a, b);
#endif
  }
#if !defined(__CUDA_ARCH__)
  // The product in portable C++ (every host; the x86 assembly is checked against it).
  static Fp mul_portable(const Fp& a, const Fp& b) {
    CUZK_FIELD_CONSTS
    using u128 = unsigned __int128;
    uint64_t t[N];
    CUZK_UNROLL for (int i = 0; i < N; ++i) t[i] = 0;
    CUZK_UNROLL for (int i = 0; i < N; ++i) {
      u128 s = (u128)a.l[0] * b.l[i] + t[0];
      uint64_t A = uint64_t(s >> 64);
      t[0] = uint64_t(s);
      uint64_t m = t[0] * k.inv;
      u128 q = (u128)m * k.p.v[0] + t[0];
      uint64_t C = uint64_t(q >> 64);
      CUZK_UNROLL for (int j = 1; j < N; ++j) {
        s = (u128)a.l[j] * b.l[i] + t[j] + A;
        A = uint64_t(s >> 64);
        t[j] = uint64_t(s);
        q = (u128)m * k.p.v[j] + t[j] + C;
        C = uint64_t(q >> 64);
        t[j - 1] = uint64_t(q);
      }
      t[N - 1] = C + A;
    }
    Fp r;
    CUZK_UNROLL for (int i = 0; i < N; ++i) r.l[i] = t[i];
    r.reduce_once();
    return r;
  }
#endif
  CUZK_HD Fp sqr() const { return *this * *this; }
  CUZK_HD Fp& operator+=(const Fp& b) { return *this = *this + b; }
  CUZK_HD Fp& operator-=(const Fp& b) { return *this = *this - b; }
  CUZK_HD Fp& operator*=(const Fp& b) { return *this = *this * b; }

  template <int M>
  CUZK_HD Fp pow(const ff::Limbs<M>& e) const {
    Fp r = one();
    for (int i = M - 1; i >= 0; --i) {
      for (int b = 63; b >= 0; --b) {
        r = r.sqr();
        if ((e.v[i] >> b) & 1) r = r * *this;
      }
    }
    return r;
  }
  CUZK_HD Fp pow_u64(uint64_t e) const {
    ff::Limbs<1> x{{e}};
    return pow(x);
  }
  // Inverse by Fermat's little theorem; the inverse of 0 is 0.
  CUZK_HD Fp inv() const { CUZK_FIELD_CONSTS return pow(k.p_minus_2); }
  // Legendre symbol: 1 (non-zero square), -1 (non-square), 0.
  CUZK_HD int legendre() const {
    CUZK_FIELD_CONSTS
    if (is_zero()) return 0;
    return pow(k.p_minus_1_div_2).is_one() ? 1 : -1;
  }
  // A square root when p = 3 mod 4 (all base fields here); false if there is none.
  CUZK_HD bool sqrt(Fp& out) const {
    CUZK_FIELD_CONSTS
    Fp c = pow(k.p_plus_1_div_4);
    if (c.sqr() != *this) return false;
    out = c;
    return true;
  }
};

// a * b - c * d. On the GPU both products stay at double width and share one reduction (the
// value is the same, fully reduced, as that of two full products).
template <class P>
CUZK_HD_HOT Fp<P> mul_sub(const Fp<P>& a, const Fp<P>& b, const Fp<P>& c, const Fp<P>& d) {
#if defined(__CUDA_ARCH__)
  constexpr int N = Fp<P>::N;
  constexpr MontConsts<N> k = Fp<P>::K;
  DevWords<N> x(a.l), y(b.l), z(c.l), u(d.l);
  mul_sub_dev<N>(x.w, x.w, y.w, z.w, u.w, k);
  Fp<P> r;
  x.store(r.l);
  return r;
#else
  return a * b - c * d;
#endif
}

// Inverts every non-zero element of v in place with one field inversion (Montgomery's trick);
// zeros stay zero. scratch must hold n elements. The running products go in four interleaved
// lanes (element i in lane i % 4): four independent chains of products in flight instead of
// one, and the four lane totals inverted together.
template <class F>
void batch_inverse(F* v, size_t n, F* scratch) {
  constexpr size_t L = 4;
  F acc[L] = {F::one(), F::one(), F::one(), F::one()};
  for (size_t i = 0; i < n; i += L) {
    for (size_t l = 0; l < L && i + l < n; ++l) {
      scratch[i + l] = acc[l];
      if (!v[i + l].is_zero()) acc[l] = acc[l] * v[i + l];
    }
  }
  // inv[l] = 1 / acc[l], from one inversion of the product of the four
  F pre[L], inv[L];
  pre[0] = F::one();
  for (size_t l = 1; l < L; ++l) pre[l] = pre[l - 1] * acc[l - 1];
  F t = (pre[L - 1] * acc[L - 1]).inv();
  for (size_t l = L; l-- > 0;) {
    inv[l] = t * pre[l];
    t = t * acc[l];
  }
  for (size_t i = (n + L - 1) / L * L; i > 0;) {
    i -= L;
    for (size_t l = L; l-- > 0;) {
      if (i + l >= n || v[i + l].is_zero()) continue;
      const F vi = v[i + l];
      v[i + l] = inv[l] * scratch[i + l];
      inv[l] = inv[l] * vi;
    }
  }
}

}  // namespace cuzk::ff
