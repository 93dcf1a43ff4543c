// SPDX-License-Identifier: MIT OR Apache-2.0
// A small strict JSON parser (RFC 8259) into a tree, for the snarkjs files cuzk reads
// (verification_key.json, proof.json, public.json).
//
// Strict: one value, optionally surrounded by whitespace (space, tab, CR, LF) and nothing else;
// no comments, no trailing commas, no byte-order mark, no leading zeros or '+' in numbers, no
// control characters in strings, valid UTF-8 only, escapes \" \\ \/ \b \f \n \r \t \uXXXX with
// surrogate pairs matched, no duplicate keys in an object, nesting at most kMaxDepth deep.
// Numbers are kept as their source text (snarkjs's big integers are strings anyway).
// Errors throw JsonError whose message starts with "line L, column C: " (1-based; the column
// counts bytes).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/error.hpp"

namespace cuzk::io {

struct JsonError : Error {
  JsonError(int line, int column, const std::string& what);
  int line, column;
};

struct Json {
  enum class Type { Null, Bool, Number, String, Array, Object };
  Type type = Type::Null;
  bool boolean = false;
  std::string text;                                  // String: decoded UTF-8; Number: source text
  std::vector<Json> items;                           // Array
  std::vector<std::pair<std::string, Json>> fields;  // Object, in source order
  int line = 0, column = 0;                          // where the value starts

  bool is_null() const { return type == Type::Null; }
  bool is_bool() const { return type == Type::Bool; }
  bool is_number() const { return type == Type::Number; }
  bool is_string() const { return type == Type::String; }
  bool is_array() const { return type == Type::Array; }
  bool is_object() const { return type == Type::Object; }
  // "null", "a boolean", "a number", "a string", "an array", "an object".
  const char* type_name() const;
  // The member named key of an object, or nullptr (also when this is not an object).
  const Json* find(std::string_view key) const;
  // A number that is a non-negative integer without fraction or exponent and fits in 64 bits.
  std::optional<uint64_t> as_u64() const;
};

constexpr int kMaxJsonDepth = 256;

// Parses text; throws JsonError.
Json parse_json(std::string_view text);
// Reads and parses a file; throws FormatError(path, "invalid JSON: line L, column C: ...") on bad
// JSON, and FormatError(path, ...) when the file cannot be read or is larger than max_bytes.
Json parse_json_file(const std::string& path, size_t max_bytes = size_t(1) << 30);

}  // namespace cuzk::io
