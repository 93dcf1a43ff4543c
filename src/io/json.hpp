// SPDX-License-Identifier: MIT OR Apache-2.0
// Output in snarkjs's formats: decimal strings of standard-form coordinates, proof.json and
// public.json laid out as `snarkjs groth16 prove` writes them (JSON.stringify(x, null, 1)).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace cuzk::io {

// Decimal string of a little-endian multi-limb integer.
std::string to_decimal(const uint64_t* limbs, int n);

// A JSON value tree: strings, numbers, booleans, arrays and objects.
struct JsonValue {
  enum Kind { String, Number, Bool, Array, Object } kind = String;
  std::string str;
  std::vector<JsonValue> items;                           // Array
  std::vector<std::pair<std::string, JsonValue>> fields;  // Object, in insertion order

  static JsonValue string(std::string s) {
    JsonValue v;
    v.kind = String;
    v.str = std::move(s);
    return v;
  }
  // A number, written as given (the caller formats it).
  static JsonValue number(std::string s) {
    JsonValue v;
    v.kind = Number;
    v.str = std::move(s);
    return v;
  }
  static JsonValue boolean(bool b) {
    JsonValue v;
    v.kind = Bool;
    v.str = b ? "true" : "false";
    return v;
  }
  static JsonValue array(std::vector<JsonValue> xs = {}) {
    JsonValue v;
    v.kind = Array;
    v.items = std::move(xs);
    return v;
  }
  static JsonValue object() {
    JsonValue v;
    v.kind = Object;
    return v;
  }
  JsonValue& add(std::string key, JsonValue v) {
    fields.emplace_back(std::move(key), std::move(v));
    return *this;
  }
};

// JSON.stringify(value, null, 1): one space of indentation per level, no trailing newline.
// Strings are escaped as RFC 8259 requires (quote, backslash, control characters); bytes that
// are not valid UTF-8 are written as U+FFFD, so the output is always valid JSON.
std::string to_json(const JsonValue& v);

}  // namespace cuzk::io
