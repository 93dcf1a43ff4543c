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

#include "backend/cuda/device_alloc.hpp"
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
      if (!v.empty()) gpu::copy_to_device_staged(dev, d, v.data(), v.size() * sizeof(T), what);
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

// The working set of one proof, in this order: witness scalars, a, b, c, then a scratch region.
// H runs first with a, b, c live and its scratch after c; it leaves h in a. The MSMs then need
// only the witness and h, so their scratch starts at b: b and c (2n scalars) are dead by then.
// The scratch after c is therefore the larger of H's workspace and what the largest MSM needs
// beyond those 2n scalars.
inline size_t gpu_working_set_bytes(size_t n, size_t m, size_t h_scratch, size_t msm_scratch) {
  const size_t abc = gpu::Arena::round(n * 32), dead_bc = 2 * abc;
  const size_t after_c = std::max(h_scratch, msm_scratch > dead_bc ? msm_scratch - dead_bc : size_t(0));
  return gpu::Arena::round(m * 32) + 3 * abc + after_c;
}

// Device memory one proof needs besides the key (the key's points resident on the device).
template <class E>
size_t gpu_prove_workspace_bytes(gpu::DeviceId dev, const ProvingKey<E>& pk) {
  const size_t n = pk.domain_size, m = pk.n_vars;
  auto msm_ws = [&](gpu::Group g, size_t count) {
    return gpu::msm_workspace_bytes(dev, E::id, g, count, true, true);
  };
  const size_t msm = std::max({msm_ws(gpu::Group::G1, m), msm_ws(gpu::Group::G2, m), msm_ws(gpu::Group::G1, n)});
  return gpu_working_set_bytes(n, m, gpu::h_workspace_bytes(E::id, pk.log_n), msm);
}

// Device memory for one proof with the key's points streamed from the host in chunks of at most
// `chunk` points (the key is not resident): the same layout, each MSM over one chunk whose bases
// come from the host.
template <class E>
size_t gpu_stream_workspace_bytes(gpu::DeviceId dev, const ProvingKey<E>& pk, size_t chunk) {
  const size_t n = pk.domain_size, m = pk.n_vars;
  chunk = std::max<size_t>(1, std::min(chunk, std::max(n, m)));
  const size_t msm = std::max(gpu::msm_workspace_bytes(dev, E::id, gpu::Group::G1, chunk, false, true),
                              gpu::msm_workspace_bytes(dev, E::id, gpu::Group::G2, chunk, false, true));
  return gpu_working_set_bytes(n, m, gpu::h_workspace_bytes(E::id, pk.log_n), msm);
}

// One partition's device buffers, carved from its working set.
template <class E>
struct GpuPartition {
  gpu::DeviceId dev;
  Scalar* w = nullptr;
  typename E::Fr *a = nullptr, *b = nullptr, *c = nullptr;
  gpu::DeviceMemory scratch;      // after c: H's workspace
  gpu::DeviceMemory msm_scratch;  // from b to the end: the MSMs' workspace once H is done
};

// The five MSM results before blinding.
template <class E>
struct MsmResults {
  typename E::G1Jac a, b1, c, h;
  typename E::G2Jac b2;
};

// Staging: the witness (and, when all three are given, a, b, c evaluated on the host) into the
// working set.
template <class E>
GpuPartition<E> gpu_stage(gpu::DeviceId dev, const ProvingKey<E>& pk, const std::vector<Scalar>& w,
                          const std::vector<typename E::Fr>* a, const std::vector<typename E::Fr>* b,
                          const std::vector<typename E::Fr>* c, gpu::DeviceMemory workspace) {
  using Fr = typename E::Fr;
  if (workspace.device.ordinal != dev.ordinal)
    throw gpu::GpuError("workspace is on " + workspace.device.name() + " but the key is on " + dev.name());
  if (w.size() != pk.n_vars)
    throw InvalidArgument("witness has " + std::to_string(w.size()) + " values, the key expects " +
                          std::to_string(pk.n_vars));
  const size_t n = pk.domain_size, m = pk.n_vars;
  gpu::Arena arena(workspace);
  GpuPartition<E> p;
  p.dev = dev;
  p.w = arena.take_n<Scalar>(m, "witness scalars");
  p.a = arena.take_n<Fr>(n, "a");
  p.b = arena.take_n<Fr>(n, "b");
  p.c = arena.take_n<Fr>(n, "c");
  p.scratch = {dev, static_cast<char*>(workspace.ptr) + arena.used(), workspace.bytes - arena.used()};
  const size_t b_off = static_cast<size_t>(reinterpret_cast<char*>(p.b) - static_cast<char*>(workspace.ptr));
  p.msm_scratch = {dev, p.b, workspace.bytes - b_off};
  gpu::copy_to_device_staged(dev, p.w, w.data(), m * sizeof(Scalar), "witness scalars");
  if (a && b && c) {
    gpu::copy_to_device_staged(dev, p.a, a->data(), n * sizeof(Fr), "a");
    gpu::copy_to_device_staged(dev, p.b, b->data(), n * sizeof(Fr), "b");
    gpu::copy_to_device_staged(dev, p.c, c->data(), n * sizeof(Fr), "c");
  }
  return p;
}

