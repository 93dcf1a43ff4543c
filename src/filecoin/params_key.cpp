// SPDX-License-Identifier: MIT OR Apache-2.0
#include "filecoin/params_key.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "ec/uncompressed.hpp"
#include "groth16/self_verify.hpp"
#include "r1cs/rows.hpp"
#include "setup/setup.hpp"
#include "util/error.hpp"
#include "util/time.hpp"

namespace cuzk::filecoin {

namespace {

void need_count(const ParamsFile& p, const PointSection& s, size_t want, const std::string& why) {
  if (s.count != want)
    throw InvalidArgument(p.path() + ": section " + s.name + " has " + std::to_string(s.count) + " points, but " + why +
                          " (" + std::to_string(want) + "): the file is not this circuit's key");
}

// Whether load_points decodes on `decoder`: a device that offers it, without the subgroup check
// (which stays on the host's cores).
bool decodes_on(const backend::Device* decoder, bool subgroup) {
  return decoder && !subgroup && decoder->decode_workspace_bytes() > 0;
}

// The host's share of a device decode: copies spread over the pool in pieces of 1 MiB.
void parallel_copy(ThreadPool& pool, void* dst, const void* src, size_t bytes) {
  constexpr size_t kPiece = size_t(1) << 20;
  pool.parallel_for((bytes + kPiece - 1) / kPiece, [&](size_t b, size_t e) {
    const size_t from = b * kPiece, to = std::min(bytes, e * kPiece);
    std::memcpy(static_cast<char*>(dst) + from, static_cast<const char*>(src) + from, to - from);
  });
}

template <class P>
FillVector<P> decode_on(const ParamsFile& p, const PointSection& s, backend::Device& d, backend::Memory ws,
                        ThreadPool& pool) {
  FillVector<P> out(s.count);
  const auto bad =
      d.decode_points(s.g2 ? backend::Group::G2 : backend::Group::G1, s.bytes.data(), s.count, out.data(), s.counted,
                      ws, [&](void* dst, const void* src, size_t n) { parallel_copy(pool, dst, src, n); });
  if (bad) p.fail_point(s, bad->index, ec::zcash::message(ec::zcash::PointCode(bad->code), s.g2));
  return out;
}

}  // namespace

void load_points(const ParamsFile& p, groth16::ProvingKey<Bls>& pk, ThreadPool& pool, bool subgroup,
                 backend::Device* decoder) {
  if (p.is_vk)
    throw InvalidArgument(p.path() + ": a verifying key (.vk) has no proving sections; prove with the .params");
  pk.alpha1 = p.g1(p.alpha_g1, 0), pk.beta1 = p.g1(p.beta_g1, 0), pk.delta1 = p.g1(p.delta_g1, 0);
  pk.beta2 = p.g2(p.beta_g2, 0), pk.gamma2 = p.g2(p.gamma_g2, 0), pk.delta2 = p.g2(p.delta_g2, 0);
  const auto ic = p.g1s(p.ic, pool, true);
  pk.ic.assign(ic.begin(), ic.end());
  if (decodes_on(decoder, subgroup)) {
    const auto ws = decoder->allocate(decoder->decode_workspace_bytes(), nullptr, "key point decode");
    pk.c = decode_on<G1>(p, p.l, *decoder, ws->memory(), pool);
    pk.h = decode_on<G1>(p, p.h, *decoder, ws->memory(), pool);
    pk.a = decode_on<G1>(p, p.a, *decoder, ws->memory(), pool);
    pk.b1 = decode_on<G1>(p, p.b_g1, *decoder, ws->memory(), pool);
    pk.b2 = decode_on<G2>(p, p.b_g2, *decoder, ws->memory(), pool);
    return;
  }
  pk.c = p.g1s(p.l, pool, subgroup);
  pk.h = p.g1s(p.h, pool, subgroup);
  pk.a = p.g1s(p.a, pool, subgroup);
  pk.b1 = p.g1s(p.b_g1, pool, subgroup);
  pk.b2 = p.g2s(p.b_g2, pool, subgroup);
}

groth16::ProvingKey<Bls> proving_key_of(const ParamsFile& p, const io::R1cs& cs, ThreadPool& pool, bool subgroup,
                                        ParamsLoadStats* stats, backend::Device* decoder) {
  using Fr = Bls::Fr;
  if (p.is_vk)
    throw InvalidArgument(p.path() + ": a verifying key (.vk) has no proving sections; prove with the .params");
  if (cs.curve != CurveId::bls12_381)
    throw InvalidArgument(cs.path + ": the constraint system is for " + curve_name(cs.curve) + ", but " + p.path() +
                          " is a BLS12-381 key");
  auto t0 = std::chrono::steady_clock::now();
  const r1cs::RowSource<Fr> src = r1cs::rows_of<Fr>(cs);
  const setup::detail::Sizes sh = setup::detail::sizes_of(src);
  groth16::ProvingKey<Bls> pk;
  pk.n_vars = sh.m;
  pk.n_public = sh.n_pub;
  pk.domain_size = uint32_t(sh.n);
  pk.log_n = sh.log_n;
  const std::string circuit = cs.path + "'s ";
  // The counts that need no rows first: the cheapest refusal of another circuit's key.
  need_count(p, p.ic, size_t(sh.n_pub) + 1, circuit + std::to_string(sh.n_pub) + " public inputs need one more");
  need_count(p, p.l, size_t(sh.m) - sh.n_pub - 1, circuit + "private wires number");
  need_count(p, p.h, sh.n - 1,
             circuit + std::to_string(cs.n_constraints) + " constraints and " + std::to_string(sh.n_pub + 1) +
                 " input rows make a domain of 2^" + std::to_string(sh.log_n) + ", whose H has one point less");
  setup::bellperson_rows<Bls>(src, pk, pool);
  need_count(p, p.a, pk.a_wires.size(), circuit + "wires with a non-empty A column number");
  need_count(p, p.b_g1, pk.b_wires.size(), circuit + "wires with a non-empty B column number");
  need_count(p, p.b_g2, pk.b_wires.size(), circuit + "wires with a non-empty B column number");
  auto t1 = std::chrono::steady_clock::now();

  load_points(p, pk, pool, subgroup, decoder);
  groth16::check_key_shape(pk);
  if (stats) {
    if (decodes_on(decoder, subgroup)) stats->decoded_on = decoder->name();
    stats->rows_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    stats->points_ms = ms_since(t1);
    stats->point_bytes = p.size() - kVkFixedBytes;
  }
  return pk;
}

groth16::VerifyingKey<Bls> verifying_key_of(const ParamsFile& p) {
  groth16::ProvingKey<Bls> pk;  // the verifying part alone
  pk.n_public = p.ic.count - 1;
  pk.alpha1 = p.g1(p.alpha_g1, 0);
  pk.beta2 = p.g2(p.beta_g2, 0), pk.gamma2 = p.g2(p.gamma_g2, 0), pk.delta2 = p.g2(p.delta_g2, 0);
  for (auto [pt, name] : {std::pair{pk.alpha1.is_inf(), "alpha_g1"}, std::pair{pk.beta2.is_inf(), "beta_g2"},
                          std::pair{pk.gamma2.is_inf(), "gamma_g2"}, std::pair{pk.delta2.is_inf(), "delta_g2"}})
    if (pt) throw FormatError(p.path(), std::string("section ") + name + " is the point at infinity");
  ThreadPool one(1);
  const auto ic = p.g1s(p.ic, one, true);
  pk.ic.assign(ic.begin(), ic.end());
  return groth16::verifying_key_of(pk);
}

}  // namespace cuzk::filecoin
