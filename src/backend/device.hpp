// SPDX-License-Identifier: MIT OR Apache-2.0
// A device, as the scheduler and the prove sequence see it: memory taken from it in blocks,
// streams of work, and the operations of a Groth16 proof (a, b, c from the compiled matrices,
// H, MSMs) plus the setup's fixed-base multiplication. Implemented by the CPU backend (the
// `cpu` device and the simulated `sim:K` devices, cpu/device.hpp) and the CUDA backend
// (cuda/cuda_device.cpp); open_device (open.hpp) makes one from a DeviceSpec. Code above the
// backends never asks which kind it holds.
//
// Rules every implementation follows:
//  - a call's memory comes from what the caller hands it; each *_workspace_bytes() query says
//    how much that is, so the scheduler budgets with the same numbers that are allocated;
//  - work on a stream runs in order; a call that returns a result to the host waits for it,
//    every other call may return before its work is done;
//  - a Buffer is freed only after the work on the stream it is bound to is done, and its
//    destructor returns once it is free (nothing queued can write into memory given back);
//  - errors are exceptions naming the device, the operation and the size.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "ff/curve_id.hpp"
#include "util/error.hpp"

namespace cuzk::backend {

enum class Group { G1, G2 };
enum class ScalarForm { Standard, Montgomery };
enum class Where { Host, Device };

// What compute_h hands to the H MSM, fixed by the key's convention:
//   OddCoset      snarkjs: h on the odd coset of the doubled domain, n values; roots of unity from
//                 the quadratic non-residue (5)
//   Coefficients  bellperson: the coefficients of h = (a b - c) / Z, n values of which the last is
//                 zero (its key has n - 1 points); roots of unity and the coset from the field's
//                 multiplicative generator (7 on BLS12-381)
enum class HForm { OddCoset, Coefficients };

// A block of memory the caller owns, on the device that the call runs on (or on the host).
struct Memory {
  void* ptr = nullptr;
  size_t bytes = 0;
};

// Sparse rows (CSR) of the key's A or B matrix: row_ptr[n_rows + 1], col[nnz], val[nnz] (Fr in
// Montgomery form scaled by R, as stored in a .zkey). Entries are counted from row_ptr[0]: row
// i's are col/val[row_ptr[i] - row_ptr[0] .. row_ptr[i + 1] - row_ptr[0]), so a slice of rows
// with the entries of those rows alone (a streamed key's rows, a piece at a time) is a view too.
// Coded values (`code` set): entry k's value is dict[code[k]] (a 16-bit code into the matrix's
// distinct values, all of them, not a slice), `val` unused.
struct CsrView {
  const uint32_t* row_ptr = nullptr;
  const uint32_t* col = nullptr;
  const void* val = nullptr;
  const uint16_t* code = nullptr;
  const void* dict = nullptr;
};

// One multi-scalar multiplication: sum of scalars[i] * bases[i], i < count. A base is
// ec::Affine<F> (x then y, Montgomery limbs, all-zero = infinity); a scalar is 4 x u64 < r,
// little-endian. Either array may be on the host or on the device.
struct MsmConfig {
  CurveId curve = CurveId::bn254;
  Group group = Group::G1;
  size_t count = 0;
  const void* bases = nullptr;
  Where bases_at = Where::Device;
  const void* scalars = nullptr;
  Where scalars_at = Where::Device;
  ScalarForm scalar_form = ScalarForm::Standard;
  // Pippenger window width: 0 lets the backend choose (the default, and what provers use); a
  // test or a tuning run may ask for one (the GPU takes 2..24 and sizes its workspace for it; the
  // CPU backend chooses its own).
  unsigned window_bits = 0;
  // Bases as tables (a resident key's, made once by the backend): `tables` arrays of `count`
  // points one after the other, array k holding [2^(k * window_bits)] P_i; window_bits is then
  // required. One table (the default) is the bases themselves.
  unsigned tables = 1;
  // (digit, base) pairs the GPU sorts and holds at once (0: up to 2^27, 1 GiB of scratch and as
  // much again for the sort's other buffer): less scratch, more sorts. At least the count, at
  // most 2^31.
  size_t max_pairs = 0;
  // A second and a third array of bases (the same count, place and tables; on the device)
  // summed with the same scalars: the call writes a sum per array, over `bases`, then `bases2`,
  // then `bases3`, classifying and sorting the scalars once (Groth16's A, B1 and C over one
  // witness). bases3 only with bases2.
  const void* bases2 = nullptr;
  const void* bases3 = nullptr;
};

// Tables for the MSMs of a resident key: the window width they are made for and how many (one:
// none, the bases alone).
struct TablePlan {
  unsigned window_bits = 0, tables = 1;
};

// An ordered queue of work on one device. Destroying it waits for the work queued on it.
class Stream {
 public:
  virtual ~Stream() = default;
};

// Device memory in one block. Bound to a stream (or to none, when every user waits for its own
// work before letting go of it, as the key's users do): the destructor waits for that stream's
// work, frees the block and returns once it is free.
class Buffer {
 public:
  virtual ~Buffer() = default;
  void* data() const { return mem_.ptr; }
  size_t bytes() const { return mem_.bytes; }
  Memory memory() const { return mem_; }

