// SPDX-License-Identifier: MIT OR Apache-2.0
// Writing results: all files or none, and only regular files.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace cuzk {

// Refuses (Error naming the path) an output path that exists and is not a regular file: a
// directory, a device, a FIFO, a socket, or a symbolic link (whatever it points to). cuzk puts
// its outputs in place by renaming a temporary over the target, which would replace any of these
// (as root, /dev/full or /dev/null themselves). A path that does not exist yet is fine.
void check_output_path(const std::string& path);
void check_output_paths(const std::vector<std::string>& paths);

// Refuses (Error naming the output and its directory) an output whose directory does not exist,
// is not a directory, or does not take a new file: a probe file is created there and removed,
// which also catches what permission bits do not tell (a read-only filesystem, root on /sys).
// Called before the work, so that a proof is not computed only to be lost.
void check_output_dir(const std::string& path);
// What is wrong with `dir` as a place for new files ("directory D does not exist", "D is not a
// directory", "directory D is not writable: ..."), or "" when nothing is.
std::string output_dir_problem(const std::string& dir);
void check_output_dirs(const std::vector<std::string>& paths);

// Each file goes to a temporary beside its target and is renamed into place only after every one
// was written (and synced). Throws Error naming the file on any problem (check_output_path's
// included, before anything is written); nothing is left behind.
// (Also declared in include/cuzk/prove.hpp for library users.)
void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& path_and_content);

}  // namespace cuzk
