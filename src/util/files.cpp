// SPDX-License-Identifier: MIT OR Apache-2.0
#include "util/files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sys/stat.h>

#include "util/error.hpp"

namespace cuzk {

void check_output_path(const std::string& path) {
  struct stat st {};
  if (path.empty()) throw Error("cannot write an output with an empty path");
  if (::lstat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return;  // missing: created; regular: replaced
  const char* kind = S_ISDIR(st.st_mode)    ? "a directory"
                     : S_ISLNK(st.st_mode)  ? "a symbolic link"
                     : S_ISFIFO(st.st_mode) ? "a FIFO"
                     : S_ISCHR(st.st_mode)  ? "a character device"
                     : S_ISBLK(st.st_mode)  ? "a block device"
                     : S_ISSOCK(st.st_mode) ? "a socket"
                                            : "not a file";
  throw Error("cannot write " + path + ": it is " + kind + ", not a regular file (cuzk writes only regular files)");
}

void check_output_paths(const std::vector<std::string>& paths) {
  for (auto& p : paths) check_output_path(p);
}

std::string output_dir_problem(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    const int e = errno;
    if (e == ENOENT) return "directory " + dir + " does not exist";
    if (e == ENOTDIR) return "a component of " + dir + " is not a directory";
    return "directory " + dir + " cannot be reached: " + std::strerror(e);
  }
  if (!S_ISDIR(st.st_mode)) return dir + " is not a directory";
  const std::string probe = dir + "/.cuzk-probe-" + std::to_string(::getpid());
  int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0 && errno == EEXIST) {  // a probe of this pid left behind by a killed run
    ::unlink(probe.c_str());
    fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  }
  if (fd < 0) return "directory " + dir + " is not writable: " + std::strerror(errno);
  ::close(fd);
  ::unlink(probe.c_str());
  return "";
}

void check_output_dir(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  const std::string problem = output_dir_problem(parent.empty() ? "." : parent.string());
  if (!problem.empty()) throw Error("cannot write " + path + ": " + problem);
}

void check_output_dirs(const std::vector<std::string>& paths) {
  for (auto& p : paths) check_output_dir(p);
}

void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files) {
  namespace fs = std::filesystem;
  // Refuse what would fail at the rename stage, after other targets were already replaced, and
  // what is not a regular file: empty paths, directories, links, devices, FIFOs, and the same
  // file named twice.
  std::vector<fs::path> canon;
  for (auto& [path, content] : files) {
    check_output_path(path);
    std::error_code ec;
    fs::path c = fs::weakly_canonical(fs::absolute(path), ec);
    for (auto& other : canon)
      if (other == c) throw Error("cannot write " + path + ": the same file is named for two outputs");
    canon.push_back(c);
  }
  std::vector<std::string> temps;
  size_t renamed = 0;
  auto cleanup = [&] {
    for (size_t i = renamed; i < temps.size(); ++i) std::remove(temps[i].c_str());
  };
  try {
    for (size_t i = 0; i < files.size(); ++i) {
      const auto& [path, content] = files[i];
      fs::path p(path);
      std::string tmp =
          (p.parent_path().empty() ? fs::path(".") : p.parent_path()) /
          ("." + p.filename().string() + ".cuzk-tmp-" + std::to_string(::getpid()) + "-" + std::to_string(i));
      int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
      if (fd < 0) throw Error("cannot write " + path + ": " + std::strerror(errno));
      temps.push_back(tmp);
      size_t off = 0;
      while (off < content.size()) {
        ssize_t k = ::write(fd, content.data() + off, content.size() - off);
        if (k < 0) {
          if (errno == EINTR) continue;
          int e = errno;
          ::close(fd);
          throw Error("cannot write " + path + ": " + std::strerror(e));
        }
        off += size_t(k);
      }
      int rc = ::fsync(fd);
      int e = errno;
      if (::close(fd) != 0 && rc == 0) {
        rc = -1;
        e = errno;
      }
      if (rc != 0) throw Error("cannot write " + path + ": " + std::strerror(e));
    }
    for (; renamed < files.size(); ++renamed) {
      check_output_path(files[renamed].first);  // again: something may have been put there meanwhile
      if (std::rename(temps[renamed].c_str(), files[renamed].first.c_str()) != 0)
        throw Error("cannot write " + files[renamed].first + ": " + std::strerror(errno));
    }
  } catch (...) {
    cleanup();
    throw;
  }
}

}  // namespace cuzk
