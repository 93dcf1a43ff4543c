// SPDX-License-Identifier: MIT OR Apache-2.0
// The core of the C interfaces (api/embed.hpp).
#include "api/embed.hpp"

#include <atomic>

#include "api/keys.hpp"
#include "ec/pairing.hpp"
#include "groth16/key.hpp"
#include "groth16/self_verify.hpp"
#include "io/json.hpp"
#include "io/json_parse.hpp"
#include "io/wtns.hpp"
#include "io/zkey.hpp"

namespace cuzk::api {

namespace {

std::atomic<uint64_t> g_key_serial{0};

std::shared_ptr<const LoadedKey> loaded(const io::ZkeyGroth16& z, std::optional<io::R1cs> cs, ThreadPool& pool) {
  auto k = std::make_shared<LoadedKey>();
  k->id = "key-" + std::to_string(++g_key_serial);
  k->name = z.path();
  k->curve = z.curve;
  k->n_vars = z.n_vars;
  k->n_public = z.n_public;
  k->insecure_note = z.insecure_note;
  if (z.curve == CurveId::bn254)
    k->vk = groth16::verifying_key_of_zkey<ec::Bn254>(z, pool);
  else
    k->vk = groth16::verifying_key_of_zkey<ec::Bls12381>(z, pool);
  k->circuit = engine::make_circuit(z.path(), z, std::move(cs), pool);
  k->log_n = k->circuit->log_n();
  return k;
}

ZkeyShape shape_of(const io::ZkeyGroth16& z) { return {z.curve, z.n_vars, z.n_public}; }

template <class F>
size_t digits_of_modulus() {
  return io::to_decimal(F::K.p.v, F::N).size();
}

size_t base_digits(CurveId c) {
  return c == CurveId::bn254 ? digits_of_modulus<ec::Bn254::G1::F>() : digits_of_modulus<ec::Bls12381::G1::F>();
}
size_t scalar_digits(CurveId c) {
  return c == CurveId::bn254 ? digits_of_modulus<ec::Bn254::Fr>() : digits_of_modulus<ec::Bls12381::Fr>();
}

template <class E>
void verify_with(const groth16::VerifyingKey<E>& vk, std::string_view proof_json, std::string_view public_json) {
  using Part = VerifyError::Part;
  groth16::PublicInputs pub;
  try {
    pub = groth16::public_from_json<E>(io::parse_json(public_json), "public.json", vk.n_public);
  } catch (const io::JsonError& e) {
    throw VerifyError(Part::Public, std::string("public.json: invalid JSON: ") + e.what());
  } catch (const Error& e) {
    throw VerifyError(Part::Public, e.what());
  }
  groth16::VerifyProof<E> proof;
  try {
    proof = groth16::proof_from_json<E>(io::parse_json(proof_json), "proof.json");
  } catch (const io::JsonError& e) {
    throw VerifyError(Part::Proof, std::string("proof.json: invalid JSON: ") + e.what());
  } catch (const Error& e) {
    throw VerifyError(Part::Proof, e.what());
  }
  if (!groth16::verify_proof<E>(vk, pub, proof))
    throw VerifyError(Part::Pairing,
                      "pairing check failed: the proof does not verify against this key and these public inputs");
}

}  // namespace

std::shared_ptr<const LoadedKey> load_zkey_file(const std::string& path, const std::string& r1cs_path,
                                                ThreadPool& pool) {
  io::ZkeyGroth16 z = io::read_zkey(path);
  std::optional<io::R1cs> cs;
  if (!r1cs_path.empty()) cs = read_r1cs_for(r1cs_path, z.curve, z.n_vars, z.n_public, path);
  return loaded(z, std::move(cs), pool);
}

std::shared_ptr<const LoadedKey> load_zkey_bytes(std::span<const uint8_t> zkey, ThreadPool& pool) {
  // Borrowed: the key's points are copied into the prover's layout before this returns.
  return loaded(io::parse_zkey(io::FileBytes::borrow("zkey buffer", zkey)), std::nullopt, pool);
}

ZkeyShape zkey_shape_file(const std::string& path) { return shape_of(io::read_zkey(path)); }
ZkeyShape zkey_shape_bytes(std::span<const uint8_t> zkey) {
  return shape_of(io::parse_zkey(io::FileBytes::borrow("zkey buffer", zkey)));
}

size_t proof_json_max(CurveId c) {
  using io::JsonValue;
  const std::string x(base_digits(c), '9');
  auto g1 = JsonValue::array({JsonValue::string(x), JsonValue::string(x), JsonValue::string("1")});
  auto pair = [&](const std::string& a, const std::string& b) {
    return JsonValue::array({JsonValue::string(a), JsonValue::string(b)});
  };
  auto o = JsonValue::object();
  o.add("pi_a", g1);
  o.add("pi_b", JsonValue::array({pair(x, x), pair(x, x), pair("1", "0")}));
  o.add("pi_c", g1);
  o.add("protocol", JsonValue::string("groth16"));
  o.add("curve", JsonValue::string(curve_snarkjs_name(c)));
  return io::to_json(o).size();
}

size_t public_json_max(CurveId c, uint32_t n_public) {
  auto arr = io::JsonValue::array();
  for (uint32_t i = 0; i < n_public; ++i)
    arr.items.push_back(io::JsonValue::string(std::string(scalar_digits(c), '9')));
  return io::to_json(arr).size();
}

std::vector<cpu::Scalar> witness_for(const LoadedKey& key, std::span<const uint8_t> wtns, const std::string& name) {
  // Borrowed: the values are copied out before this returns.
  io::Wtns w = io::parse_wtns(io::FileBytes::borrow(name, wtns));
  if (w.n_witness != key.n_vars)
    throw WitnessLengthError(name + ": witness has " + std::to_string(w.n_witness) + " values but " + key.name +
                             " expects " + std::to_string(key.n_vars));
  if (w.curve != key.curve)
    throw InvalidArgument(name + ": witness is for " + curve_name(w.curve) + " but " + key.name + " is for " +
                          curve_name(key.curve));
  return groth16::witness_scalars(w.values, w.n_witness);
}

void verify_json(std::string_view vk_json, std::string_view proof_json, std::string_view public_json) {
  const char* path = "verification_key.json";
  try {
    io::Json j = io::parse_json(vk_json);
    if (groth16::vk_curve(j, path) == CurveId::bn254) {
      const auto vk = groth16::vk_from_json<ec::Bn254>(j, path);
      return verify_with(vk, proof_json, public_json);
    }
    const auto vk = groth16::vk_from_json<ec::Bls12381>(j, path);
    return verify_with(vk, proof_json, public_json);
  } catch (const VerifyError&) {
    throw;
  } catch (const io::JsonError& e) {
    throw VerifyError(VerifyError::Part::Key, std::string(path) + ": invalid JSON: " + e.what());
  } catch (const Error& e) {
    throw VerifyError(VerifyError::Part::Key, e.what());
  }
}

void verify_json(const LoadedKey& key, std::string_view proof_json, std::string_view public_json) {
  std::visit([&](const auto& vk) { verify_with(vk, proof_json, public_json); }, key.vk);
}

KeyedEngine::KeyedEngine(const std::string& devices) {
  engine::EngineConfig cfg;
  cfg.devices = engine::parse_device_specs(devices, "devices");
  names_ = backend::names_of(cfg.devices);
  engine_ = std::make_unique<engine::Engine>(std::move(cfg));
}

uint64_t KeyedEngine::submit(const std::shared_ptr<const LoadedKey>& key, std::vector<cpu::Scalar> witness,
                             std::string name, engine::Priority priority) {
  {
    std::lock_guard lk(mu_);
    if (!registered_.count(key->id)) {
      engine_->register_circuit(key->id, key->circuit);
      registered_.insert(key->id);
    }
  }
  engine::JobRequest req;
  req.circuit = key->id;
  req.priority = priority;
  req.partitions.push_back(engine::Witness::values(std::move(name), std::move(witness)));
  return engine_->submit(std::move(req));
}

engine::JobResult KeyedEngine::await(uint64_t job) { return engine_->await(job); }
bool KeyedEngine::forget(uint64_t job) { return engine_->forget(job); }
bool KeyedEngine::cancel(uint64_t job) { return engine_->cancel(job); }

std::string job_error(const engine::JobResult& r) {
  std::string why = r.error;
  for (auto& rec : r.records)
    if (!rec.error.empty() && why.find(rec.error) == std::string::npos) why += (why.empty() ? "" : "; ") + rec.error;
  return why.empty() ? std::string("the job ") + engine::job_state_name(r.state) : why;
}

}  // namespace cuzk::api
