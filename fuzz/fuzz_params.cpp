// SPDX-License-Identifier: MIT OR Apache-2.0
// libFuzzer target: parse_params (bellperson .params / .vk) on arbitrary bytes, with and without
// the subgroup check (the first byte picks). Only cuzk::Error may escape; a crash, a sanitizer
// report, another exception or a broken invariant of the result is a finding.
#include <cstdint>
#include <vector>

#include "filecoin/params.hpp"
#include "util/error.hpp"

using namespace cuzk::filecoin;

static void require(bool ok) {
  if (!ok) __builtin_trap();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static cuzk::ThreadPool pool(2);
  const bool check = data[0] & 1;
  try {
    auto f = parse_params(cuzk::io::FileBytes::from_buffer("fuzz.params", std::vector<uint8_t>(data + 1, data + size)),
                          pool, check);
    uint64_t total = 0;
    for (const PointSection* s : f.sections()) {
      require(s->bytes.size() == size_t(s->count) * s->point_bytes());
      require(s->bytes.data() >= f.file->bytes().data() &&
              s->bytes.data() + s->bytes.size() <= f.file->bytes().data() + f.size());
      total += s->bytes.size();
      for (size_t i = 0; i < s->count && i < 4; ++i) {
        if (s->g2)
          (void)f.g2(*s, i);
        else
          (void)f.g1(*s, i);
      }
    }
    require(total + 4 * (f.is_vk ? 1 : 6) == f.size());
    require(f.ic.count > 0);
  } catch (const cuzk::Error&) {
  }
  return 0;
}
