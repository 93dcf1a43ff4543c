// SPDX-License-Identifier: MIT OR Apache-2.0
// bellperson's Groth16 parameter files on BLS12-381: `.params` (the proving key) and `.vk` (its
// verifying-key prefix alone), as `Parameters::write` and `VerifyingKey::write` lay them out. No
// padding; counts are u32 big-endian:
//
//   alpha_g1 G1 | beta_g1 G1 | beta_g2 G2 | gamma_g2 G2 | delta_g1 G1 | delta_g2 G2 | u32 n | ic: n G1
//   u32 n | h: n G1 | u32 n | l: n G1 | u32 n | a: n G1 | u32 n | b_g1: n G1 | u32 n | b_g2: n G2
//
// Points are uncompressed (zcash encoding, blst's serialize): G1 x ‖ y, G2 x.c1 ‖ x.c0 ‖ y.c1 ‖ y.c0,
// each coordinate 48 bytes big-endian; the top three bits of byte 0 are flags (compressed: must be
// 0 here; infinity: the rest all zero; sort: must be 0 when uncompressed).
//
// The reader maps the file and checks the layout against the file's size before it decodes any
// point; then every point: coordinates canonical (< q), on the curve, not the identity where
// bellperson refuses it (ic, h, l, a, b_g1, b_g2; bellperson's VerifyingKey::read and
// Parameters::read), and in the prime-order subgroup: always for the verifying key (bellperson
// reads it checked), for the other sections with `check` (bellperson's `checked`). Sections are
// spans of the file's bytes; points decode on demand.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ec/curves.hpp"
#include "io/binfile.hpp"
#include "util/fill_vector.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::filecoin {

using Bls = ec::Bls12381;
using G1 = Bls::G1Affine;
using G2 = Bls::G2Affine;

constexpr size_t kG1Bytes = 96, kG2Bytes = 192;
// alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2, then ic's count.
constexpr size_t kVkFixedBytes = 3 * kG1Bytes + 3 * kG2Bytes + 4;

// One section's points in the file: `count` uncompressed points from `offset`.
struct PointSection {
  const char* name = "";
  bool g2 = false;
  uint64_t offset = 0;
  uint32_t count = 0;
  bool counted = false;            // a section with a count (ic .. b_g2), where the identity is refused
  std::span<const uint8_t> bytes;  // count * point_bytes()

  size_t point_bytes() const { return g2 ? kG2Bytes : kG1Bytes; }
  std::span<const uint8_t> raw(size_t i) const { return bytes.subspan(i * point_bytes(), point_bytes()); }
};

struct ParamsFile {
  std::shared_ptr<io::FileBytes> file;
  bool is_vk = false;  // the file ends after ic
  PointSection alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2;
  PointSection ic, h, l, a, b_g1, b_g2;  // h .. b_g2 empty in a .vk

  const std::string& path() const { return file->path(); }
  uint64_t size() const { return file->bytes().size(); }
  // In file order (the six vk points, ic, and for a .params h, l, a, b_g1, b_g2).
  std::vector<const PointSection*> sections() const;

  // Point i of a G1 (G2) section, decoded and checked on the curve (not the subgroup): throws
  // FormatError naming the file, section and index.
  G1 g1(const PointSection& s, size_t i) const;
  G2 g2(const PointSection& s, size_t i) const;
  // A whole section decoded (cuzk's affine form) and checked as the reader checks it (the
  // identity refused in a counted section; the subgroup too with `subgroup`), spread over the
  // pool; FormatError names the first bad point.
  FillVector<G1> g1s(const PointSection& s, ThreadPool& pool, bool subgroup = false) const;
  FillVector<G2> g2s(const PointSection& s, ThreadPool& pool, bool subgroup = false) const;
  // Throws the FormatError of point i of s: "section S, point i (offset O) <why>".
  [[noreturn]] void fail_point(const PointSection& s, size_t i, const char* why) const;
};

// Reads a .params or a .vk (told apart by where the file ends). `check` adds the subgroup check
// of h, l, a, b_g1 and b_g2, spread over the pool. Throws FormatError naming the file, and for a
// point its section and index. `defer` checks the layout and the verifying key alone, leaving
// the points of h .. b_g2 to be checked as g1s / g2s decode them (a key loaded once, not twice).
ParamsFile read_params(const std::string& path, ThreadPool& pool, bool check = false, bool defer = false);
ParamsFile parse_params(std::shared_ptr<io::FileBytes> file, ThreadPool& pool, bool check = false, bool defer = false);

// One uncompressed point: nullptr when it decodes (identity included), else what is wrong.
const char* decode_uncompressed(const uint8_t* in, G1& out, bool subgroup);
const char* decode_uncompressed(const uint8_t* in, G2& out, bool subgroup);
void encode_uncompressed(const G1& p, uint8_t* out);
void encode_uncompressed(const G2& p, uint8_t* out);

// The sections of a key in bellperson's layout, as a writer takes them (a, b_g1, b_g2 already
// density-compacted by whoever built them).
struct ParamsData {
  G1 alpha_g1, beta_g1, delta_g1;
  G2 beta_g2, gamma_g2, delta_g2;
  std::vector<G1> ic;
  FillVector<G1> h, l, a, b_g1;
  FillVector<G2> b_g2;
};

std::vector<uint8_t> encode_vk(const ParamsData& d);
std::vector<uint8_t> encode_params(const ParamsData& d);
// All-or-nothing writes (a temporary renamed into place).
void write_vk(const std::string& path, const ParamsData& d);
void write_params(const std::string& path, const ParamsData& d);

}  // namespace cuzk::filecoin
