// SPDX-License-Identifier: MIT OR Apache-2.0
// UTF-8 encoding and lenient decoding, shared by the JSON writer and parser and the SVG writer.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace cuzk::utf8 {

inline void put(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(char(cp));
  } else if (cp < 0x800) {
    out.push_back(char(0xC0 | (cp >> 6)));
    out.push_back(char(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(char(0xE0 | (cp >> 12)));
    out.push_back(char(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(char(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(char(0xF0 | (cp >> 18)));
    out.push_back(char(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(char(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(char(0x80 | (cp & 0x3F)));
  }
}

// Decodes s and calls f(code point) for each character; a byte that does not start a valid,
// shortest-form sequence (no surrogates, at most U+10FFFF) is reported as U+FFFD.
template <class F>
void for_each_code_point(std::string_view s, F&& f) {
  size_t i = 0;
  while (i < s.size()) {
    const auto b0 = uint8_t(s[i]);
    int len = 0;
    uint32_t cp = 0, min = 0;
    if (b0 < 0x80)
      len = 1, cp = b0;
    else if ((b0 & 0xE0) == 0xC0)
      len = 2, cp = b0 & 0x1F, min = 0x80;
    else if ((b0 & 0xF0) == 0xE0)
      len = 3, cp = b0 & 0x0F, min = 0x800;
    else if ((b0 & 0xF8) == 0xF0)
      len = 4, cp = b0 & 0x07, min = 0x10000;
    bool ok = len > 0 && i + len <= s.size();
    for (int k = 1; ok && k < len; ++k) {
      const auto b = uint8_t(s[i + k]);
      if ((b & 0xC0) != 0x80)
        ok = false;
      else
        cp = (cp << 6) | (b & 0x3F);
    }
    if (ok && len > 1 && (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))) ok = false;
    if (!ok) {
      f(0xFFFDu);
      ++i;
    } else {
      f(cp);
      i += size_t(len);
    }
  }
}

}  // namespace cuzk::utf8
