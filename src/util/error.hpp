// SPDX-License-Identifier: MIT OR Apache-2.0
#pragma once
#include <stdexcept>
#include <string>

namespace cuzk {

// Every error cuzk reports is a cuzk::Error carrying a message that names what is wrong.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A file that is malformed, truncated, for another curve, or inconsistent with another input.
// The message always starts with the file's path.
struct FormatError : Error {
  FormatError(const std::string& path, const std::string& what);
  std::string path;
};

// Invalid use: bad arguments, unsatisfied witness, mismatched inputs.
struct InvalidArgument : Error {
  using Error::Error;
};

}  // namespace cuzk
