// SPDX-License-Identifier: MIT OR Apache-2.0
// libFuzzer target: Filecoin's proof bytes (decode_proofs) on arbitrary bytes. A proof that
// decodes must re-encode to the same bytes (the encoding is canonical); only cuzk::Error may
// escape. (The records' reader is not here: io/json_parse.cpp does not build with clang 14's
// view of libstdc++ 12, a std::pair of the incomplete Json.)
#include <cstdint>
#include <vector>

#include "filecoin/proof_bytes.hpp"
#include "util/error.hpp"

using namespace cuzk::filecoin;

static void require(bool ok) {
  if (!ok) __builtin_trap();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    std::vector<uint8_t> in(data, data + size);
    auto proofs = decode_proofs(in);
    require(encode_proofs(proofs) == in);
  } catch (const cuzk::Error&) {
  }
  return 0;
}
