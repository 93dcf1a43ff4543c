// SPDX-License-Identifier: MIT OR Apache-2.0
#pragma once
#include <memory>
#include <span>
#include <string>

#include "ff/curve_id.hpp"
#include "io/binfile.hpp"

namespace cuzk::io {

// A .wtns file (version 2): n8 = 32, prime = r, nWitness values in standard form, little-endian.
struct Wtns {
  std::shared_ptr<FileBytes> file;
  CurveId curve{};
  uint32_t n8 = 0;
  uint32_t n_witness = 0;
  std::span<const uint8_t> values;  // n_witness * n8 bytes, each value checked < r

  const std::string& path() const { return file->path(); }
  std::span<const uint8_t> value(size_t i) const { return values.subspan(i * n8, n8); }
};

Wtns read_wtns(const std::string& path);
Wtns parse_wtns(std::shared_ptr<FileBytes> file);

}  // namespace cuzk::io
