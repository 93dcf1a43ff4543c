// SPDX-License-Identifier: MIT OR Apache-2.0
#include "daemon/notify.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <sys/socket.h>
#include <sys/un.h>

namespace cuzk::daemon {

bool sd_notify_state(const std::string& state) {
  const char* path = std::getenv("NOTIFY_SOCKET");
  if (!path || !*path) return false;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const size_t n = std::strlen(path);
  if ((path[0] != '/' && path[0] != '@') || n >= sizeof addr.sun_path) return false;
  std::memcpy(addr.sun_path, path, n);
  if (path[0] == '@') addr.sun_path[0] = '\0';  // the abstract namespace
  const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  const socklen_t len = socklen_t(offsetof(sockaddr_un, sun_path) + n);
  const bool ok = ::sendto(fd, state.data(), state.size(), MSG_NOSIGNAL, reinterpret_cast<const sockaddr*>(&addr),
                           len) == ssize_t(state.size());
  ::close(fd);
  return ok;
}

Watchdog::Watchdog() {
  const char* usec = std::getenv("WATCHDOG_USEC");
  if (!usec || !*usec) return;
  if (const char* pid = std::getenv("WATCHDOG_PID"); pid && *pid && std::atol(pid) != long(::getpid())) return;
  const double us = std::atof(usec);
  if (!(us > 0)) return;
  interval_s_ = us / 2e6;
  thread_ = std::thread([this] {
    std::unique_lock lk(mu_);
    while (!stop_) {
      sd_notify_state("WATCHDOG=1");
      cv_.wait_for(lk, std::chrono::duration<double>(interval_s_), [this] { return stop_; });
    }
  });
}

Watchdog::~Watchdog() {
  {
    std::lock_guard lk(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace cuzk::daemon
