#include "util/files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "util/error.hpp"

namespace cuzk {

void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files) {
  namespace fs = std::filesystem;
  // Refuse what would fail at the rename stage, after other targets were already replaced:
  // empty paths, directories, and the same file named twice.
  std::vector<fs::path> canon;
  for (auto& [path, content] : files) {
    if (path.empty()) throw Error("cannot write an output with an empty path");
    std::error_code ec;
    if (fs::is_directory(path, ec)) throw Error("cannot write " + path + ": it is a directory");
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
      int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
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
      if (std::rename(temps[renamed].c_str(), files[renamed].first.c_str()) != 0)
        throw Error("cannot write " + files[renamed].first + ": " + std::strerror(errno));
    }
  } catch (...) {
    cleanup();
    throw;
  }
}

}  // namespace cuzk
