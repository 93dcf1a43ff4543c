// SPDX-License-Identifier: MIT OR Apache-2.0
// systemd's service notification protocol (sd_notify(3)), without libsystemd: a datagram of
// "KEY=VALUE" lines to the unix socket $NOTIFY_SOCKET names (a path, or '@' for the abstract
// namespace). READY=1 once the daemon serves, STOPPING=1 when it begins to stop, WATCHDOG=1
// every half of $WATCHDOG_USEC while it runs (when $WATCHDOG_PID, if set, is this process).
// Without $NOTIFY_SOCKET nothing is sent.
#pragma once
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace cuzk::daemon {

// Sends `state` ("READY=1\nSTATUS=...") to $NOTIFY_SOCKET; false when there is none or the send
// failed (a notification is best effort: the daemon runs on either way).
bool sd_notify_state(const std::string& state);

// WATCHDOG=1 every half of $WATCHDOG_USEC from a thread of its own, until destroyed.
class Watchdog {
 public:
  Watchdog();
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
  double interval_s() const { return interval_s_; }  // 0: no watchdog asked for

 private:
  double interval_s_ = 0;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace cuzk::daemon
