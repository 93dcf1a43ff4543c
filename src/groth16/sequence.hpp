// SPDX-License-Identifier: MIT OR Apache-2.0
// The Groth16 prove sequence, written once over backend::Device: the CPU, a simulated device and
// a GPU all run these lines. Three steps, so that a scheduler can put its lock between them:
//
//   stage    (outside the device's lock)  the working set allocated, witness (and host-made
//                                          a, b, c) copied in
//   kernels  (under the lock)             a, b, c from the key's rows; H; the five MSMs
//   finish   (outside)                    blinding and assembly on the host (finish_proof)
//
// Memory: a key on a device takes key_bytes(), one proof working_set_bytes(); both are computed
// by carve_key / carve_working_set, the same functions that lay the memory out, from the
// device's own workspace queries. Given the same r, s, every device gives the same proof, bit
// for bit.
#pragma once
#include <algorithm>
#include <array>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <thread>
#include <tuple>
#include <vector>

#include "backend/device.hpp"
#include "groth16/key.hpp"
#include "groth16/phases.hpp"
#include "util/carver.hpp"
#include "util/error.hpp"
#include "util/time.hpp"

namespace cuzk::groth16 {

using backend::Device;

// How a resident key's MSMs run: tables (backend::MsmConfig::tables), one plan per point
// section, and whether A, B1 and C share one call (MsmConfig::bases2, bases3: the witness
// classified and sorted once, at the cost of two more bucket sets in the working set; the key's
// C section then starts with n_public + 1 points at infinity, so that it is indexed as the
// witness is). None by default, and always none for a streamed key.
struct KeyTables {
  backend::TablePlan a, b1, b2, c, h;
  bool share = false;
  bool any() const { return a.tables > 1 || b1.tables > 1 || b2.tables > 1 || c.tables > 1 || h.tables > 1; }
};

// The point sections of a key, each with its group, its points and its plan in `t`.
template <class E, class Fn>
void for_each_section(const ProvingKey<E>& pk, KeyTables& t, Fn&& fn) {
  using backend::Group;
  fn(Group::G1, pk.a, t.a, "key A points");
  fn(Group::G1, pk.b1, t.b1, "key B1 points");
  fn(Group::G2, pk.b2, t.b2, "key B2 points");
  fn(Group::G1, pk.c, t.c, "key C points");
  fn(Group::G1, pk.h, t.h, "key H points");
}

// Whether pk's A, B1 and C can be one call: all three over the witness itself (no density
// compaction), a point per wire.
template <class E>
bool can_share(const ProvingKey<E>& pk) {
  return !pk.compact && !pk.a.empty() && pk.a.size() == pk.n_vars && pk.b1.size() == pk.n_vars &&
         pk.c.size() + pk.n_public + 1 == pk.n_vars;
}

// The tables `d` plans for pk's point sections in at most `max_bytes` beyond the key itself,
// shared among the sections in proportion to their size (none on a device that offers none);
// A, B1 and C in one call where the key allows it (can_share) and A and B1 are planned alike (C
// then takes their plan) on a device with memory of its own.
template <class E>
KeyTables plan_key_tables(const Device& d, const ProvingKey<E>& pk, size_t max_bytes) {
  KeyTables t;
  if (d.shares_host_memory()) return t;
  auto share = [&] {
    t.share = can_share(pk) && t.a.tables == t.b1.tables && t.a.window_bits == t.b1.window_bits;
    if (t.share) t.c = t.a;
    return t;
  };
  if (max_bytes == 0) return share();
  size_t points = 0;
  for_each_section(pk, t, [&](backend::Group, const auto& v, backend::TablePlan&, const char*) {
    points += v.size() * sizeof(v[0]);
  });
  if (points == 0) return share();
  for_each_section(pk, t, [&](backend::Group g, const auto& v, backend::TablePlan& plan, const char*) {
    if (v.empty()) return;
    const size_t own = v.size() * sizeof(v[0]);
    const size_t part = size_t(double(max_bytes) * double(own) / double(points));
    plan = d.msm_table_plan(E::id, g, v.size(), own + part);
  });
  return share();
}

// Whether the A, B1 and C MSMs run as one call (MsmConfig::bases2, bases3): planned so, for a
// resident key that allows it (can_share), the three sections under one table plan.
template <class E>
bool one_call(const ProvingKey<E>& pk, const KeyTables& t) {
  auto same = [](const backend::TablePlan& x, const backend::TablePlan& y) {
    return x.tables == y.tables && x.window_bits == y.window_bits;
  };
  return t.share && can_share(pk) && same(t.a, t.b1) && same(t.a, t.c);
}

// A key's A and B rows [r0, r1) on a device, laid out by a Carver: the rows' pointers (as in the
// key: a backend::CsrView counts entries from its first row's) and their entries. All of them in
// a resident key (DeviceKey), a piece at a time for a streamed one.
template <class Fr>
struct RowsPiece {
  backend::CsrView A{}, B{};
  // `put(dst, src, bytes, what)` copies each part (nothing when sizing).
  // A coded matrix's piece holds the codes of its entries and the whole dictionary.
  template <class Put>
  void carve(Carver& cv, const Csr<Fr>& a, const Csr<Fr>& b, size_t r0, size_t r1, Put&& put) {
    auto rows = [&](const Csr<Fr>& m, backend::CsrView& v, const char* ptrs, const char* cols, const char* vals) {
      const size_t k0 = m.row_ptr[r0], k1 = m.row_ptr[r1];
      uint32_t* p = cv.take<uint32_t>(r1 - r0 + 1, ptrs);
      uint32_t* c = cv.take<uint32_t>(k1 - k0, cols);
      Fr* x = m.coded() ? nullptr : cv.take<Fr>(k1 - k0, vals);
      uint16_t* code = m.coded() ? cv.take<uint16_t>(k1 - k0, vals) : nullptr;
      Fr* dict = m.coded() ? cv.take<Fr>(m.dict.size(), vals) : nullptr;
      if (!p) return;
      put(p, m.row_ptr.data() + r0, (r1 - r0 + 1) * sizeof(uint32_t), ptrs);
      if (k1 > k0) {
        put(c, m.col.data() + k0, (k1 - k0) * sizeof(uint32_t), cols);
        if (code)
          put(code, m.code.data() + k0, (k1 - k0) * sizeof(uint16_t), vals);
        else
          put(x, m.val.data() + k0, (k1 - k0) * sizeof(Fr), vals);
      }
      if (dict) put(dict, m.dict.data(), m.dict.size() * sizeof(Fr), vals);
      v = {p, c, x, code, dict};
    };
    if (r0 == 0 && r1 + 1 == a.row_ptr.size()) {  // all of them
      rows(a, A, "A rows", "A columns", "A values");
      rows(b, B, "B rows", "B columns", "B values");
    } else {
      rows(a, A, "A rows (piece)", "A columns (piece)", "A values (piece)");
      rows(b, B, "B rows (piece)", "B columns (piece)", "B values (piece)");
    }
  }
  static size_t bytes(const Csr<Fr>& a, const Csr<Fr>& b, size_t r0, size_t r1) {
    Carver cv;
    RowsPiece().carve(cv, a, b, r0, r1, [](auto...) {});
    return cv.used();
  }
};

// The key's points and compiled rows on a device: A, B1, B2, C, H points (each section with its
// tables, when planned: table 0 the points themselves), then the A and B rows, in one block. On
// a device that shares the host's memory (the CPU) the key is used in place.
template <class E>
class DeviceKey {
 public:
  using A1 = typename E::G1Affine;
  using A2 = typename E::G2Affine;
  using Fr = typename E::Fr;

