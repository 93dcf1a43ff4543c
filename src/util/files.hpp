// Writing results: all files or none.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace cuzk {

// Each file goes to a temporary beside its target and is renamed into place only after every one
// was written (and synced). Throws Error naming the file on any problem; nothing is left behind.
// (Also declared in include/cuzk/prove.hpp for library users.)
void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& path_and_content);

}  // namespace cuzk
