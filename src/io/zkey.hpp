// SPDX-License-Identifier: MIT OR Apache-2.0
#pragma once
#include <memory>
#include <span>
#include <string>

#include "ff/curve_id.hpp"
#include "io/binfile.hpp"

namespace cuzk::io {

// A Groth16 .zkey (snarkjs). Points are affine, each coordinate little-endian Montgomery
// (R = 2^(8*n8q)); (0,0) is the point at infinity. Spans point into the file's bytes.
// The id of the section `cuzk setup --insecure` adds to its keys ("cuzk" little-endian);
// snarkjs ignores sections it does not know.
constexpr uint32_t kInsecureSection = 0x6b7a7563;

struct ZkeyGroth16 {
  std::shared_ptr<FileBytes> file;
  CurveId curve{};
  uint32_t n8q = 0, n8r = 0;
  uint32_t n_vars = 0, n_public = 0, domain_size = 0;
  // Header points (section 2), in file order alpha1, beta1, beta2, gamma2, delta1, delta2.
  std::span<const uint8_t> alpha1, beta1, beta2, gamma2, delta1, delta2;
  std::span<const uint8_t> ic;  // section 3: (n_public + 1) G1
  std::span<const uint8_t> a;   // section 5: n_vars G1
  std::span<const uint8_t> b1;  // section 6: n_vars G1
  std::span<const uint8_t> b2;  // section 7: n_vars G2
  std::span<const uint8_t> c;   // section 8: (n_vars - n_public - 1) G1
  std::span<const uint8_t> h;   // section 9: domain_size G1
  // Section 4: n_coefs entries of { u32 matrix (0 = A, 1 = B); u32 row; u32 signal; u8 value[n8r] },
  // value = coefficient * R^2 mod r. Checked: matrix in {0,1}, row < domain_size, signal < n_vars,
  // value < r.
  uint32_t n_coefs = 0;
  std::span<const uint8_t> coefs;
  // Set when the key comes from an insecure setup (`cuzk setup --insecure`): the text of its
  // marker section (id kInsecureSection), which says how the toxic waste was made.
  std::string insecure_note;

  const std::string& path() const { return file->path(); }
  size_t g1_bytes() const { return 2 * size_t(n8q); }
  size_t g2_bytes() const { return 4 * size_t(n8q); }
  size_t coef_bytes() const { return 12 + size_t(n8r); }
};

// Throws FormatError naming the file and the problem: wrong magic/version, not Groth16
// (protocol != 1), unknown curve, n8q/n8r/q/r inconsistent, domain size not a power of two or
// smaller than n_public + 1, any section missing or of the wrong size, coefficient out of range.
ZkeyGroth16 read_zkey(const std::string& path);
ZkeyGroth16 parse_zkey(std::shared_ptr<FileBytes> file);

}  // namespace cuzk::io
