// SPDX-License-Identifier: MIT OR Apache-2.0
#include "util/error.hpp"

namespace cuzk {

FormatError::FormatError(const std::string& p, const std::string& what) : Error(p + ": " + what), path(p) {}

}  // namespace cuzk
