// SPDX-License-Identifier: MIT OR Apache-2.0
#include "api/keys.hpp"

#include <cstdio>
#include <cstring>

#include "backend/open.hpp"
#include "filecoin/params_key.hpp"
#include "groth16/encode.hpp"
#include "groth16/self_verify.hpp"
#include "io/r1cs.hpp"
#include "io/zkey.hpp"
#include "util/error.hpp"
#include "util/time.hpp"

namespace cuzk::api {

namespace {

bool ends_with(const std::string& s, const char* suffix) {
  const size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

bool has_zkey_magic(const std::string& path) {
  char m[4] = {};
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;  // the reader names the problem
  const bool ok = std::fread(m, 1, 4, f) == 4 && std::memcmp(m, "zkey", 4) == 0;
  std::fclose(f);
  return ok;
}

}  // namespace

io::R1cs read_r1cs_for(const std::string& r1cs_path, CurveId curve, uint32_t n_vars, uint32_t n_public,
                       const std::string& key_path) {
  io::R1cs cs = io::read_r1cs(r1cs_path);
  if (cs.curve != curve)
    throw InvalidArgument(r1cs_path + ": constraint system is for " + curve_name(cs.curve) + " but " + key_path +
                          " is for " + curve_name(curve));
  if (cs.n_wires != n_vars || cs.n_public() != n_public)
    throw InvalidArgument(r1cs_path + ": " + std::to_string(cs.n_wires) + " wires / " + std::to_string(cs.n_public()) +
                          " public do not match " + key_path + " (" + std::to_string(n_vars) + " / " +
                          std::to_string(n_public) + ")");
  return cs;
}

KeyFormat proving_key_format(const std::string& path) {
  if (!has_zkey_magic(path) && ends_with(path, ".params")) return KeyFormat::Params;
  return KeyFormat::Zkey;
}

bool is_bellperson_vk(const std::string& path) { return ends_with(path, ".vk") || ends_with(path, ".params"); }

std::unique_ptr<backend::Device> params_decoder(const std::vector<backend::DeviceSpec>& devices) {
  for (const auto& d : devices)
    if (d.kind == backend::DeviceSpec::Kind::Gpu) return backend::open_device(d);
  return nullptr;
}

std::shared_ptr<engine::Circuit> load_key(const std::string& key_path, const std::string& r1cs_path, ThreadPool& pool,
                                          const std::function<void(const std::string&)>& log,
                                          const std::vector<backend::DeviceSpec>& devices) {
  auto say = [&](const std::string& s) {
    if (log) log(s);
  };
  if (proving_key_format(key_path) == KeyFormat::Params) {
    if (r1cs_path.empty())
      throw InvalidArgument(key_path +
                            ": a bellperson .params carries no constraint rows; give the circuit's .r1cs (--r1cs, or "
                            "r1cs in the daemon's circuit)");
    const auto t0 = SteadyClock::now();
    filecoin::ParamsFile p = filecoin::read_params(key_path, pool, false, /*defer=*/true);
    io::R1cs cs = io::read_r1cs(r1cs_path);
    std::unique_ptr<backend::Device> decoder = params_decoder(devices);
    filecoin::ParamsLoadStats st;
    groth16::ProvingKey<ec::Bls12381> pk = filecoin::proving_key_of(p, cs, pool, false, &st, decoder.get());
    decoder.reset();
    const double ms = ms_since(t0);
    char line[320];
    std::snprintf(line, sizeof line,
                  ": %.2f GB of points decoded and checked on %s in %.0f ms (%.2f GB/s), rows and densities in %.0f "
                  "ms, %.0f ms in all",
                  st.point_bytes / 1e9, st.decoded_on.c_str(), st.points_ms,
                  st.points_ms > 0 ? st.point_bytes / st.points_ms / 1e6 : 0.0, st.rows_ms, ms);
    say(key_path + line);
    return engine::make_circuit(key_path, std::move(pk), std::move(cs));
  }
  io::ZkeyGroth16 z = io::read_zkey(key_path);
  std::optional<io::R1cs> cs;
  if (!r1cs_path.empty()) cs = read_r1cs_for(r1cs_path, z.curve, z.n_vars, z.n_public, key_path);
  if (!z.insecure_note.empty()) say("warning: " + key_path + " is from an insecure setup: " + z.insecure_note);
  return engine::make_circuit(key_path, z, std::move(cs), pool);
}

std::string verification_key_json(const std::string& zkey_path, ThreadPool& pool) {
  if (proving_key_format(zkey_path) != KeyFormat::Zkey)
    throw InvalidArgument(zkey_path +
                          ": not a snarkjs .zkey (a bellperson .params carries its verifying key in its .vk, which "
                          "cuzk verify takes as it is)");
  const io::ZkeyGroth16 z = io::read_zkey(zkey_path);
  if (z.curve == CurveId::bn254) return groth16::vk_json(groth16::verifying_key_of_zkey<ec::Bn254>(z, pool));
  return groth16::vk_json(groth16::verifying_key_of_zkey<ec::Bls12381>(z, pool));
}

}  // namespace cuzk::api