// The kernels: a, b, c from the resident matrices (unless staged), H, the five MSMs. With a
// resident key the bases are on the device; without one (key == nullptr) they stream from the
// host in chunks of at most `chunk` points and the chunk results are summed.
template <class E>
MsmResults<E> gpu_kernels(const GpuProvingKey<E>* key, const ProvingKey<E>& pk, GpuPartition<E>& p, bool abc_staged,
                          size_t chunk, ProveTimings& t) {
  using J1 = typename E::G1Jac;
  using J2 = typename E::G2Jac;
  const gpu::DeviceId dev = p.dev;
  const size_t n = pk.domain_size, m = pk.n_vars;
  auto t0 = std::chrono::steady_clock::now();
  if (!abc_staged) {
    if (!key) throw InvalidArgument("a, b, c must be staged when the key is not resident");
    gpu::evaluate_abc(dev, E::id, n, key->A(), key->B(), p.w, p.a, p.b, p.c);
  }
  t.abc_ms = detail::ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  gpu::compute_h(dev, E::id, pk.log_n, p.a, p.b, p.c, p.a, p.scratch);  // h (standard form) into a
  p.b = p.c = nullptr;  // dead from here on: their bytes are the MSMs' scratch
  t.ntt_h_ms = detail::ms_since(t0);

  auto msm = [&](gpu::Group g, const void* dev_bases, const void* host_bases, size_t point_bytes, const Scalar* k,
                 size_t count, void* out, double& ms) {
    auto t1 = std::chrono::steady_clock::now();
    if (count > 0 && dev_bases) {
      gpu::msm(dev, E::id, g, count, dev_bases, true, k, true, gpu::ScalarForm::Standard, p.msm_scratch, out);
    } else if (count > 0) {
      const size_t step = std::max<size_t>(1, chunk);
      for (size_t lo = 0; lo < count; lo += step) {
        const size_t len = std::min(step, count - lo);
        if (g == gpu::Group::G1) {
          J1 part;
          gpu::msm(dev, E::id, g, len, static_cast<const char*>(host_bases) + lo * point_bytes, false, k + lo, true,
                   gpu::ScalarForm::Standard, p.msm_scratch, &part);
          *static_cast<J1*>(out) = *static_cast<J1*>(out) + part;
        } else {
          J2 part;
          gpu::msm(dev, E::id, g, len, static_cast<const char*>(host_bases) + lo * point_bytes, false, k + lo, true,
                   gpu::ScalarForm::Standard, p.msm_scratch, &part);
          *static_cast<J2*>(out) = *static_cast<J2*>(out) + part;
        }
      }
    }
    ms = detail::ms_since(t1);
  };
  using A1 = typename E::G1Affine;
  using A2 = typename E::G2Affine;
  MsmResults<E> r{J1::infinity(), J1::infinity(), J1::infinity(), J1::infinity(), J2::infinity()};
  const uint32_t skip = pk.n_public + 1;
  msm(gpu::Group::G1, key ? key->a() : nullptr, pk.a.data(), sizeof(A1), p.w, m, &r.a, t.msm_a_ms);
  msm(gpu::Group::G1, key ? key->b1() : nullptr, pk.b1.data(), sizeof(A1), p.w, m, &r.b1, t.msm_b1_ms);
  msm(gpu::Group::G2, key ? key->b2() : nullptr, pk.b2.data(), sizeof(A2), p.w, m, &r.b2, t.msm_b2_ms);
  msm(gpu::Group::G1, key ? key->c() : nullptr, pk.c.data(), sizeof(A1), p.w + skip, m - skip, &r.c, t.msm_c_ms);
  msm(gpu::Group::G1, key ? key->h() : nullptr, pk.h.data(), sizeof(A1), reinterpret_cast<const Scalar*>(p.a), n,
      &r.h, t.msm_h_ms);
  return r;
}

template <class E>
Proof<E> prove_gpu(const GpuProvingKey<E>& key, const ProvingKey<E>& pk, const std::vector<Scalar>& w,
                   const typename E::Fr& r, const typename E::Fr& s, gpu::DeviceMemory workspace, ThreadPool& pool,
                   ProveTimings* timings = nullptr) {
  (void)pool;
  ProveTimings t;
  auto t_all = std::chrono::steady_clock::now();
  GpuPartition<E> part = gpu_stage<E>(key.device(), pk, w, nullptr, nullptr, nullptr, workspace);
  MsmResults<E> m = gpu_kernels<E>(&key, pk, part, false, 0, t);
  auto t0 = std::chrono::steady_clock::now();
  Proof<E> proof = finish_proof<E>(pk, m.a, m.b1, m.b2, m.c, m.h, r, s);
  t.finish_ms = detail::ms_since(t0);
  t.total_ms = detail::ms_since(t_all);
  if (timings) *timings = t;
  return proof;
}

}  // namespace cuzk::groth16
