// SPDX-License-Identifier: MIT OR Apache-2.0
#include "io/json_parse.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "util/utf8.hpp"

namespace cuzk::io {

JsonError::JsonError(int l, int c, const std::string& what)
    : Error("line " + std::to_string(l) + ", column " + std::to_string(c) + ": " + what), line(l), column(c) {}

const char* Json::type_name() const {
  switch (type) {
    case Type::Null:
      return "null";
    case Type::Bool:
      return "a boolean";
    case Type::Number:
      return "a number";
    case Type::String:
      return "a string";
    case Type::Array:
      return "an array";
    case Type::Object:
      return "an object";
  }
  return "?";
}

const Json* Json::find(std::string_view key) const {
  if (type != Type::Object) return nullptr;
  for (const auto& [k, v] : fields)
    if (k == key) return &v;
  return nullptr;
}

std::optional<uint64_t> Json::as_u64() const {
  if (type != Type::Number || text.empty() || text.size() > 20) return std::nullopt;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    uint64_t d = uint64_t(c - '0');
    if (v > (UINT64_MAX - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  return v;
}

namespace {

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  Json parse_document() {
    if (s_.size() >= 3 && uint8_t(s_[0]) == 0xEF && uint8_t(s_[1]) == 0xBB && uint8_t(s_[2]) == 0xBF)
      fail("byte-order mark before the JSON value (not allowed)");
    skip_ws();
    if (at_end()) fail("empty input: expected a JSON value");
    Json v = parse_value(0);
    skip_ws();
    if (!at_end()) fail(std::string("unexpected ") + describe(peek()) + " after the JSON value");
    return v;
  }

 private:
  std::string_view s_;
  size_t pos_ = 0;
  int line_ = 1;
  size_t line_start_ = 0;

  bool at_end() const { return pos_ >= s_.size(); }
  char peek() const { return s_[pos_]; }
  int column() const { return int(pos_ - line_start_) + 1; }

  [[noreturn]] void fail(const std::string& what) const { throw JsonError(line_, column(), what); }
  [[noreturn]] void fail_at(int line, int col, const std::string& what) const { throw JsonError(line, col, what); }

  static std::string describe(char c) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) return std::string("character '") + c + "'";
    char buf[16];
    std::snprintf(buf, sizeof buf, "byte 0x%02x", u);
    return buf;
  }

  void advance() {
    if (s_[pos_] == '\n') {
      ++line_;
      line_start_ = pos_ + 1;
    }
    ++pos_;
  }

  void skip_ws() {
    while (!at_end()) {
      char c = peek();
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
        advance();
      else
        break;
    }
  }

  void expect_literal(const char* lit, const char* name) {
    size_t n = std::strlen(lit);
    if (s_.substr(pos_, n) != lit) fail(std::string("invalid literal (expected '") + name + "')");
    for (size_t i = 0; i < n; ++i) advance();
  }

  Json parse_value(int depth) {
    if (depth > kMaxJsonDepth) fail("nesting deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    if (at_end()) fail("unexpected end of input: expected a value");
    Json v;
    v.line = line_;
    v.column = column();
    char c = peek();
    switch (c) {
      case '{':
        parse_object(v, depth);
        break;
      case '[':
        parse_array(v, depth);
        break;
      case '"':
        v.type = Json::Type::String;
        v.text = parse_string();
        break;
      case 't':
        expect_literal("true", "true");
        v.type = Json::Type::Bool;
        v.boolean = true;
        break;
      case 'f':
        expect_literal("false", "false");
        v.type = Json::Type::Bool;
        v.boolean = false;
        break;
      case 'n':
        expect_literal("null", "null");
        v.type = Json::Type::Null;
        break;
      default:
        if (c == '-' || (c >= '0' && c <= '9')) {
          v.type = Json::Type::Number;
          v.text = parse_number();
        } else {
          fail(std::string("unexpected ") + describe(c) + ": expected a value");
        }
    }
    return v;
  }

  void parse_object(Json& v, int depth) {
    v.type = Json::Type::Object;
    advance();  // '{'
    skip_ws();
    if (!at_end() && peek() == '}') {
      advance();
      return;
    }
    for (;;) {
      skip_ws();
      if (at_end()) fail("unexpected end of input in an object");
      if (peek() != '"') fail(std::string("unexpected ") + describe(peek()) + ": expected a string key");
      int kl = line_, kc = column();
      std::string key = parse_string();
      for (const auto& f : v.fields)
        if (f.first == key) fail_at(kl, kc, "duplicate key \"" + key + "\"");
      skip_ws();
      if (at_end()) fail("unexpected end of input: expected ':'");
      if (peek() != ':') fail(std::string("unexpected ") + describe(peek()) + ": expected ':'");
      advance();
      skip_ws();
      Json val = parse_value(depth + 1);
      v.fields.emplace_back(std::move(key), std::move(val));
      skip_ws();
      if (at_end()) fail("unexpected end of input: expected ',' or '}'");
      char c = peek();
      if (c == ',') {
        advance();
        skip_ws();
        if (!at_end() && peek() == '}') fail("trailing comma before '}'");
        continue;
      }
      if (c == '}') {
        advance();
        return;
      }
      fail(std::string("unexpected ") + describe(c) + ": expected ',' or '}'");
    }
  }

  void parse_array(Json& v, int depth) {
    v.type = Json::Type::Array;
    advance();  // '['
    skip_ws();
    if (!at_end() && peek() == ']') {
      advance();
      return;
    }
    for (;;) {
      skip_ws();
      v.items.push_back(parse_value(depth + 1));
      skip_ws();
      if (at_end()) fail("unexpected end of input: expected ',' or ']'");
      char c = peek();
      if (c == ',') {
        advance();
        skip_ws();
        if (!at_end() && peek() == ']') fail("trailing comma before ']'");
        continue;
      }
      if (c == ']') {
        advance();
        return;
      }
      fail(std::string("unexpected ") + describe(c) + ": expected ',' or ']'");
    }
  }

  std::string parse_number() {
    size_t start = pos_;
    auto digit = [&] { return !at_end() && peek() >= '0' && peek() <= '9'; };
    if (peek() == '-') advance();
    if (!digit()) fail("invalid number: expected a digit");
    if (peek() == '0') {
      advance();
      if (digit()) fail("invalid number: leading zero");
    } else {
      while (digit()) advance();
    }
    if (!at_end() && peek() == '.') {
      advance();
      if (!digit()) fail("invalid number: expected a digit after '.'");
      while (digit()) advance();
    }
    if (!at_end() && (peek() == 'e' || peek() == 'E')) {
      advance();
      if (!at_end() && (peek() == '+' || peek() == '-')) advance();
      if (!digit()) fail("invalid number: expected a digit in the exponent");
      while (digit()) advance();
    }
    return std::string(s_.substr(start, pos_ - start));
  }

  static void put_utf8(std::string& out, uint32_t cp) { utf8::put(out, cp); }

  uint32_t parse_hex4() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      if (at_end()) fail("unexpected end of input in a \\u escape");
      char c = peek();
      uint32_t d;
      if (c >= '0' && c <= '9')
        d = uint32_t(c - '0');
      else if (c >= 'a' && c <= 'f')
        d = uint32_t(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        d = uint32_t(c - 'A' + 10);
      else
        fail(std::string("invalid \\u escape: ") + describe(c) + " is not a hex digit");
      v = v * 16 + d;
      advance();
    }
    return v;
  }

  // One UTF-8 encoded code point starting at pos_ (first byte >= 0x80), copied to out.
  void copy_utf8(std::string& out) {
    const unsigned char b0 = static_cast<unsigned char>(peek());
    int len;
    uint32_t cp, min;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
      len = 2;
      cp = b0 & 0x1F;
      min = 0x80;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
      len = 3;
      cp = b0 & 0x0F;
      min = 0x800;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
      len = 4;
      cp = b0 & 0x07;
      min = 0x10000;
    } else
      fail("invalid UTF-8 in a string");
    if (pos_ + size_t(len) > s_.size()) fail("truncated UTF-8 sequence in a string");
    for (int i = 1; i < len; ++i) {
      unsigned char b = static_cast<unsigned char>(s_[pos_ + size_t(i)]);
      if ((b & 0xC0) != 0x80) fail("invalid UTF-8 in a string");
      cp = (cp << 6) | (b & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) fail("invalid UTF-8 in a string");
    out.append(s_.substr(pos_, size_t(len)));
    pos_ += size_t(len);  // no newline inside
  }

  std::string parse_string() {
    advance();  // opening quote
    std::string out;
    for (;;) {
      if (at_end()) fail("unterminated string");
      char c = peek();
      unsigned char u = static_cast<unsigned char>(c);
      if (c == '"') {
        advance();
        return out;
      }
      if (u < 0x20) fail(std::string("unescaped control ") + describe(c) + " in a string");
      if (u >= 0x80) {
        copy_utf8(out);
        continue;
      }
      if (c != '\\') {
        out.push_back(c);
        advance();
        continue;
      }
      advance();  // backslash
      if (at_end()) fail("unterminated escape in a string");
      char e = peek();
      switch (e) {
        case '"':
          out.push_back('"');
          advance();
          break;
        case '\\':
          out.push_back('\\');
          advance();
          break;
        case '/':
          out.push_back('/');
          advance();
          break;
        case 'b':
          out.push_back('\b');
          advance();
          break;
        case 'f':
          out.push_back('\f');
          advance();
          break;
        case 'n':
          out.push_back('\n');
          advance();
          break;
        case 'r':
          out.push_back('\r');
          advance();
          break;
        case 't':
          out.push_back('\t');
          advance();
          break;
        case 'u': {
          advance();
          uint32_t cp = parse_hex4();
          if (cp >= 0xDC00 && cp <= 0xDFFF) fail("unpaired low surrogate in a \\u escape");
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (s_.substr(pos_, 2) != "\\u") fail("high surrogate not followed by a \\u low surrogate");
            advance();
            advance();
            uint32_t lo = parse_hex4();
            if (lo < 0xDC00 || lo > 0xDFFF) fail("high surrogate not followed by a low surrogate");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          put_utf8(out, cp);
          break;
        }
        default:
          fail(std::string("invalid escape '\\") +
               (static_cast<unsigned char>(e) >= 0x20 && static_cast<unsigned char>(e) < 0x7f ? std::string(1, e)
                                                                                              : describe(e)) +
               "'");
      }
    }
  }
};

}  // namespace

Json parse_json(std::string_view text) { return Parser(text).parse_document(); }

Json parse_json_file(const std::string& path, size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FormatError(path, std::string("cannot open: ") + std::strerror(errno));
  std::string data;
  char buf[1 << 16];
  while (in) {
    in.read(buf, sizeof buf);
    data.append(buf, size_t(in.gcount()));
    if (data.size() > max_bytes)
      throw FormatError(path, "larger than " + std::to_string(max_bytes) + " bytes; not a snarkjs JSON file");
  }
  if (in.bad()) throw FormatError(path, "read error");
  try {
    return parse_json(data);
  } catch (const JsonError& e) {
    throw FormatError(path, std::string("invalid JSON: ") + e.what());
  }
}

}  // namespace cuzk::io