  const A1 *a = nullptr, *b1 = nullptr, *c = nullptr, *h = nullptr;
  const A2* b2 = nullptr;
  backend::CsrView A{}, B{};
  const uint32_t *a_wires = nullptr, *b_wires = nullptr;  // density-compacted keys only
  KeyTables tables;
  size_t c_pad = 0;  // points at infinity before C's (A, B1 and C in one call)

  // Lays the key out in `cv` (sizing or carving); `put(dst, src, bytes, what)` copies a section.
  // With A, B1 and C in one call, C's points follow c_pad points at infinity (all-zero bytes).
  template <class Put>
  void carve(Carver& cv, const ProvingKey<E>& pk, Put&& put) {
    auto section = [&](const auto& v, const char* what, unsigned copies = 1, size_t pad = 0) {
      using T = typename std::decay_t<decltype(v)>::value_type;
      T* d = cv.take<T>((pad + v.size()) * copies, what);
      if (d && pad) {
        const std::vector<unsigned char> zeros(pad * sizeof(T), 0);
        put(d, zeros.data(), zeros.size(), what);
      }
      if (d && !v.empty()) put(d + pad, v.data(), v.size() * sizeof(T), what);
      return d;
    };
    c_pad = one_call(pk, tables) ? size_t(pk.n_public) + 1 : 0;
    a = section(pk.a, "key A points", tables.a.tables);
    b1 = section(pk.b1, "key B1 points", tables.b1.tables);
    b2 = section(pk.b2, "key B2 points", tables.b2.tables);
    c = section(pk.c, "key C points", tables.c.tables, c_pad);
    h = section(pk.h, "key H points", tables.h.tables);
    // A and B have a row pointer each for the domain, or none (check_key_shape)
    if (!pk.A.row_ptr.empty() && pk.B.row_ptr.size() == pk.A.row_ptr.size()) {
      RowsPiece<Fr> rows;
      rows.carve(cv, pk.A, pk.B, 0, pk.A.row_ptr.size() - 1, put);
      A = rows.A, B = rows.B;
    }
    if (!pk.a_wires.empty()) a_wires = section(pk.a_wires, "A density");
    if (!pk.b_wires.empty()) b_wires = section(pk.b_wires, "B density");
  }

  // Device memory of the key on `d` with tables `t` (0 where the key is used in place).
  static size_t bytes_on(const Device& d, const ProvingKey<E>& pk, const KeyTables& t = {}) {
    if (d.shares_host_memory()) return 0;
    Carver cv;
    DeviceKey<E> k;
    k.tables = t;
    k.carve(cv, pk, [](auto...) {});
    return cv.used();
  }