 protected:
  Memory mem_;
};

// The device's own clock for the work of one stream: start() marks the stream's queue, stop_ms()
// marks it again, waits for that mark and returns the device's milliseconds between the marks
// (CUDA events on a GPU): time the device spent on the stream's work and the gaps inside it, not
// the host's time around it.
class DeviceClock {
 public:
  virtual ~DeviceClock() = default;
  virtual void start() = 0;
  virtual double stop_ms() = 0;
};

class Device {
 public:
  explicit Device(std::string name) : name_(std::move(name)) {}
  virtual ~Device() = default;
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  const std::string& name() const { return name_; }  // "gpu:0", "cpu", "sim:1"
  virtual std::string description() const = 0;       // "NVIDIA H200", "CPU, 16 threads", ...
  virtual size_t default_budget() const = 0;         // what the scheduler may use unless told
  // True when the device computes on host memory in place (the CPU): host data needs no copy
  // and a key resident there costs no budget.
  virtual bool shares_host_memory() const = 0;

  // Memory the calls below need, asked before they run.
  virtual size_t msm_workspace_bytes(const MsmConfig& cfg) const = 0;
  virtual size_t h_workspace_bytes(CurveId curve, int log_n, HForm form) const = 0;
  virtual size_t fixed_base_workspace_bytes(CurveId curve, Group group, size_t chunk) const = 0;

