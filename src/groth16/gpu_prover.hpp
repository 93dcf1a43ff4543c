// The Groth16 prover on one named GPU. The witness goes to the device; a, b, c (the compiled
// constraint matrices, resident with the key), H and the five MSMs run there; blinding and
// assembly are the CPU's (finish_proof), so given the same r, s the proof equals the CPU
// prover's bit for bit.
//
// Memory: the key's points live in a GpuProvingKey (sized by device_bytes(), held by whoever owns
// the key on that device); one proof needs workspace_bytes() more. Both come from memory the
// caller hands in; nothing here allocates device memory on its own.
#pragma once
#include <algorithm>
#include <chrono>
#include <vector>

#include "backend/cuda/gpu.hpp"
#include "backend/cuda/msm.hpp"
#include "backend/cuda/ntt.hpp"
#include "backend/cuda/pce.hpp"
#include "groth16/prover.hpp"

namespace cuzk::groth16 {

template <class E>
class GpuProvingKey {
 public:
  using A1 = typename E::G1Affine;
  using A2 = typename E::G2Affine;

  static size_t device_bytes(const ProvingKey<E>& pk) {
    auto csr = [](const Csr<typename E::Fr>& m) {
      return gpu::Arena::round(m.row_ptr.size() * 4) + gpu::Arena::round(m.col.size() * 4) +
             gpu::Arena::round(m.val.size() * 32);
    };
    return gpu::Arena::round(pk.a.size() * sizeof(A1)) + gpu::Arena::round(pk.b1.size() * sizeof(A1)) +
           gpu::Arena::round(pk.b2.size() * sizeof(A2)) + gpu::Arena::round(pk.c.size() * sizeof(A1)) +
           gpu::Arena::round(pk.h.size() * sizeof(A1)) + csr(pk.A) + csr(pk.B);
  }

  // Copies the key's points into `mem` (at least device_bytes(pk) on `dev`).
  GpuProvingKey(gpu::DeviceId dev, const ProvingKey<E>& pk, gpu::DeviceMemory mem) : dev_(dev) {
    gpu::Arena arena(mem);
    auto put = [&](const auto& v, const char* what) {
      using T = typename std::decay_t<decltype(v)>::value_type;
      T* d = arena.take_n<T>(v.size(), what);
      if (!v.empty()) gpu::copy_to_device(dev, d, v.data(), v.size() * sizeof(T), what);
      return d;
    };
    a_ = put(pk.a, "key A points");
    b1_ = put(pk.b1, "key B1 points");
    b2_ = put(pk.b2, "key B2 points");
    c_ = put(pk.c, "key C points");
    h_ = put(pk.h, "key H points");
    A_ = {put(pk.A.row_ptr, "A rows"), put(pk.A.col, "A columns"), put(pk.A.val, "A values")};
    B_ = {put(pk.B.row_ptr, "B rows"), put(pk.B.col, "B columns"), put(pk.B.val, "B values")};
  }

  gpu::DeviceId device() const { return dev_; }
  const A1* a() const { return a_; }
  const A1* b1() const { return b1_; }
  const A2* b2() const { return b2_; }
  const A1* c() const { return c_; }
  const A1* h() const { return h_; }
  gpu::CsrView A() const { return A_; }
  gpu::CsrView B() const { return B_; }