  // Uploads `pk` to `d` (a block of exactly bytes_on()) and makes its tables, or points at it
  // where d shares the host's memory.
  static std::shared_ptr<DeviceKey> upload(Device& d, const ProvingKey<E>& pk, const KeyTables& t = {}) {
    auto k = std::make_shared<DeviceKey>();
    if (d.shares_host_memory()) {
      k->a = pk.a.data(), k->b1 = pk.b1.data(), k->b2 = pk.b2.data(), k->c = pk.c.data(), k->h = pk.h.data();
      k->A = pk.A.view(), k->B = pk.B.view();
      k->a_wires = pk.a_wires.empty() ? nullptr : pk.a_wires.data();
      k->b_wires = pk.b_wires.empty() ? nullptr : pk.b_wires.data();
      return k;
    }
    k->tables = t;
    const size_t bytes = bytes_on(d, pk, t);
    auto stream = d.make_stream();
    k->mem_ = d.allocate(bytes, nullptr, "resident key");
    Carver cv(k->mem_->data(), bytes, d.name());
    k->carve(cv, pk, [&](void* dst, const void* src, size_t n, const char* what) {
      d.copy_to_device(dst, src, n, *stream, what);
    });
    const void* at[] = {k->a, k->b1, k->b2, k->c, k->h};
    const size_t pad[] = {0, 0, 0, k->c_pad, 0};
    int i = 0;
    for_each_section(pk, k->tables, [&](backend::Group g, const auto& v, backend::TablePlan& plan, const char*) {
      void* bases = const_cast<void*>(at[i]);
      const size_t count = pad[i++] + v.size();
      if (plan.tables < 2 || count == 0) return;
      backend::MsmConfig cfg;
      cfg.curve = E::id, cfg.group = g, cfg.count = count, cfg.bases = bases;
      cfg.window_bits = plan.window_bits, cfg.tables = plan.tables;
      d.make_msm_tables(cfg, bases, *stream);
    });
    d.synchronize(*stream);
    return k;
  }

 private:
  std::unique_ptr<backend::Buffer> mem_;
};

// A streamed key's points go to the device a piece at a time, into kSlots slots of the working
// set: a piece is `chunk` G1 points (or the largest section's count, when smaller), or as many
// G2 points as fit in the same bytes (half as many: a G2 point is twice a G1 point's size).
// While the device sums one piece, the next ones are copied into the free slots.
template <class E>
struct StreamSlots {
  static constexpr size_t kSlots = 4;
  size_t g1 = 0, g2 = 0, bytes = 0, count = 0;  // points of a piece, bytes of a slot, slots
  StreamSlots() = default;
  StreamSlots(const ProvingKey<E>& pk, size_t chunk) {
    if (chunk == 0) return;
    using A1 = typename E::G1Affine;
    using A2 = typename E::G2Affine;
    g1 = std::min(chunk, std::max<size_t>({pk.domain_size, pk.n_vars, 1}));
    g2 = std::max<size_t>(1, g1 * sizeof(A1) / sizeof(A2));
    bytes = Carver::round(std::max(g1 * sizeof(A1), g2 * sizeof(A2)));
    count = kSlots;
  }
  size_t points(backend::Group g) const { return g == backend::Group::G1 ? g1 : g2; }
};

// The MSMs of one proof, over device bases: the resident key's (with its tables) or, with a
// streamed key, a piece of its points at a time (StreamSlots) copied into the working set.
template <class E>
std::vector<backend::MsmConfig> msm_configs(const ProvingKey<E>& pk, size_t chunk, const KeyTables& t = {}) {
  const size_t n = pk.domain_size, m = pk.n_vars;
  const StreamSlots<E> slots(pk, chunk);
  auto cfg = [&](backend::Group g, size_t count, backend::TablePlan plan = {}) {
    backend::MsmConfig c;
    c.curve = E::id, c.group = g;
    c.count = chunk ? std::min(count, slots.points(g)) : count;
    c.bases_at = backend::Where::Device;
    if (!chunk && plan.tables > 1) c.window_bits = plan.window_bits, c.tables = plan.tables;
    return c;
  };
  std::vector<backend::MsmConfig> out = {cfg(backend::Group::G1, std::max(n, m)), cfg(backend::Group::G2, m)};
  if (!chunk && t.any()) {
    KeyTables plans = t;
    for_each_section(pk, plans, [&](backend::Group g, const auto& v, backend::TablePlan& plan, const char*) {
      if (plan.tables > 1 && !v.empty()) out.push_back(cfg(g, v.size(), plan));
    });
  }
  if (!chunk && one_call(pk, t)) {
    static const char sizing = 0;  // any non-null pointers: the workspace holds three bucket sets
    out.push_back(cfg(backend::Group::G1, m, t.a));
    out.back().bases2 = out.back().bases3 = &sizing;
  }
  return out;
}

// The least device memory a streamed key's a, b, c evaluation works in: all of A's and B's rows
// when they take no more than 64 MiB, else 64 MiB or, if more, a piece of one row as long as the
// longest row of A and one as long as the longest of B (a coded matrix's with its dictionary).
template <class Fr>
size_t rows_space_bytes(const Csr<Fr>& A, const Csr<Fr>& B) {
  if (A.row_ptr.size() < 2 || B.row_ptr.size() != A.row_ptr.size()) return 0;
  const size_t n = A.row_ptr.size() - 1;
  constexpr size_t kPiece = size_t(64) << 20;
  const size_t all = RowsPiece<Fr>::bytes(A, B, 0, n);
  if (all <= kPiece) return all;
  auto longest = [](const std::vector<uint32_t>& p) {
    uint32_t most = 0;
    for (size_t i = 0; i + 1 < p.size(); ++i) most = std::max(most, p[i + 1] - p[i]);
    return size_t(most);
  };
  // one row of `len` entries of m (as RowsPiece lays it out)
  auto row = [](const Csr<Fr>& m, size_t len) {
    const size_t values = m.coded() ? Carver::round(len * sizeof(uint16_t)) + Carver::round(m.dict.size() * sizeof(Fr))
                                    : Carver::round(len * sizeof(Fr));
    return Carver::round(2 * sizeof(uint32_t)) + Carver::round(len * sizeof(uint32_t)) + values;
  };
  return std::max(kPiece, row(A, longest(A.row_ptr)) + row(B, longest(B.row_ptr)));
}

// rows_space_bytes not yet known: carve() scans the key's rows for it (a pass over both row_ptr
// arrays: ~0.2 s at 2^27). A caller that holds the key unchanged computes it once and passes it.
constexpr size_t kRowsSpaceUnknown = SIZE_MAX;

// One proof's device memory, in this order: witness scalars, (for a density-compacted key) the
// gathered scalars of the A or B MSM and, with a streamed key, the density lists; a, b, c, then
// scratch. H runs first with a, b, c live and its scratch after c, and leaves h in a. The MSMs
// then need only the witness (or its gathered values) and h, so their workspace starts at b: b
// and c are dead by then. The scratch after c is therefore the larger of H's workspace and what
// the largest MSM needs beyond those two; with a streamed key it also holds, before H, the
// pieces of A's and B's rows that a, b, c are evaluated from (rows_space_bytes at the least),
// and the MSMs' workspace starts with the slots for pieces of the key's points (StreamSlots).
template <class E>
struct WorkingSet {
  using Fr = typename E::Fr;
  Scalar* w = nullptr;
  Scalar* gathered = nullptr;
  uint32_t *a_wires = nullptr, *b_wires = nullptr;  // streamed compacted key only
  Fr *a = nullptr, *b = nullptr, *c = nullptr;
  backend::Memory h_scratch, msm_scratch, rows_scratch;
  std::vector<void*> slots;  // streamed key: `layout.count` slots for pieces of its points
  StreamSlots<E> layout;     // as carved (none for a resident key)

