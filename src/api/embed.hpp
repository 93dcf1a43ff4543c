// SPDX-License-Identifier: MIT OR Apache-2.0
// The core of the C interfaces (cuzk.h, rapidsnark.h): a snarkjs key loaded once, from a path or
// from the caller's bytes, with its verifying part; .wtns bytes checked against it; an engine
// that registers each key the first time it proves with it; the longest proof.json and
// public.json a key gives; verification of JSON texts. The C files turn its errors into codes.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "engine/engine.hpp"
#include "groth16/verifier.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::api {

// A .wtns whose number of values is not the key's (rapidsnark's PROVER_INVALID_WITNESS_LENGTH).
struct WitnessLengthError : InvalidArgument {
  using InvalidArgument::InvalidArgument;
};

// Why a verification did not accept, by the input at fault (Pairing: all are well-formed and
// the equation fails).
struct VerifyError : Error {
  enum class Part { Key, Public, Proof, Pairing } part;
  VerifyError(Part p, const std::string& what) : Error(what), part(p) {}
};

using AnyVerifyingKey = std::variant<groth16::VerifyingKey<ec::Bn254>, groth16::VerifyingKey<ec::Bls12381>>;

struct LoadedKey {
  std::string id;    // unique in the process: the circuit's name in every engine that proves with it
  std::string name;  // the path, or "zkey buffer" (for messages)
  std::shared_ptr<engine::Circuit> circuit;
  AnyVerifyingKey vk;
  CurveId curve{};
  uint32_t n_vars = 0, n_public = 0;
  int log_n = 0;
  std::string insecure_note;  // set when the key comes from `cuzk setup --insecure`
};

// Reads and checks a .zkey and, when r1cs_path is not empty, its .r1cs (every witness is then
// checked against the constraints). Throws FormatError / InvalidArgument naming the file.
std::shared_ptr<const LoadedKey> load_zkey_file(const std::string& path, const std::string& r1cs_path,
                                                ThreadPool& pool);
// The same from the bytes of a .zkey, read during the call only.
std::shared_ptr<const LoadedKey> load_zkey_bytes(std::span<const uint8_t> zkey, ThreadPool& pool);

// A .zkey's structure checked (its points not decoded): its curve and sizes.
struct ZkeyShape {
  CurveId curve{};
  uint32_t n_vars = 0, n_public = 0;
};
ZkeyShape zkey_shape_file(const std::string& path);
ZkeyShape zkey_shape_bytes(std::span<const uint8_t> zkey);

// The longest proof.json / public.json (bytes, the NUL not counted) a key of curve `c` with
// n_public public inputs gives: every coordinate and value with as many digits as its modulus.
size_t proof_json_max(CurveId c);
size_t public_json_max(CurveId c, uint32_t n_public);

// The values of .wtns bytes (standard form) checked against the key: FormatError (not a .wtns,
// a value >= r), WitnessLengthError, InvalidArgument (another curve).
std::vector<cpu::Scalar> witness_for(const LoadedKey& key, std::span<const uint8_t> wtns, const std::string& name);

// Throws VerifyError unless the proof verifies (cuzk's checks: groth16/verifier.hpp).
void verify_json(std::string_view vk_json, std::string_view proof_json, std::string_view public_json);
void verify_json(const LoadedKey& key, std::string_view proof_json, std::string_view public_json);

// An engine on the devices of a spec ("auto": every GPU, else the CPU; "cpu", "gpu:0,gpu:1",
// "all", with @SIZE and *W as --devices takes them). Each key is registered the first time a
// job uses it and stays (with its memory) until the engine is destroyed. Thread-safe.
class KeyedEngine {
 public:
  // Throws BadDeviceSpec (a malformed spec), InvalidArgument (a device that is not there), or
  // the device's error when it cannot be opened.
  explicit KeyedEngine(const std::string& devices);
  uint64_t submit(const std::shared_ptr<const LoadedKey>& key, std::vector<cpu::Scalar> witness, std::string name,
                  engine::Priority priority = engine::Priority::Normal);
  // Waits for the job's end. InvalidArgument for a job unknown (or forgotten).
  engine::JobResult await(uint64_t job);
  bool forget(uint64_t job);
  bool cancel(uint64_t job);
  const std::string& devices() const { return names_; }

 private:
  std::unique_ptr<engine::Engine> engine_;
  std::string names_;
  std::mutex mu_;
  std::set<std::string> registered_;
};

// A failed job's message: its error, and each partition's not already in it.
std::string job_error(const engine::JobResult& r);

}  // namespace cuzk::api
