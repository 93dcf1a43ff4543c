// SPDX-License-Identifier: MIT OR Apache-2.0
// What every C interface of include/cuzk shares (cuzk_status.h): a failure that carries its
// status, messages into the caller's buffer, and `guarded`, which keeps every exception inside.
#pragma once
#include <algorithm>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

#include "cuzk/cuzk_status.h"

namespace cuzk::api {

// A failure with its status: what the checks of a C entry point throw.
struct Failure : std::runtime_error {
  int status;
  Failure(int st, const std::string& what) : std::runtime_error(what), status(st) {}
};

// `msg` into err (at most len - 1 bytes, NUL-terminated); nothing when err is NULL or len 0.
inline void put_message(char* err, size_t len, const char* msg) noexcept {
  if (!err || len == 0) return;
  const size_t n = std::min(std::strlen(msg), len - 1);
  std::memcpy(err, msg, n);
  err[n] = '\0';
}

// Runs `f`, turning every exception into a status and a message (cuzk_status.h).
template <class F>
int guarded(char* err, size_t err_len, F&& f) noexcept {
  try {
    f();
    put_message(err, err_len, "");
    return CUZK_OK;
  } catch (const Failure& e) {
    put_message(err, err_len, e.what());
    return e.status;
  } catch (const std::bad_alloc&) {
    put_message(err, err_len, "out of host memory");
    return CUZK_ERR_MEMORY;
  } catch (const std::exception& e) {
    put_message(err, err_len, e.what());
    return CUZK_ERR_INTERNAL;
  } catch (...) {
    put_message(err, err_len, "unknown exception");
    return CUZK_ERR_INTERNAL;
  }
}

}  // namespace cuzk::api
