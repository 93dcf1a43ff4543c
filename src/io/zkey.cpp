// SPDX-License-Identifier: MIT OR Apache-2.0
#include "io/zkey.hpp"

#include "util/error.hpp"

namespace cuzk::io {

namespace {

uint32_t load_u32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

// log2 of the largest power-of-two subgroup of Fr^* (the largest NTT domain): r - 1 = 2^s * t.
unsigned two_adicity(CurveId c) { return c == CurveId::bn254 ? 28 : 32; }

std::string sec(uint32_t id, const char* name) { return "section " + std::to_string(id) + " (" + name + ")"; }

// Exactly `expected` bytes, else "section 5 (A points) is 6400 bytes, expected 6464 = nVars 101 x 64".
std::span<const uint8_t> sized_section(const BinFile& bf, uint32_t id, const char* name, uint64_t expected,
                                       const std::string& formula) {
  auto s = bf.section(id, name);
  if (s.size() != expected) {
    throw FormatError(bf.path(), sec(id, name) + " is " + std::to_string(s.size()) + " bytes, expected " +
                                     std::to_string(expected) + " = " + formula);
  }
  return s;
}

// Every coordinate of `count` points of `coords` coordinates (n8q bytes each) must be < q.
void check_coordinates(const std::string& path, const std::string& what, std::span<const uint8_t> pts, size_t coords,
                       std::span<const uint8_t> q) {
  const size_t n8q = q.size();
  const size_t per_point = coords * n8q;
  for (size_t off = 0; off + n8q <= pts.size(); off += n8q) {
    if (!le_less(pts.subspan(off, n8q), q)) {
      throw FormatError(path, what + ": point " + std::to_string(off / per_point) + ", coordinate " +
                                  std::to_string((off % per_point) / n8q) + " is not reduced modulo q");
    }
  }
}

// ---- section 1: protocol
void read_protocol(const BinFile& bf, const std::string& path) {
  Reader r(path, "section 1 (protocol)", bf.section(1, "protocol"));
  uint32_t protocol = r.u32();
  if (protocol != 1) {
    const char* name = protocol == 2 ? "PLONK" : protocol == 10 ? "FFLONK" : "unknown";
    r.fail("not a Groth16 key (protocol " + std::to_string(protocol) + " = " + name + ", expected 1 = Groth16)");
  }
  r.expect_end();
}

// The two primes of the Groth16 header name one curve.
void read_primes(Reader& r, ZkeyGroth16& z) {
  z.n8q = r.u32();
  if (z.n8q != 32 && z.n8q != 48) {
    r.fail("n8q is " + std::to_string(z.n8q) + ", expected 32 (BN254) or 48 (BLS12-381)");
  }
  auto q = r.take(z.n8q);
  auto cq = curve_from_base_prime(q);
  if (!cq) {
    r.fail("base field prime q = " + le_hex(q) + " (n8q " + std::to_string(z.n8q) +
           ") is not that of BN254 or BLS12-381");
  }
  z.n8r = r.u32();
  if (z.n8r != 32) r.fail("n8r is " + std::to_string(z.n8r) + ", expected 32");
  auto rr = r.take(z.n8r);
  auto cr = curve_from_scalar_prime(rr);
  if (!cr) r.fail("scalar field prime r = " + le_hex(rr) + " is not that of BN254 or BLS12-381");
  if (*cr != *cq) {
    r.fail(std::string("scalar field prime r is that of ") + curve_name(*cr) + " but base field prime q is that of " +
           curve_name(*cq));
  }
  z.curve = *cq;
}

// nVars, nPublic and domainSize fit one another and the curve.
void check_sizes(const Reader& r, const ZkeyGroth16& z) {
  if (z.n_vars == 0) r.fail("nVars is 0 (wire 0, the constant ONE, always exists)");
  if (z.n_public >= z.n_vars) {
    r.fail("nPublic " + std::to_string(z.n_public) + " must be less than nVars " + std::to_string(z.n_vars) +
           " (wire 0 is the constant ONE)");
  }
  if (z.domain_size == 0 || (z.domain_size & (z.domain_size - 1)) != 0) {
    r.fail("domainSize " + std::to_string(z.domain_size) + " is not a power of two");
  }
  if (uint64_t(z.domain_size) < uint64_t(z.n_public) + 1) {
    r.fail("domainSize " + std::to_string(z.domain_size) +
           " is smaller than nPublic + 1 = " + std::to_string(uint64_t(z.n_public) + 1));
  }
  unsigned log_n = 0;
  while ((uint64_t(1) << log_n) < z.domain_size) ++log_n;
  if (log_n > two_adicity(z.curve)) {
    r.fail("domainSize 2^" + std::to_string(log_n) + " exceeds the largest power-of-two domain of " +
           curve_name(z.curve) + " (2^" + std::to_string(two_adicity(z.curve)) + ")");
  }
}

// ---- section 2: Groth16 header
void read_groth16_header(const BinFile& bf, const std::string& path, ZkeyGroth16& z) {
  Reader r(path, "section 2 (Groth16 header)", bf.section(2, "Groth16 header"));
  read_primes(r, z);
  z.n_vars = r.u32();
  z.n_public = r.u32();
  z.domain_size = r.u32();
  const size_t g1 = z.g1_bytes(), g2 = z.g2_bytes();
  z.alpha1 = r.take(g1);
  z.beta1 = r.take(g1);
  z.beta2 = r.take(g2);
  z.gamma2 = r.take(g2);
  z.delta1 = r.take(g1);
  z.delta2 = r.take(g2);
  r.expect_end();
  check_sizes(r, z);
  auto qs = base_prime_le(z.curve);
  const std::string what = "section 2 (Groth16 header)";
  check_coordinates(path, what + " alpha1", z.alpha1, 2, qs);
  check_coordinates(path, what + " beta1", z.beta1, 2, qs);
  check_coordinates(path, what + " beta2", z.beta2, 4, qs);
  check_coordinates(path, what + " gamma2", z.gamma2, 4, qs);
  check_coordinates(path, what + " delta1", z.delta1, 2, qs);
  check_coordinates(path, what + " delta2", z.delta2, 4, qs);
}

// ---- sections 3, 5..9: points (all products < 2^32 * 2^8, no overflow in 64 bits)
void read_points(const BinFile& bf, const std::string& path, ZkeyGroth16& z) {
  const uint64_t g1 = z.g1_bytes(), g2 = z.g2_bytes();
  const uint64_t nv = z.n_vars, np = z.n_public;
  const std::string sg1 = std::to_string(g1), sg2 = std::to_string(g2);
  z.ic = sized_section(bf, 3, "IC points", (np + 1) * g1, "(nPublic " + std::to_string(np) + " + 1) x " + sg1);
  check_coordinates(path, "section 3 (IC points)", z.ic, 2, base_prime_le(z.curve));
  z.a = sized_section(bf, 5, "A points", nv * g1, "nVars " + std::to_string(nv) + " x " + sg1);
  z.b1 = sized_section(bf, 6, "B1 points", nv * g1, "nVars " + std::to_string(nv) + " x " + sg1);
  z.b2 = sized_section(bf, 7, "B2 points", nv * g2, "nVars " + std::to_string(nv) + " x " + sg2);
  z.c = sized_section(bf, 8, "C points", (nv - np - 1) * g1,
                      "(nVars " + std::to_string(nv) + " - nPublic " + std::to_string(np) + " - 1) x " + sg1);
  z.h = sized_section(bf, 9, "H points", uint64_t(z.domain_size) * g1,
                      "domainSize " + std::to_string(z.domain_size) + " x " + sg1);
}

// ---- section 4: coefficients of A and B
void read_coefficients(const BinFile& bf, const std::string& path, ZkeyGroth16& z) {
  auto s = bf.section(4, "coefficients");
  Reader r(path, "section 4 (coefficients)", s);
  z.n_coefs = r.u32();
  const uint64_t cb = z.coef_bytes();
  const uint64_t expected = 4 + uint64_t(z.n_coefs) * cb;
  if (s.size() != expected) {
    throw FormatError(path, "section 4 (coefficients) is " + std::to_string(s.size()) + " bytes, expected " +
                                std::to_string(expected) + " = 4 + nCoefs " + std::to_string(z.n_coefs) + " x " +
                                std::to_string(cb));
  }
  z.coefs = s.subspan(4);
  auto rp = scalar_prime_le(z.curve);
  const uint8_t* p = z.coefs.data();
  for (uint32_t i = 0; i < z.n_coefs; ++i, p += cb) {
    uint32_t matrix = load_u32(p), row = load_u32(p + 4), signal = load_u32(p + 8);
    auto fail = [&](const std::string& m) { r.fail("coefficient " + std::to_string(i) + ": " + m); };
    if (matrix > 1) fail("matrix " + std::to_string(matrix) + " is not 0 (A) or 1 (B)");
    if (row >= z.domain_size) {
      fail("row " + std::to_string(row) + " >= domainSize " + std::to_string(z.domain_size));
    }
    if (signal >= z.n_vars) fail("signal " + std::to_string(signal) + " >= nVars " + std::to_string(z.n_vars));
    if (!le_less(std::span<const uint8_t>(p + 12, z.n8r), rp)) fail("value is not reduced modulo r");
  }
}

}  // namespace

ZkeyGroth16 read_zkey(const std::string& path) { return parse_zkey(FileBytes::map(path)); }

ZkeyGroth16 parse_zkey(std::shared_ptr<FileBytes> file) {
  BinFile bf = parse_binfile(file, "zkey", 1, 1);
  const std::string& path = file->path();
  ZkeyGroth16 z;
  z.file = file;
  read_protocol(bf, path);
  read_groth16_header(bf, path, z);
  read_points(bf, path, z);
  read_coefficients(bf, path, z);
  if (bf.has(kInsecureSection)) {
    auto note = bf.section(kInsecureSection, "insecure-setup marker");
    z.insecure_note.assign(note.begin(), note.end());
    if (z.insecure_note.empty()) z.insecure_note = "insecure setup";
  }
  return z;
}

}  // namespace cuzk::io
