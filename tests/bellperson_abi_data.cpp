// SPDX-License-Identifier: MIT OR Apache-2.0
// Test data for the bellperson C ABI (tests/bellperson_abi_test.c): what bellperson's synthesis
// would leave for a circuit given as .r1cs + .wtns, written as one raw file that a C program
// reads with fread. Every value is Fr in Montgomery form (blstrs' Scalar in memory), 32 bytes.
//
//   bellperson_abi_data CIRCUIT.r1cs WITNESS.wtns SEED OUT
//
// OUT: u64 n_rows, n_inputs, n_aux (little-endian) | a, b, c (n_rows values each: the
// constraints, then one row per input with a = input, b = c = 0, as bellperson appends them) |
// inputs (n_inputs values, ONE first) | aux (n_aux) | a_aux_density, b_input_density,
// b_aux_density (u64 words, bit i = word i/64 bit i%64; n_aux, n_inputs, n_aux bits) | r | s.
// The densities come from the .r1cs columns (a wire is in A if its A column has a non-zero
// coefficient); r, s are the first two draws of RandomSource(SEED), the r, s of
// `cuzk prove ... --seed SEED`.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "ec/curves.hpp"
#include "io/r1cs.hpp"
#include "io/wtns.hpp"
#include "r1cs/rows.hpp"
#include "util/rng.hpp"

using namespace cuzk;
using Fr = ec::Bls12381::Fr;

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: bellperson_abi_data CIRCUIT.r1cs WITNESS.wtns SEED OUT\n");
    return 2;
  }
  try {
    io::R1cs cs = io::read_r1cs(argv[1]);
    io::Wtns wt = io::read_wtns(argv[2]);
    const r1cs::RowSource<Fr> src = r1cs::rows_of<Fr>(cs);
    if (wt.n_witness != src.n_wires) throw std::runtime_error("the witness does not fit the circuit");
    const uint64_t n_inputs = src.n_public() + 1, n_aux = src.n_wires - n_inputs, n_rows = src.n_rows + n_inputs;
    std::vector<Fr> w(src.n_wires);
    for (size_t j = 0; j < w.size(); ++j) {
      ff::Limbs<4> x;
      std::memcpy(x.v, wt.values.data() + j * 32, 32);
      w[j] = Fr::from_std(x);
    }
    std::vector<Fr> a(n_rows, Fr::zero()), b(n_rows, Fr::zero()), c(n_rows, Fr::zero());
    std::vector<uint64_t> a_aux((n_aux + 63) / 64), b_inp((n_inputs + 63) / 64), b_aux((n_aux + 63) / 64);
    auto set = [](std::vector<uint64_t>& v, size_t i) { v[i / 64] |= uint64_t(1) << (i % 64); };
    r1cs::Row<Fr> row;
    for (size_t i = 0; i < src.n_rows; ++i) {
      src.row(i, row);
      auto dot = [&](const r1cs::LinComb<Fr>& lc, std::vector<uint64_t>* inp, std::vector<uint64_t>* aux) {
        Fr s = Fr::zero();
        for (size_t k = 0; k < lc.size(); ++k) {
          s += lc.coef[k] * w[lc.wire[k]];
          if (lc.coef[k].is_zero()) continue;
          if (lc.wire[k] >= n_inputs)
            set(*aux, lc.wire[k] - n_inputs);
          else if (inp)
            set(*inp, lc.wire[k]);
        }
        return s;
      };
      a[i] = dot(row.a, nullptr, &a_aux);
      b[i] = dot(row.b, &b_inp, &b_aux);
      Fr ci = Fr::zero();
      for (size_t k = 0; k < row.c.size(); ++k) ci += row.c.coef[k] * w[row.c.wire[k]];
      c[i] = ci;
    }
    for (size_t j = 0; j < n_inputs; ++j) a[src.n_rows + j] = w[j];
    RandomSource rs(std::stoull(argv[3]));
    const Fr r = random_field<Fr>(rs), s = random_field<Fr>(rs);

    FILE* f = std::fopen(argv[4], "wb");
    if (!f) throw std::runtime_error(std::string("cannot write ") + argv[4]);
    auto put = [&](const void* p, size_t n) {
      if (n && std::fwrite(p, 1, n, f) != n) throw std::runtime_error("short write");
    };
    const uint64_t head[3] = {n_rows, n_inputs, n_aux};
    put(head, sizeof head);
    put(a.data(), n_rows * 32), put(b.data(), n_rows * 32), put(c.data(), n_rows * 32);
    put(w.data(), n_inputs * 32), put(w.data() + n_inputs, n_aux * 32);
    put(a_aux.data(), a_aux.size() * 8), put(b_inp.data(), b_inp.size() * 8), put(b_aux.data(), b_aux.size() * 8);
    put(&r, 32), put(&s, 32);
    if (std::fclose(f) != 0) throw std::runtime_error("cannot close the output");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bellperson_abi_data: %s\n", e.what());
    return 1;
  }
  return 0;
}
