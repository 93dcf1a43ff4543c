// SPDX-License-Identifier: MIT OR Apache-2.0
// The key files the prover and the verifier take, told apart once: snarkjs's .zkey (its magic)
// or bellperson's .params (by name: the format has no magic), and verification_key.json or a
// bellperson .vk. The CLI's single and partitioned forms and the library share this.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "io/r1cs.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::api {

enum class KeyFormat { Zkey, Params };
KeyFormat proving_key_format(const std::string& path);
// A .vk or .params (bellperson's binary verifying key), else snarkjs's JSON.
bool is_bellperson_vk(const std::string& path);

// The circuit's .r1cs, checked to be of the key's curve and shape (wires, public inputs);
// InvalidArgument names both files when it is not.
io::R1cs read_r1cs_for(const std::string& r1cs_path, CurveId curve, uint32_t n_vars, uint32_t n_public,
                       const std::string& key_path);

// The device a .params's points are decoded on: the first GPU among `devices`, else none (the
// host's cores decode them).
std::unique_ptr<backend::Device> params_decoder(const std::vector<backend::DeviceSpec>& devices);

// A proving key and, when given (required for a .params, which carries no constraint rows),
// the circuit's .r1cs checked against it, as a circuit the engine proves. `log` gets the
// insecure-key warning and, for a .params, the load's figures. A .params's points are decoded on
// the first GPU among `devices` (the engine's), else on the pool.
std::shared_ptr<engine::Circuit> load_key(const std::string& key_path, const std::string& r1cs_path, ThreadPool& pool,
                                          const std::function<void(const std::string&)>& log = {},
                                          const std::vector<backend::DeviceSpec>& devices = {});

// verification_key.json of a snarkjs .zkey, byte for byte as `snarkjs zkey export
// verificationkey` writes it (BN254 or BLS12-381). Only the header and IC are decoded. Anything
// but a Groth16 .zkey is refused with an error naming the file.
std::string verification_key_json(const std::string& zkey_path, ThreadPool& pool);

}  // namespace cuzk::api
