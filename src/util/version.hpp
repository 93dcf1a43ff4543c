// SPDX-License-Identifier: MIT OR Apache-2.0
// The build's identity (defined in the generated version.cpp; also declared in
// include/cuzk/prove.hpp for library users).
#pragma once

namespace cuzk {

const char* version_string();
const char* git_commit();          // short hash, "-dirty" appended when the tree had changes
const char* cuda_architectures();  // e.g. "90", or "none"

}  // namespace cuzk
