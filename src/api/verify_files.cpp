// SPDX-License-Identifier: MIT OR Apache-2.0
// The file-level verifier (include/cuzk/verify.hpp): snarkjs JSON files (the key may be a
// bellperson .vk) in, one result per proof.
#include <chrono>

#include "api/keys.hpp"
#include "cuzk/verify.hpp"
#include "ec/curves.hpp"
#include "filecoin/params_key.hpp"
#include "groth16/verifier.hpp"
#include "io/json_parse.hpp"
#include "util/time.hpp"

namespace cuzk {

namespace {

const char* kPairingFailed = "pairing check failed: the proof does not verify against this key and these public inputs";

// Runs fn, turning every error into the result's fields.
template <class Fn>
void capture(VerifyResult& r, Fn&& fn) {
  try {
    fn();
  } catch (const groth16::VerifyReject& e) {
    r.valid = false;
    r.error = e.what();
  } catch (const Error& e) {
    r.valid = false;
    r.malformed = true;
    r.error = e.what();
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    r.valid = false;
    r.error = std::string("internal error: ") + e.what();
  }
}

template <class E>
struct Item {
  size_t index;
  groth16::PublicInputs pub;
  groth16::VerifyProof<E> proof;
};

template <class E>
void verify_batch_on(const groth16::VerifyingKey<E>& vk, const std::vector<std::pair<std::string, std::string>>& pairs,
                     std::vector<VerifyResult>& out, BatchInfo& info, std::chrono::steady_clock::time_point t0) {
  std::vector<Item<E>> items;
  for (size_t i = 0; i < pairs.size(); ++i) {
    capture(out[i], [&] {
      io::Json pj = io::parse_json_file(pairs[i].first);
      io::Json prj = io::parse_json_file(pairs[i].second);
      Item<E> it{i, groth16::public_from_json<E>(pj, pairs[i].first, vk.n_public),
                 groth16::proof_from_json<E>(prj, pairs[i].second)};
      items.push_back(std::move(it));
    });
  }
  info.parsed_ok = items.size();
  info.parse_ms = ms_since(t0);
  auto t1 = std::chrono::steady_clock::now();
  if (items.size() == 1) {
    Item<E>& it = items[0];
    bool ok = groth16::verify_proof(vk, it.pub, it.proof);
    out[it.index].valid = ok;
    if (!ok) out[it.index].error = kPairingFailed;
    info.batch_passed = ok;
  } else if (!items.empty()) {
    std::vector<groth16::BatchItem<E>> b;
    b.reserve(items.size());
    for (auto& it : items) b.push_back({&it.pub, &it.proof});
    if (groth16::batch_check(vk, b)) {
      info.batch_passed = true;
      for (auto& it : items) out[it.index].valid = true;
    } else {
      info.fell_back = true;
      for (auto& it : items) {
        bool ok = groth16::verify_proof(vk, it.pub, it.proof);
        out[it.index].valid = ok;
        if (!ok) out[it.index].error = kPairingFailed;
      }
    }
  }
  info.check_ms = ms_since(t1);
}

}  // namespace

VerifyResult verify_files(const std::string& vk_path, const std::string& public_path, const std::string& proof_path) {
  auto rs = verify_batch(vk_path, {{public_path, proof_path}});
  return rs[0];
}

std::vector<VerifyResult> verify_batch(const std::string& vk_path,
                                       const std::vector<std::pair<std::string, std::string>>& public_and_proof,
                                       BatchInfo* info) {
  std::vector<VerifyResult> out(public_and_proof.size());
  for (size_t i = 0; i < out.size(); ++i) {
    out[i].public_path = public_and_proof[i].first;
    out[i].proof_path = public_and_proof[i].second;
  }
  BatchInfo local;
  BatchInfo& inf = info ? *info : local;
  inf = BatchInfo{};
  VerifyResult key_error;
  capture(key_error, [&] {
    const auto t0 = std::chrono::steady_clock::now();
    if (api::is_bellperson_vk(vk_path)) {
      ThreadPool one(1);
      const filecoin::ParamsFile p = filecoin::read_params(vk_path, one, false, /*defer=*/true);
      verify_batch_on<ec::Bls12381>(filecoin::verifying_key_of(p), public_and_proof, out, inf, t0);
      return;
    }
    io::Json vkj = io::parse_json_file(vk_path);
    CurveId c = groth16::vk_curve(vkj, vk_path);
    if (c == CurveId::bn254)
      verify_batch_on<ec::Bn254>(groth16::vk_from_json<ec::Bn254>(vkj, vk_path), public_and_proof, out, inf, t0);
    else
      verify_batch_on<ec::Bls12381>(groth16::vk_from_json<ec::Bls12381>(vkj, vk_path), public_and_proof, out, inf, t0);
  });
  if (!key_error.error.empty()) {
    // The key itself is unusable: every proof fails with its error.
    for (auto& r : out) {
      r.valid = false;
      r.malformed = key_error.malformed;
      r.error = key_error.error;
    }
  }
  return out;
}

}  // namespace cuzk