  void carve(Carver& cv, const Device& d, const ProvingKey<E>& pk, size_t chunk, const KeyTables& t = {},
             size_t rows_space = kRowsSpaceUnknown) {
    const size_t n = pk.domain_size, m = pk.n_vars;
    size_t msm = 0;
    for (auto& cfg : msm_configs(pk, chunk, t)) msm = std::max(msm, d.msm_workspace_bytes(cfg));
    const StreamSlots<E> ss(pk, chunk);
    layout = ss;
    const size_t pieces = ss.count * ss.bytes;
    msm += pieces;
    const size_t h = d.h_workspace_bytes(E::id, pk.log_n, pk.h_form), bc = 2 * Carver::round(n * sizeof(Fr));
    w = cv.take<Scalar>(m, "witness scalars");
    if (pk.compact) {
      gathered = cv.take<Scalar>(std::max(pk.a_wires.size(), pk.b_wires.size()), "gathered scalars");
      if (chunk) {
        a_wires = cv.take<uint32_t>(pk.a_wires.size(), "A density");
        b_wires = cv.take<uint32_t>(pk.b_wires.size(), "B density");
      }
    }
    a = cv.take<Fr>(n, "a");
    b = cv.take<Fr>(n, "b");
    c = cv.take<Fr>(n, "c");
    size_t after_c = std::max(h, msm > bc ? msm - bc : 0);
    if (chunk) after_c = std::max(after_c, rows_space != kRowsSpaceUnknown ? rows_space : rows_space_bytes(pk.A, pk.B));
    char* scratch = cv.take<char>(after_c, "scratch after c");
    h_scratch = {scratch, h};
    slots.clear();
    if (b)
      for (size_t i = 0; i < ss.count; ++i) slots.push_back(reinterpret_cast<char*>(b) + i * ss.bytes);
    msm_scratch = {b ? reinterpret_cast<char*>(b) + pieces : nullptr, bc + after_c - pieces};
    rows_scratch = {scratch, after_c};
  }
  static size_t bytes_on(const Device& d, const ProvingKey<E>& pk, size_t chunk, const KeyTables& t = {},
                         size_t rows_space = kRowsSpaceUnknown) {
    Carver cv;
    WorkingSet().carve(cv, d, pk, chunk, t, rows_space);
    return cv.used();
  }
};

// What stage() made of one partition: its stream, its working set and where things are in it.
template <class E>
struct Staged {
  std::shared_ptr<backend::Stream> stream;
  std::unique_ptr<backend::Buffer> mem;  // bound to `stream`: freed after its work
  WorkingSet<E> ws;
  bool abc_staged = false;
};

// The five MSM results before blinding.
template <class E>
struct MsmResults {
  typename E::G1Jac a, b1, c, h;
  typename E::G2Jac b2;
  // The kernel phases' time on the device's own clock (CUDA events around each phase's stream
  // work): the device's activity, without the host's time between phases. -1 where the device
  // has no clock of its own (the CPU).
  double device_ms = -1;
};

// Allocates the working set (`bytes`, as reserved: at least WorkingSet::bytes_on) and copies the
// witness and, when given (evaluated on the host), a, b and c.
template <class E>
using HostAbc = std::array<const std::vector<typename E::Fr>*, 3>;  // a, b, c evaluated on the host, or nulls

template <class E>
Staged<E> stage(Device& d, const ProvingKey<E>& pk, std::span<const Scalar> w, const HostAbc<E>& abc_host, size_t chunk,
                size_t bytes, const KeyTables& tables = {}, size_t rows_space = kRowsSpaceUnknown) {
  using Fr = typename E::Fr;
  if (w.size() != pk.n_vars)
    throw InvalidArgument("witness has " + std::to_string(w.size()) + " values, the key expects " +
                          std::to_string(pk.n_vars));
  check_key_shape(pk);
  Staged<E> st;
  st.stream = d.make_stream();
  st.mem = d.allocate(bytes, st.stream, "partition working set");
  Carver cv(st.mem->data(), bytes, d.name());
  st.ws.carve(cv, d, pk, chunk, tables, rows_space);
  const size_t n = pk.domain_size;
  d.copy_to_device(st.ws.w, w.data(), w.size() * sizeof(Scalar), *st.stream, "witness scalars");
  for (auto [dst, list, what] :
       {std::tuple{st.ws.a_wires, &pk.a_wires, "A density"}, std::tuple{st.ws.b_wires, &pk.b_wires, "B density"}})
    if (dst && !list->empty()) d.copy_to_device(dst, list->data(), list->size() * sizeof(uint32_t), *st.stream, what);
  st.abc_staged = abc_host[0] && abc_host[1] && abc_host[2];
  if (st.abc_staged) {
    Fr* dst[3] = {st.ws.a, st.ws.b, st.ws.c};
    const char* what[3] = {"a", "b", "c"};
    for (int i = 0; i < 3; ++i) d.copy_to_device(dst[i], abc_host[i]->data(), n * sizeof(Fr), *st.stream, what[i]);
  }
  return st;
}

// a, b, c of a streamed key on the device: its A and B rows go from the host a piece at a time
// into the working set's rows scratch, and each piece is evaluated while the next is copied: the
// scratch holds two pieces side by side (each at most kRowsPiece bytes, so that the copies and
// evaluations interleave finely), each half evaluated on its own stream and rewritten once its
// last evaluation is done. A row too long for a half (with the rows after it that fit), or all
// the rows when they fit the scratch at once, go in the whole scratch, with nothing beside them.
constexpr size_t kRowsPiece = size_t(256) << 20;

template <class E>
void abc_from_host_rows(Device& d, const ProvingKey<E>& pk, const WorkingSet<E>& ws, backend::Stream& s) {
  using Fr = typename E::Fr;
  const size_t n = pk.domain_size;
  if (pk.A.row_ptr.size() != n + 1 || pk.B.row_ptr.size() != n + 1)
    throw InvalidArgument("the key has no constraint rows: a, b, c must be given with the witness");
  const backend::Memory space = ws.rows_scratch;
  const size_t half = std::min(kRowsPiece, space.bytes / 2 / 256 * 256);
  auto bytes_of = [&](size_t r0, size_t r1) { return RowsPiece<Fr>::bytes(pk.A, pk.B, r0, r1); };
  auto most = [&](size_t r0, size_t room) {  // the most rows from r0 that fit: lo fits, beyond hi none
    size_t lo = r0 + 1, hi = n;
    while (lo < hi) {
      const size_t mid = lo + (hi - lo + 1) / 2;
      if (bytes_of(r0, mid) <= room)
        lo = mid;
      else
        hi = mid - 1;
    }
    return lo;
  };
  std::shared_ptr<backend::Stream> second;  // the second half's
  unsigned h = 0;                           // the half of the next piece
  for (size_t r0 = 0; r0 < n;) {
    const size_t one = bytes_of(r0, r0 + 1);
    if (one > space.bytes)  // the working set was sized for the longest rows
      throw Error(d.name() + ": row " + std::to_string(r0) + " of A and B needs " + std::to_string(one) +
                  " bytes, the rows scratch has " + std::to_string(space.bytes));
    const bool whole = one > half || (r0 == 0 && bytes_of(0, n) <= space.bytes);
    backend::Stream* on = &s;
    char* at = static_cast<char*>(space.ptr);
    if (whole) {
      if (second) d.synchronize(*second);  // both halves have been read
    } else {
      if (h == 1 && !second) second = d.make_stream();
      on = h == 0 ? &s : second.get();
      at += h * half;
    }
    d.synchronize(*on);  // the piece before in this space has been read
    const size_t r1 = most(r0, whole ? space.bytes : half);
    Carver cv(at, whole ? space.bytes : half, d.name());
    RowsPiece<Fr> piece;
    piece.carve(cv, pk.A, pk.B, r0, r1, [&](void* dst, const void* src, size_t bytes, const char* what) {
      d.copy_to_device(dst, src, bytes, *on, what);
    });
    d.evaluate_abc(E::id, r1 - r0, piece.A, piece.B, ws.w, ws.a + r0, ws.b + r0, ws.c + r0, *on);
    if (whole)
      d.synchronize(s);  // read before any half is rewritten
    else
      h ^= 1;
    r0 = r1;
  }
  if (second) d.synchronize(*second);  // all of a, b, c written when `s` is done
}

// One MSM of a streamed key: its phase, its points on the host, its sum (`sum` adds the sum of
// one piece, with the piece's device bases and scalars, to the result) and its scalars
// (`scalars` runs before its first piece: a density-compacted key's are gathered then).
struct StreamedMsm {
  Phase phase;
  backend::Group group;
  const char* points = nullptr;
  size_t point_bytes = 0, count = 0;
  std::function<const Scalar*()> scalars;
  std::function<void(const Scalar* k, size_t count, const void* bases)> sum;
};

// A piece of a streamed MSM: points [lo, lo + count) of MSM `msm`.
struct StreamedPiece {
  size_t msm, lo, count;
  bool operator==(const StreamedPiece&) const = default;
};

// The order in which a streamed key's MSMs run their pieces: MSM i has counts[i] points, in
// pieces of steps[i]. The last MSM's pieces are spread evenly among the others' (one of its
// pieces, then the others' next share in their own order, and so on); the others keep theirs.
inline std::vector<StreamedPiece> streamed_order(const std::vector<size_t>& counts, const std::vector<size_t>& steps) {
  std::vector<StreamedPiece> others, spread, order;
  for (size_t i = 0; i < counts.size(); ++i) {
    const size_t step = std::max<size_t>(1, steps[i]);
    for (size_t lo = 0; lo < counts[i]; lo += step)
      (i + 1 == counts.size() ? spread : others).push_back({i, lo, std::min(step, counts[i] - lo)});
  }
  if (spread.empty()) return others;
  for (size_t h = 0; h < spread.size(); ++h) {
    order.push_back(spread[h]);
    for (size_t o = h * others.size() / spread.size(); o < (h + 1) * others.size() / spread.size(); ++o)
      order.push_back(others[o]);
  }
  return order;
}

// A streamed key's MSMs as one pipeline of pieces (StreamSlots): this thread copies each
// piece's points into a free slot, as far ahead as slots are free, while another sums the
// pieces in the same order (streamed_order). The last MSM's pieces (H: dense scalars, the
// longest sums) are spread among the others' (whose copies take longer than their sums where
// the witness is mostly zeros, ones and bits), so that the copies of those run while H's
// pieces are summed. Each MSM's phase spans its first piece to its last (so the phases overlap
// H's); `before(p)` runs before an MSM's first piece (and first of all for an MSM with no points).
template <class E>
void streamed_msms(Device& d, backend::Stream& s, const StreamSlots<E>& slots, const std::vector<void*>& slot_at,
                   std::vector<StreamedMsm>& msms, const PhaseTimer& timer, const std::function<void(Phase)>& before) {
  std::vector<size_t> counts, steps;
  for (auto& x : msms) counts.push_back(x.count), steps.push_back(slots.points(x.group));
  const std::vector<StreamedPiece> order = streamed_order(counts, steps);
  std::vector<size_t> last(msms.size(), SIZE_MAX);
  for (size_t j = 0; j < order.size(); ++j) last[order[j].msm] = j;
  for (auto& x : msms)
    if (x.count == 0) {  // the sum of nothing (a compacted query with no wire)
      before(x.phase);
      timer.time(x.phase, [] {});
    }
  const size_t slot_count = slot_at.size();
  if (order.empty()) return;
  if (slot_count == 0) throw InvalidArgument("a streamed key's MSMs need slots in the working set");

  std::mutex mu;
  std::condition_variable cv;
  size_t copied = 0, summed = 0;  // pieces [0, copied) are in their slots; [0, summed) are summed
  bool failed = false;
  std::exception_ptr error;
  auto fail = [&](std::exception_ptr e) {
    std::lock_guard lk(mu);
    if (!error) error = e;
    failed = true;
    cv.notify_all();
  };
  std::thread summer([&] {
    try {
      std::vector<const Scalar*> k(msms.size(), nullptr);
      std::vector<bool> started(msms.size(), false);
      for (size_t j = 0; j < order.size(); ++j) {
        const StreamedPiece& pc = order[j];
        StreamedMsm& x = msms[pc.msm];
        if (!started[pc.msm]) {
          started[pc.msm] = true;
          before(x.phase);
          timer.begin(x.phase);
          k[pc.msm] = x.scalars();
        }
        {
          std::unique_lock lk(mu);
          cv.wait(lk, [&] { return copied > j || failed; });
          if (failed) return;
        }
        x.sum(k[pc.msm] + pc.lo, pc.count, slot_at[j % slot_count]);  // returns with the sum on the host
        if (last[pc.msm] == j) timer.end(x.phase);
        std::lock_guard lk(mu);
        summed = j + 1;
        cv.notify_all();
      }
    } catch (...) {
      fail(std::current_exception());
    }
  });
  try {
    for (size_t j = 0; j < order.size(); ++j) {
      {
        std::unique_lock lk(mu);
        cv.wait(lk, [&] { return j < summed + slot_count || failed; });  // the slot's last piece is summed
        if (failed) break;
      }
      const StreamedMsm& x = msms[order[j].msm];
      d.copy_to_device(slot_at[j % slot_count], x.points + order[j].lo * x.point_bytes, order[j].count * x.point_bytes,
                       s, "key points (a piece)");
      std::lock_guard lk(mu);
      copied = j + 1;
      cv.notify_all();
    }
  } catch (...) {
    fail(std::current_exception());
  }
  summer.join();
  if (error) std::rethrow_exception(error);
}

// Between phases the caller may stop the partition (cancellation: it throws).
using Checkpoint = std::function<void(Phase next)>;

// The kernels: a, b, c from the key's rows (unless staged), H, the five MSMs. With `key` null
// (streamed: `chunk` > 0) the rows come from the host a piece at a time, and the MSMs run as one
// pipeline of pieces (streamed_msms). Each phase is timed on `timer` (and on the device's clock,
// into device_ms); `checkpoint` runs before each.
template <class E>
MsmResults<E> kernels(Device& d, const DeviceKey<E>* key, const ProvingKey<E>& pk, Staged<E>& st, size_t chunk,
                      const PhaseTimer& timer, const Checkpoint& checkpoint) {
  using J1 = typename E::G1Jac;
  using J2 = typename E::G2Jac;
  using A1 = typename E::G1Affine;
  using A2 = typename E::G2Affine;
  if (!key && chunk == 0) throw InvalidArgument("a streamed key's MSMs need a piece size (chunk > 0)");
  const size_t n = pk.domain_size, m = pk.n_vars;
  auto& ws = st.ws;
  if (key && ws.layout.count != 0)  // before any work: the set is laid out for another key's MSMs
    throw InvalidArgument("a resident key's kernels need a working set carved for it, not for a streamed key's pieces");
  backend::Stream& s = *st.stream;
  auto at = [&](Phase p) {
    if (checkpoint) checkpoint(p);
  };
  MsmResults<E> r{J1::infinity(), J1::infinity(), J1::infinity(), J1::infinity(), J2::infinity()};
  // The device's clock is a measurement: if it fails, the proof goes on without it (device_ms -1).
  std::unique_ptr<backend::DeviceClock> clock;
  try {
    clock = d.clock(s);
  } catch (const std::exception&) {
  }
  if (clock) r.device_ms = 0;
  auto clocked = [&](const auto& step) {
    try {
      if (clock) step();
    } catch (const std::exception&) {
      clock.reset();
      r.device_ms = -1;
    }
  };
  // Phase p on `timer` and on the device's clock; fn ends with the stream's work done.
  auto phase = [&](Phase p, const auto& fn) {
    timer.time(p, [&] {
      clocked([&] { clock->start(); });
      fn();
      clocked([&] { r.device_ms += clock->stop_ms(); });
    });
  };
  if (!st.abc_staged) {
    at(Phase::Abc);
    phase(Phase::Abc, [&] {
      if (key)
        d.evaluate_abc(E::id, n, key->A, key->B, ws.w, ws.a, ws.b, ws.c, s);
      else
        abc_from_host_rows<E>(d, pk, ws, s);
      d.synchronize(s);
    });
  }
  at(Phase::NttH);
  phase(Phase::NttH, [&] {
    d.compute_h(E::id, pk.log_n, pk.h_form, ws.a, ws.b, ws.c, ws.a, ws.h_scratch, s);  // h, standard form, into a
    d.synchronize(s);
  });

  // An MSM over device bases (the resident key's, with their tables, or a piece of a streamed
  // key's points) and device scalars.
  auto device_cfg = [&](backend::Group g, const Scalar* k, size_t count, const void* dev_bases,
                        backend::TablePlan plan) {
    backend::MsmConfig cfg;
    cfg.curve = E::id, cfg.group = g, cfg.scalars = k, cfg.scalars_at = backend::Where::Device;
    cfg.count = count, cfg.bases = dev_bases, cfg.bases_at = backend::Where::Device;
    if (plan.tables > 1) cfg.window_bits = plan.window_bits, cfg.tables = plan.tables;
    return cfg;
  };
  const uint32_t skip = pk.n_public + 1;
  const Scalar* h = reinterpret_cast<const Scalar*>(ws.a);
  // The scalars of a density-compacted MSM: the witness values of its wires, gathered on the
  // device (the stream orders the gather after the previous MSM, which has returned).
  auto scalars_of = [&](const uint32_t* dev_wires, const std::vector<uint32_t>& wires) -> const Scalar* {
    if (!pk.compact) return ws.w;
    if (!wires.empty()) d.gather(ws.w, dev_wires, wires.size(), ws.gathered, s);
    return ws.gathered;
  };

  if (!key) {
    // Streamed: the five MSMs as one pipeline of pieces, H's spread among the others' (A's
    // pieces all come before B1's, so that B's scalars are gathered over A's once A is summed).
    const StreamSlots<E>& slots = ws.layout;
    if (slots.count == 0 || slots.bytes != StreamSlots<E>(pk, chunk).bytes)
      throw InvalidArgument("a streamed key's kernels need a working set carved for pieces of " +
                            std::to_string(chunk) + " points");
    const Scalar* wb = nullptr;
    auto sum_into = [&](backend::Group g, auto& out) {
      return [&, g](const Scalar* k, size_t count, const void* bases) {
        std::decay_t<decltype(out)> part;
        d.msm(device_cfg(g, k, count, bases, {}), ws.msm_scratch, &part, s);
        out = out + part;
      };
    };
    auto host = [](const auto& v) { return reinterpret_cast<const char*>(v.data()); };
    std::vector<StreamedMsm> msms = {
        {Phase::MsmA, backend::Group::G1, host(pk.a), sizeof(A1), pk.a.size(),
         [&] { return scalars_of(ws.a_wires, pk.a_wires); }, sum_into(backend::Group::G1, r.a)},
        {Phase::MsmB1, backend::Group::G1, host(pk.b1), sizeof(A1), pk.b1.size(),
         [&] { return wb = scalars_of(ws.b_wires, pk.b_wires); }, sum_into(backend::Group::G1, r.b1)},
        {Phase::MsmB2, backend::Group::G2, host(pk.b2), sizeof(A2), pk.b2.size(),
         [&] { return wb ? wb : wb = scalars_of(ws.b_wires, pk.b_wires); }, sum_into(backend::Group::G2, r.b2)},
        {Phase::MsmC, backend::Group::G1, host(pk.c), sizeof(A1), m - skip, [&] { return ws.w + skip; },
         sum_into(backend::Group::G1, r.c)},
        {Phase::MsmH, backend::Group::G1, host(pk.h), sizeof(A1), pk.h.size(), [&] { return h; },
         sum_into(backend::Group::G1, r.h)}};
    clocked([&] { clock->start(); });
    streamed_msms<E>(d, s, slots, ws.slots, msms, timer, at);
    clocked([&] { r.device_ms += clock->stop_ms(); });
    return r;
  }

  auto msm = [&](Phase p, backend::Group g, const void* dev_bases, const Scalar* k, size_t count,
                 backend::TablePlan plan, auto& out) {
    at(p);
    phase(p, [&] {
      if (count == 0) return;  // the sum of nothing (a compacted query with no wire)
      d.msm(device_cfg(g, k, count, dev_bases, plan), ws.msm_scratch, &out, s);
    });
  };
  const KeyTables t = key->tables;
  const Scalar* wa = scalars_of(key->a_wires, pk.a_wires);
  const bool shared = one_call(pk, t);
  if (shared) {
    // One call for A, B1 and C over the whole witness (one classification and sort of it; C's
    // section starts with points at infinity for the inputs), timed as msm_a; msm_b1 and msm_c
    // are then empty phases.
    at(Phase::MsmA);
    phase(Phase::MsmA, [&] {
      backend::MsmConfig cfg = device_cfg(backend::Group::G1, ws.w, m, key->a, t.a);
      cfg.bases2 = key->b1, cfg.bases3 = key->c;
      // The CPU backend writes each further sum 3/2 of an affine point after the one before.
      static_assert(2 * sizeof(J1) == 3 * sizeof(A1), "Jacobian sums, one after the other");
      J1 three[3];
      d.msm(cfg, ws.msm_scratch, three, s);
      r.a = three[0], r.b1 = three[1], r.c = three[2];
    });
    at(Phase::MsmB1);
    phase(Phase::MsmB1, [] {});
  } else {
    msm(Phase::MsmA, backend::Group::G1, key->a, wa, pk.a.size(), t.a, r.a);
  }
  const Scalar* wb = scalars_of(key->b_wires, pk.b_wires);
  if (!shared) msm(Phase::MsmB1, backend::Group::G1, key->b1, wb, pk.b1.size(), t.b1, r.b1);
  msm(Phase::MsmB2, backend::Group::G2, key->b2, wb, pk.b2.size(), t.b2, r.b2);
  if (shared) {
    at(Phase::MsmC);
    phase(Phase::MsmC, [] {});
  } else {
    msm(Phase::MsmC, backend::Group::G1, key->c, ws.w + skip, m - skip, t.c, r.c);
  }
  msm(Phase::MsmH, backend::Group::G1, key->h, h, pk.h.size(), t.h, r.h);
  return r;
}

// One whole proof on one device, without a scheduler (tests, tools): key uploaded, staged,
// kernels, finish. r and s are the blinding scalars (Montgomery form).
template <class E>
Proof<E> prove_on(Device& d, const ProvingKey<E>& pk, const std::vector<Scalar>& w, const typename E::Fr& r,
                  const typename E::Fr& s, PhaseSpans* spans = nullptr) {
  const auto t0 = SteadyClock::now();
  PhaseTimer timer{[t0] { return ms_since(t0); }, spans};
  auto key = DeviceKey<E>::upload(d, pk);
  MsmResults<E> m;
  {
    Staged<E> st = stage<E>(d, pk, w, {}, 0, WorkingSet<E>::bytes_on(d, pk, 0));
    timer.begin(Phase::Kernels);
    m = kernels<E>(d, key.get(), pk, st, 0, timer, nullptr);
    timer.end(Phase::Kernels);
  }
  Proof<E> proof;
  timer.time(Phase::Finish, [&] { proof = finish_proof<E>(pk, m.a, m.b1, m.b2, m.c, m.h, r, s); });
  return proof;
}

}  // namespace cuzk::groth16
