// SPDX-License-Identifier: MIT OR Apache-2.0
#include <algorithm>

#include "backend/cuda/common.cuh"
#include "backend/cuda/decode_points.hpp"
#include "ec/uncompressed.hpp"

namespace cuzk::gpu {

namespace {

constexpr size_t kChunk = size_t(48) << 20;  // a multiple of 96 and 192 bytes
constexpr int kSlots = 3;

// Point i of the chunk, decoded in place (cuzk's affine form is as large as the encoding); a
// failure leaves the identity there and lowers `first_bad` to (index << 8 | code).
template <class F>
__global__ void decode_kernel(uint8_t* buf, size_t n, size_t base, bool refuse_identity,
                              unsigned long long* first_bad) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  constexpr size_t kBytes = sizeof(ec::Affine<F>);
  static_assert(kBytes == (sizeof(F) == 48 ? 96 : 192), "affine form and encoding of one size");
  uint64_t w[kBytes / 8];
  const uint64_t* src = reinterpret_cast<const uint64_t*>(buf + i * kBytes);
  for (size_t k = 0; k < kBytes / 8; ++k) w[k] = src[k];
  ec::Affine<F> p;
  const ec::zcash::PointCode c = ec::zcash::decode(reinterpret_cast<const uint8_t*>(w), p, refuse_identity);
  if (c != ec::zcash::PointCode::ok) {
    p = ec::Affine<F>::infinity();
    atomicMin(first_bad, (unsigned long long)((base + i) << 8 | uint64_t(c)));
  }
  *reinterpret_cast<ec::Affine<F>*>(buf + i * kBytes) = p;
}

struct Pinned {
  explicit Pinned(DeviceId dev) : dev_(dev) {}
  ~Pinned() {
    for (void* p : buf)
      if (p) cudaFreeHost(p);
    for (cudaEvent_t e : done)
      if (e) cudaEventDestroy(e);
  }
  DeviceId dev_;
  void* buf[kSlots] = {};
  cudaEvent_t done[kSlots] = {};
};

}  // namespace

size_t decode_points_workspace_bytes() { return kSlots * kChunk + 256; }

size_t decode_points(DeviceId dev, bool g2, const void* raw, size_t n, void* out, bool refuse_identity,
                     DeviceMemory workspace, const std::function<void(void*, const void*, size_t)>& copy,
                     uint8_t& code) {
  code = 0;
  if (n == 0) return 0;
  DeviceScope scope(dev);
  Arena arena(workspace);
  auto* first_bad = arena.take<unsigned long long>(1, "decode: first bad point");
  uint8_t* dbuf[kSlots];
  for (auto& b : dbuf) b = arena.take<uint8_t>(kChunk, "decode: chunk");
  const size_t pb = g2 ? 192 : 96, per = kChunk / pb;
  const std::string detail = std::to_string(n) + (g2 ? " G2" : " G1") + " points";

  Pinned pin(dev);
  for (int s = 0; s < kSlots; ++s) {
    check(cudaHostAlloc(&pin.buf[s], kChunk, cudaHostAllocDefault), dev, "cudaHostAlloc (decode)", detail);
    check(cudaEventCreateWithFlags(&pin.done[s], cudaEventDisableTiming), dev, "cudaEventCreate", detail);
  }
  // Destroyed first (waiting for their work) if anything throws: nothing lands in the pinned
  // buffers or the workspace after this call.
  Stream s0(dev), s1(dev), s2(dev);
  const Stream* streams[kSlots] = {&s0, &s1, &s2};
  check(cudaMemsetAsync(first_bad, 0xFF, sizeof(unsigned long long), s0.get()), dev, "decode: memset", detail);
  s0.sync("decode: memset");

  size_t begin[kSlots] = {}, count[kSlots] = {};
  auto drain = [&](int s) {  // slot s's points back to the caller
    if (!count[s]) return;
    check(cudaEventSynchronize(pin.done[s]), dev, "decode points", detail);
    copy(static_cast<uint8_t*>(out) + begin[s] * pb, pin.buf[s], count[s] * pb);
    count[s] = 0;
  };
  int s = 0;
  for (size_t b = 0; b < n; b += per, s = (s + 1) % kSlots) {
    drain(s);
    const size_t m = std::min(per, n - b);
    copy(pin.buf[s], static_cast<const uint8_t*>(raw) + b * pb, m * pb);
    cudaStream_t st = streams[s]->get();
    check(cudaMemcpyAsync(dbuf[s], pin.buf[s], m * pb, cudaMemcpyHostToDevice, st), dev, "decode: copy in", detail);
    const unsigned threads = 256, blocks = unsigned((m + threads - 1) / threads);
    if (g2)
      decode_kernel<ec::zcash::Fq2><<<blocks, threads, 0, st>>>(dbuf[s], m, b, refuse_identity, first_bad);
    else
      decode_kernel<ec::zcash::Fq><<<blocks, threads, 0, st>>>(dbuf[s], m, b, refuse_identity, first_bad);
    check_launch(dev, "decode points", m);
    check(cudaMemcpyAsync(pin.buf[s], dbuf[s], m * pb, cudaMemcpyDeviceToHost, st), dev, "decode: copy out", detail);
    check(cudaEventRecord(pin.done[s], st), dev, "cudaEventRecord", detail);
    begin[s] = b;
    count[s] = m;
  }
  for (int k = 0; k < kSlots; ++k) drain(k);
  unsigned long long bad = 0;
  check(cudaMemcpy(&bad, first_bad, sizeof bad, cudaMemcpyDeviceToHost), dev, "decode: result", detail);
  if (bad == ~0ull) return n;
  code = uint8_t(bad & 0xFF);
  return size_t(bad >> 8);
}

}  // namespace cuzk::gpu
