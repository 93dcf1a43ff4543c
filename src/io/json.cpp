// SPDX-License-Identifier: MIT OR Apache-2.0
#include "io/json.hpp"

#include <algorithm>

#include "util/utf8.hpp"

namespace cuzk::io {

std::string to_decimal(const uint64_t* limbs, int n) {
  std::vector<uint64_t> x(limbs, limbs + n);
  std::string out;
  auto is_zero = [&] { return std::all_of(x.begin(), x.end(), [](uint64_t v) { return v == 0; }); };
  if (is_zero()) return "0";
  const uint64_t base = 10000000000000000000ull;  // 10^19
  while (!is_zero()) {
    unsigned __int128 rem = 0;
    for (int i = n - 1; i >= 0; --i) {
      unsigned __int128 cur = (rem << 64) | x[i];
      x[i] = uint64_t(cur / base);
      rem = cur % base;
    }
    uint64_t r = uint64_t(rem);
    for (int d = 0; d < 19; ++d) {
      out.push_back(char('0' + r % 10));
      r /= 10;
      if (r == 0 && is_zero()) break;
    }
  }
  while (out.size() > 1 && out.back() == '0') out.pop_back();
  std::reverse(out.begin(), out.end());
  return out;
}

static void emit(const JsonValue& v, int depth, std::string& out) {
  auto indent = [&](int d) { out.append(size_t(d), ' '); };
  auto quote = [&](const std::string& s) {
    out.push_back('"');
    utf8::for_each_code_point(s, [&](uint32_t cp) {
      switch (cp) {
        case '"':
          out += "\\\"";
          break;
        case '\\':
          out += "\\\\";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        case '\b':
          out += "\\b";
          break;
        case '\f':
          out += "\\f";
          break;
        default:
          if (cp < 0x20) {
            static const char hex[] = "0123456789abcdef";
            out += "\\u00";
            out.push_back(hex[cp >> 4]);
            out.push_back(hex[cp & 15]);
          } else {
            utf8::put(out, cp);
          }
      }
    });
    out.push_back('"');
  };
  switch (v.kind) {
    case JsonValue::String:
      quote(v.str);
      break;
    case JsonValue::Number:
    case JsonValue::Bool:
      out += v.str;
      break;
    case JsonValue::Array:
      if (v.items.empty()) {
        out += "[]";
        break;
      }
      out += "[\n";
      for (size_t i = 0; i < v.items.size(); ++i) {
        indent(depth + 1);
        emit(v.items[i], depth + 1, out);
        if (i + 1 < v.items.size()) out.push_back(',');
        out.push_back('\n');
      }
      indent(depth);
      out.push_back(']');
      break;
    case JsonValue::Object:
      if (v.fields.empty()) {
        out += "{}";
        break;
      }
      out += "{\n";
      for (size_t i = 0; i < v.fields.size(); ++i) {
        indent(depth + 1);
        quote(v.fields[i].first);
        out += ": ";
        emit(v.fields[i].second, depth + 1, out);
        if (i + 1 < v.fields.size()) out.push_back(',');
        out.push_back('\n');
      }
      indent(depth);
      out.push_back('}');
      break;
  }
}

std::string to_json(const JsonValue& v) {
  std::string out;
  emit(v, 0, out);
  return out;
}

}  // namespace cuzk::io
