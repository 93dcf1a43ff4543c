// SPDX-License-Identifier: MIT OR Apache-2.0
// Small string helpers shared by the parsers of the command line, the config and device specs.
#pragma once
#include <cctype>
#include <string>
#include <vector>

namespace cuzk {

// "a,b,,c" split at `sep`: {"a", "b", "", "c"} (empty items kept; the caller decides).
inline std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t b = 0;
  for (;;) {
    size_t e = s.find(sep, b);
    out.push_back(s.substr(b, e == std::string::npos ? std::string::npos : e - b));
    if (e == std::string::npos) return out;
    b = e + 1;
  }
}

// {"a", "b"} joined with `sep`: "a b" (split's inverse).
inline std::string join(const std::vector<std::string>& items, char sep) {
  std::string s;
  for (size_t i = 0; i < items.size(); ++i) (i ? s += sep : s) += items[i];
  return s;
}

inline std::string to_lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

inline bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

}  // namespace cuzk
