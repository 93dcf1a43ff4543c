// SPDX-License-Identifier: MIT OR Apache-2.0
// `cuzk setup ... --format bellperson`: an insecure key in bellperson's convention (roots and
// coset of the generator, H as n - 1 coefficients, density-compacted A / B queries), written as
// OUT.params and OUT.vk in bellperson's layout.
#pragma once
#include <optional>
#include <string>

#include "filecoin/params.hpp"
#include "groth16/key.hpp"
#include "setup/tools.hpp"

namespace cuzk::filecoin {

// The sections of a bellperson-convention key as the writers take them (InvalidArgument for a
// key of snarkjs's convention).
ParamsData params_data_of(const groth16::ProvingKey<Bls>& pk);

// Writes `out_stem`.params and `out_stem`.vk for the circuit at `r1cs_path` (BLS12-381).
setup::SetupStats setup_params_files(const std::string& r1cs_path, const std::string& out_stem,
                                     std::optional<uint64_t> seed, setup::SetupDevice dev, ThreadPool& pool,
                                     const setup::Log& log);

}  // namespace cuzk::filecoin