  virtual std::shared_ptr<Stream> make_stream() = 0;
  // Throws (naming the device and the bytes) when the device cannot provide them.
  virtual std::unique_ptr<Buffer> allocate(size_t bytes, std::shared_ptr<Stream> bound, const char* what) = 0;
  // Host to device; `src` may be reused once the call returns.
  virtual void copy_to_device(void* dst, const void* src, size_t bytes, Stream& s, const char* what) = 0;
  // a = A.w, b = B.w, c = a.b over n_rows (Montgomery form); w standard form, on the device.
  virtual void evaluate_abc(CurveId curve, size_t n_rows, CsrView A, CsrView B, const void* w, void* a, void* b,
                            void* c, Stream& s) = 0;
  // H in `form`: a, b, c (Montgomery, natural order) are overwritten; h (standard form, n values)
  // goes to h_out, which may alias a. `scratch` holds h_workspace_bytes().
  virtual void compute_h(CurveId curve, int log_n, HForm form, void* a, void* b, void* c, void* h_out, Memory scratch,
                         Stream& s) = 0;
  // dst[i] = src[index[i]], i < count, for 32-byte scalars (the witness values of the wires a
  // density-compacted MSM runs over); all three on the device.
  virtual void gather(const void* src, const uint32_t* index, size_t count, void* dst, Stream& s) = 0;
  // Writes the sum to `result` on the host (ec::Jacobian<F>; one per array of bases, one after
  // the other, with cfg.bases2 and bases3) and returns when it is there.
  virtual void msm(const MsmConfig& cfg, Memory workspace, void* result, Stream& s) = 0;
  // Tables of a resident key's bases (MsmConfig::tables): the plan for n bases of (curve, group)
  // in at most `max_bytes` of tables (the bases themselves, table 0, included), {0, 1} where
  // none pays or the device offers none; and making them: cfg.tables tables of cfg.count device
  // bases at cfg.bases into `out` (out == bases keeps table 0 in place), returning when written.
  virtual TablePlan msm_table_plan(CurveId curve, Group group, size_t n, size_t max_bytes) const {
    (void)curve, (void)group, (void)n, (void)max_bytes;
    return {};
  }
  virtual void make_msm_tables(const MsmConfig& cfg, void* out, Stream& s) {
    (void)cfg, (void)out, (void)s;
    throw Error(name() + ": MSM tables are not offered on this device");
  }
  // out[i] = [scalars[i]] base, i < n; base, scalars (standard form) and out on the host. Returns
  // when out is written.
  virtual void fixed_base_mul(CurveId curve, Group group, const void* base, const void* scalars, size_t n, void* out,
                              Memory workspace, Stream& s) = 0;
  // Host memory [p, p + bytes) page-locked for copies to this device (and to its kind's other
  // devices): copy_to_device then moves it by DMA straight from there, without the host copying
  // it first. For memory read again and again (a streamed key): locking it may hold up the
  // device's other work meanwhile. The handle unlocks it; null where the device gains nothing
  // (the CPU) or the host refused (the copies then go as before).
  virtual std::shared_ptr<void> pin_host(const void* p, size_t bytes) const {
    (void)p, (void)bytes;
    return nullptr;
  }
  // A copy of host memory [p, p + bytes) in a free page-locked buffer of those keep_page_locked
  // made: the handle points at the copy (which copy_to_device reads by DMA) and gives the buffer
  // back. For memory read soon whose copy can be made while nothing waits for it (a witness
  // waiting for device memory, which then lives in the copy): unlike pin_host it holds up nothing
  // else on the device. Null where none is free (none is allocated here) or the device gains
  // nothing (the CPU).
  virtual std::shared_ptr<void> copy_page_locked(const void* p, size_t bytes) const {
    (void)p, (void)bytes;
    return nullptr;
  }
  // A page-locked buffer of at least `bytes`, uninitialised, from those kept for copy_page_locked
  // (the room keep_page_locked made), for memory written once on the host and then copied to a
  // device (a witness synthesized straight into it): copy_to_device reads it by DMA. Only a free
  // kept buffer: none is allocated here (an allocation holds up the device's other work). The
  // handle gives it back. Null where none is free or the device gains nothing (the CPU).
  virtual std::shared_ptr<void> page_locked_buffer(size_t bytes) const {
    (void)bytes;
    return nullptr;
  }
  // Makes room ahead: `count` page-locked buffers of `bytes` (in all, for every device of its
  // backend: they serve them all; the room is set, not added to: the caller combines what all
  // its circuits need, and free buffers beyond it go), which copy_page_locked and
  // page_locked_buffer hand out, allocated now rather than beside kernels; release_idle_memory
  // keeps them. count 0: none is needed any more (the idle ones are freed). Nothing where
  // page-locked memory gains nothing.
  virtual void keep_page_locked(size_t bytes, size_t count) const { (void)bytes, (void)count; }
  // Gives memory that the device's allocator keeps for later allocations, and no buffer uses,
  // back to the system (other processes); nothing where it keeps none. The engine calls it when
  // a key is evicted on request and when it stops.
  virtual void release_idle_memory() {}
  // Waits for the work queued on `s`.
  virtual void synchronize(Stream& s) = 0;
  // A clock of the device's own for `s`'s work; null where there is none (the CPU, whose work
  // is the host's own time).
  virtual std::unique_ptr<DeviceClock> clock(Stream&) { return nullptr; }

  // Key points in the zcash uncompressed encoding of BLS12-381 (bellperson's .params),
  // decoded by ec/uncompressed.hpp's decoder on this device: `raw` (n points of `group`, host)
  // into cuzk's affine form at `out` (host), every point canonical, on the curve and (with
  // refuse_identity) not the identity; the bytes equal the host decoder's. `copy` does the
  // host-side copies (a pool's parallel memcpy); `workspace` holds decode_workspace_bytes().
  // Returns the lowest failing index and its ec::zcash::PointCode, or nullopt when all decode.
  // A device that does not offer it says 0 from decode_workspace_bytes (the caller decodes on
  // the host).
  struct DecodeFailure {
    size_t index;
    uint8_t code;
  };
  using HostCopy = std::function<void(void* dst, const void* src, size_t bytes)>;
  virtual size_t decode_workspace_bytes() const { return 0; }
  virtual std::optional<DecodeFailure> decode_points(Group group, const void* raw, size_t n, void* out,
                                                     bool refuse_identity, Memory workspace, const HostCopy& copy) {
    (void)group, (void)raw, (void)n, (void)out, (void)refuse_identity, (void)workspace, (void)copy;
    throw Error(name() + ": decoding key points is not offered on this device");
  }

 private:
  std::string name_;
};

}  // namespace cuzk::backend
