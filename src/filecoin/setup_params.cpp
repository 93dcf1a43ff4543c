// SPDX-License-Identifier: MIT OR Apache-2.0
#include "filecoin/setup_params.hpp"

#include <chrono>

#include "util/error.hpp"
#include "util/files.hpp"
#include "util/time.hpp"

namespace cuzk::filecoin {

ParamsData params_data_of(const groth16::ProvingKey<Bls>& pk) {
  if (pk.h_form != backend::HForm::Coefficients || !pk.compact)
    throw InvalidArgument("the key is not in bellperson's convention (H as coefficients, compacted A and B)");
  ParamsData d;
  d.alpha_g1 = pk.alpha1, d.beta_g1 = pk.beta1, d.delta_g1 = pk.delta1;
  d.beta_g2 = pk.beta2, d.gamma_g2 = pk.gamma2, d.delta_g2 = pk.delta2;
  d.ic = pk.ic, d.h = pk.h, d.l = pk.c, d.a = pk.a, d.b_g1 = pk.b1, d.b_g2 = pk.b2;
  return d;
}

setup::SetupStats setup_params_files(const std::string& r1cs_path, const std::string& out_stem,
                                     std::optional<uint64_t> seed, setup::SetupDevice dev, ThreadPool& pool,
                                     const setup::Log& log) {
  const std::string params = out_stem + ".params", vk = out_stem + ".vk";
  check_output_path(params);  // before the work, not after it
  check_output_path(vk);
  const auto t0 = std::chrono::steady_clock::now();
  io::R1cs cs = io::read_r1cs(r1cs_path);
  const double read_ms = ms_since(t0);
  setup::SetupStats st;
  const ParamsData d =
      params_data_of(setup::setup_key_bls12_381(cs, seed, dev, pool, log, backend::HForm::Coefficients, st));
  const auto tw = std::chrono::steady_clock::now();
  write_params(params, d);
  write_vk(vk, d);
  st.write_ms = ms_since(tw);
  st.read_ms = read_ms;
  st.total_ms = ms_since(t0);
  return st;
}

}  // namespace cuzk::filecoin
