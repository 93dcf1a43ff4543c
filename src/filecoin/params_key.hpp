// SPDX-License-Identifier: MIT OR Apache-2.0
// A bellperson .params as the prover's key, and a .vk (or the prefix of a .params) as the
// verifier's. The file carries points alone; what the prover also needs comes from the
// circuit's .r1cs, exactly as `cuzk setup --format bellperson` derived it: A and B rows (an
// input row per input appended to A), the density of A and B (the wires of the compacted a,
// b_g1, b_g2 points) and the domain. Every count of the file is checked against the circuit
// before a point is decoded, so a .params of another circuit is refused naming the section.
#pragma once
#include <string>

#include "backend/device.hpp"
#include "filecoin/params.hpp"
#include "groth16/key.hpp"
#include "groth16/verifier.hpp"
#include "io/r1cs.hpp"

namespace cuzk::filecoin {

struct ParamsLoadStats {
  double rows_ms = 0;    // the A and B rows and the densities from the .r1cs
  double points_ms = 0;  // every point decoded and checked into the key
  uint64_t point_bytes = 0;
  std::string decoded_on = "the host";  // or the device's name
};

// `subgroup` adds the subgroup check of every point (bellperson's `checked` read). Throws
// InvalidArgument when the file does not fit the circuit, FormatError for a bad point. With a
// `decoder` that offers it (a GPU), the large sections (h, l, a, b_g1, b_g2) are decoded and
// checked there, the same bytes as on the host (the subgroup check stays on the host's cores).
groth16::ProvingKey<Bls> proving_key_of(const ParamsFile& p, const io::R1cs& cs, ThreadPool& pool,
                                        bool subgroup = false, ParamsLoadStats* stats = nullptr,
                                        backend::Device* decoder = nullptr);

// The points of a .params alone, decoded and checked as proving_key_of checks them, into pk's
// sections (alpha1 .. delta2, ic, h, c = l, a, b1, b2); the sizes, rows and densities are the
// caller's to set (a caller that has the densities from elsewhere than an .r1cs).
void load_points(const ParamsFile& p, groth16::ProvingKey<Bls>& pk, ThreadPool& pool, bool subgroup = false,
                 backend::Device* decoder = nullptr);

// The verifying key of a .vk or a .params (its points were checked, subgroup included, when the
// file was read); n_public = ic - 1.
groth16::VerifyingKey<Bls> verifying_key_of(const ParamsFile& p);

}  // namespace cuzk::filecoin