 private:
  gpu::DeviceId dev_;
  const A1 *a_ = nullptr, *b1_ = nullptr, *c_ = nullptr, *h_ = nullptr;
  const A2* b2_ = nullptr;
  gpu::CsrView A_{}, B_{};
};

// Device memory one proof needs besides the key: witness scalars, a/b/c, and the larger of the
// H and MSM scratch (they run one after another on the same bytes).
template <class E>
size_t gpu_prove_workspace_bytes(gpu::DeviceId dev, const ProvingKey<E>& pk) {
  const size_t n = pk.domain_size, m = pk.n_vars;
  size_t fixed = gpu::Arena::round(m * 32) + 3 * gpu::Arena::round(n * 32);
  size_t scratch = gpu::h_workspace_bytes(E::id, pk.log_n);
  auto msm_ws = [&](gpu::Group g, size_t count) {
    return gpu::msm_workspace_bytes(dev, E::id, g, count, true, true);
  };
  scratch = std::max({scratch, msm_ws(gpu::Group::G1, m), msm_ws(gpu::Group::G2, m), msm_ws(gpu::Group::G1, n)});
  return fixed + scratch;
}

template <class E>
Proof<E> prove_gpu(const GpuProvingKey<E>& key, const ProvingKey<E>& pk, const std::vector<Scalar>& w,
                   const typename E::Fr& r, const typename E::Fr& s, gpu::DeviceMemory workspace, ThreadPool& pool,
                   ProveTimings* timings = nullptr) {
  using Fr = typename E::Fr;
  using J1 = typename E::G1Jac;
  using J2 = typename E::G2Jac;
  const gpu::DeviceId dev = key.device();
  if (workspace.device.ordinal != dev.ordinal)
    throw gpu::GpuError("workspace is on " + workspace.device.name() + " but the key is on " + dev.name());
  if (w.size() != pk.n_vars)
    throw InvalidArgument("witness has " + std::to_string(w.size()) + " values, the key expects " +
                          std::to_string(pk.n_vars));
  ProveTimings t;
  auto t_all = std::chrono::steady_clock::now();
  auto t0 = t_all;
  const size_t n = pk.domain_size, m = pk.n_vars;

  gpu::Arena arena(workspace);
  auto* d_w = arena.take_n<Scalar>(m, "witness scalars");
  auto* d_a = arena.take_n<Fr>(n, "a");
  auto* d_b = arena.take_n<Fr>(n, "b");
  auto* d_c = arena.take_n<Fr>(n, "c");
  gpu::DeviceMemory scratch{dev, static_cast<char*>(workspace.ptr) + arena.used(), workspace.bytes - arena.used()};

  gpu::copy_to_device(dev, d_w, w.data(), m * sizeof(Scalar), "witness scalars");
  gpu::evaluate_abc(dev, E::id, n, key.A(), key.B(), d_w, d_a, d_b, d_c);
  t.abc_ms = detail::ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  gpu::compute_h(dev, E::id, pk.log_n, d_a, d_b, d_c, d_a, scratch);  // h (standard form) into d_a
  t.ntt_h_ms = detail::ms_since(t0);

  auto msm1 = [&](const void* bases, const void* scalars, size_t count, double& ms) {
    auto t1 = std::chrono::steady_clock::now();
    J1 out = J1::infinity();
    if (count > 0)
      gpu::msm(dev, E::id, gpu::Group::G1, count, bases, true, scalars, true, gpu::ScalarForm::Standard, scratch, &out);
    ms = detail::ms_since(t1);
    return out;
  };
  J1 pa = msm1(key.a(), d_w, m, t.msm_a_ms);
  J1 pb1 = msm1(key.b1(), d_w, m, t.msm_b1_ms);
  auto t1 = std::chrono::steady_clock::now();
  J2 pb2;
  gpu::msm(dev, E::id, gpu::Group::G2, m, key.b2(), true, d_w, true, gpu::ScalarForm::Standard, scratch, &pb2);
  t.msm_b2_ms = detail::ms_since(t1);
  J1 pc = msm1(key.c(), d_w + pk.n_public + 1, m - pk.n_public - 1, t.msm_c_ms);
  J1 ph = msm1(key.h(), d_a, n, t.msm_h_ms);

  t0 = std::chrono::steady_clock::now();
  Proof<E> proof = finish_proof<E>(pk, pa, pb1, pb2, pc, ph, r, s);
  t.finish_ms = detail::ms_since(t0);
  t.total_ms = detail::ms_since(t_all);
  if (timings) *timings = t;
  return proof;
}

}  // namespace cuzk::groth16
