// SPDX-License-Identifier: MIT OR Apache-2.0
#include "io/wtns.hpp"

#include "util/error.hpp"

namespace cuzk::io {

Wtns read_wtns(const std::string& path) { return parse_wtns(FileBytes::map(path)); }

Wtns parse_wtns(std::shared_ptr<FileBytes> file) {
  BinFile bf = parse_binfile(file, "wtns", 2, 2);
  const std::string& path = file->path();
  Wtns w;
  w.file = file;

  Reader h(path, "section 1 (header)", bf.section(1, "header"));
  auto field = read_scalar_field_header(h);
  w.n8 = field.n8;
  w.curve = field.curve;
  w.n_witness = h.u32();
  h.expect_end();
  if (w.n_witness == 0) h.fail("nWitness is 0 (a witness has at least wire 0, the constant ONE)");

  auto vals = bf.section(2, "witness values");
  const uint64_t expected = uint64_t(w.n_witness) * w.n8;
  if (vals.size() != expected) {
    throw FormatError(path, "section 2 (witness values) is " + std::to_string(vals.size()) + " bytes, expected " +
                                std::to_string(expected) + " = nWitness " + std::to_string(w.n_witness) + " x " +
                                std::to_string(w.n8));
  }
  auto r = scalar_prime_le(w.curve);
  for (uint32_t i = 0; i < w.n_witness; ++i) {
    if (!le_less(vals.subspan(size_t(i) * w.n8, w.n8), r)) {
      throw FormatError(path, "witness value " + std::to_string(i) + " is not reduced modulo r (value " +
                                  le_hex(vals.subspan(size_t(i) * w.n8, w.n8)) + ")");
    }
  }
  w.values = vals;
  return w;
}

}  // namespace cuzk::io
