// SPDX-License-Identifier: MIT OR Apache-2.0
// Writers of the snarkjs binary formats (.r1cs, .wtns, .zkey) for generated circuits and keys,
// streamed to disk: a file is written to a temporary beside its target and renamed into place
// only when complete, so a failed or interrupted write leaves nothing behind.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "backend/cpu/msm.hpp"
#include "groth16/key.hpp"
#include "io/zkey.hpp"
#include "r1cs/rows.hpp"

namespace cuzk::setup {

using io::kInsecureSection;

// A binary file of sections: u8 magic[4]; u32 version; u32 nSections; { u32 id; u64 size; data }.
class SectionWriter {
 public:
  SectionWriter(const std::string& path, const char magic[4], uint32_t version, uint32_t n_sections);
  ~SectionWriter();
  SectionWriter(const SectionWriter&) = delete;
  SectionWriter& operator=(const SectionWriter&) = delete;

  void begin(uint32_t id);  // the size is patched in end()
  void end();
  void bytes(const void* p, size_t n);
  void u32(uint32_t v) { bytes(&v, 4); }
  void u64(uint64_t v) { bytes(&v, 8); }
  template <class T, class A>
  void vec(const std::vector<T, A>& v) {
    if (!v.empty()) bytes(v.data(), v.size() * sizeof(T));
  }
  // Flushes, syncs and renames the temporary into place.
  void commit();

 private:
  void fail(const std::string& what);
  std::string path_, tmp_;
  FILE* f_ = nullptr;
  long long section_start_ = -1;
  uint32_t sections_left_ = 0;
  bool committed_ = false;
};

template <class F>
void put_modulus(SectionWriter& w) {
  constexpr auto k = F::K;
  w.bytes(k.p.v, sizeof k.p.v);
}

// .r1cs version 1: header, constraints (standard-form coefficients), identity wire labels.
template <class Fr>
void write_r1cs(const std::string& path, const r1cs::RowSource<Fr>& src) {
  SectionWriter w(path, "r1cs", 1, 3);
  w.begin(1);
  w.u32(32);
  put_modulus<Fr>(w);
  w.u32(src.n_wires);
  w.u32(src.n_pub_out);
  w.u32(src.n_pub_in);
  w.u32(src.n_prv_in);
  w.u64(src.n_wires);
  w.u32(uint32_t(src.n_rows));
  w.end();
  w.begin(2);
  r1cs::Row<Fr> row;
  std::vector<uint8_t> buf;
  for (size_t i = 0; i < src.n_rows; ++i) {
    src.row(i, row);
    buf.clear();
    for (const r1cs::LinComb<Fr>* lc : {&row.a, &row.b, &row.c}) {
      uint32_t nt = uint32_t(lc->size());
      buf.insert(buf.end(), reinterpret_cast<uint8_t*>(&nt), reinterpret_cast<uint8_t*>(&nt) + 4);
      for (size_t k = 0; k < lc->size(); ++k) {
        uint32_t wi = lc->wire[k];
        auto c = lc->coef[k].to_std();
        buf.insert(buf.end(), reinterpret_cast<uint8_t*>(&wi), reinterpret_cast<uint8_t*>(&wi) + 4);
        buf.insert(buf.end(), reinterpret_cast<uint8_t*>(c.v), reinterpret_cast<uint8_t*>(c.v) + 32);
      }
    }
    w.bytes(buf.data(), buf.size());
  }
  w.end();
  w.begin(3);
  for (uint64_t i = 0; i < src.n_wires; ++i) w.u64(i);
  w.end();
  w.commit();
}

// .wtns version 2: standard-form values.
template <class Fr>
void write_wtns(const std::string& path, const std::vector<cpu::Scalar>& wit) {
  SectionWriter w(path, "wtns", 2, 2);
  w.begin(1);
  w.u32(32);
  put_modulus<Fr>(w);
  w.u32(uint32_t(wit.size()));
  w.end();
  w.begin(2);
  w.vec(wit);
  w.end();
  w.commit();
}

// .zkey (Groth16), sections 1..10 in order, plus the insecure marker when `insecure_note` is set.
// Section 10 has no contributions (the toxic waste is not from a ceremony).
template <class E>
void write_zkey(const std::string& path, const groth16::ProvingKey<E>& pk, const std::string& insecure_note) {
  using Fr = typename E::Fr;
  SectionWriter w(path, "zkey", 1, insecure_note.empty() ? 10 : 11);
  w.begin(1);
  w.u32(1);
  w.end();
  w.begin(2);
  w.u32(uint32_t(E::fq_bytes));
  put_modulus<typename E::Fq>(w);
  w.u32(32);
  put_modulus<Fr>(w);
  w.u32(pk.n_vars);
  w.u32(pk.n_public);
  w.u32(pk.domain_size);
  w.bytes(&pk.alpha1, sizeof pk.alpha1);
  w.bytes(&pk.beta1, sizeof pk.beta1);
  w.bytes(&pk.beta2, sizeof pk.beta2);
  w.bytes(&pk.gamma2, sizeof pk.gamma2);
  w.bytes(&pk.delta1, sizeof pk.delta1);
  w.bytes(&pk.delta2, sizeof pk.delta2);
  w.end();
  w.begin(3);
  w.vec(pk.ic);
  w.end();
  w.begin(4);
  w.u32(uint32_t(pk.A.col.size() + pk.B.col.size()));
  for (uint32_t mat = 0; mat < 2; ++mat) {
    const groth16::Csr<Fr>& M = mat == 0 ? pk.A : pk.B;
    std::vector<uint8_t> buf;
    for (uint32_t i = 0; i + 1 < M.row_ptr.size(); ++i) {
      buf.clear();
      for (uint32_t k = M.row_ptr[i]; k < M.row_ptr[i + 1]; ++k) {
        uint32_t hdr[3] = {mat, i, M.col[k]};
        buf.insert(buf.end(), reinterpret_cast<uint8_t*>(hdr), reinterpret_cast<uint8_t*>(hdr) + 12);
        buf.insert(buf.end(), reinterpret_cast<const uint8_t*>(M.value(k).l),
                   reinterpret_cast<const uint8_t*>(M.value(k).l) + 32);
      }
      if (!buf.empty()) w.bytes(buf.data(), buf.size());
    }
  }
  w.end();
  w.begin(5);
  w.vec(pk.a);
  w.end();
  w.begin(6);
  w.vec(pk.b1);
  w.end();
  w.begin(7);
  w.vec(pk.b2);
  w.end();
  w.begin(8);
  w.vec(pk.c);
  w.end();
  w.begin(9);
  w.vec(pk.h);
  w.end();
  w.begin(10);
  std::vector<uint8_t> cs_hash(64, 0);
  w.vec(cs_hash);
  w.u32(0);
  w.end();
  if (!insecure_note.empty()) {
    w.begin(kInsecureSection);
    w.bytes(insecure_note.data(), insecure_note.size());
    w.end();
  }
  w.commit();
}

}  // namespace cuzk::setup
