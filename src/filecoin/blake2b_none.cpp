// A build without OpenSSL's libcrypto has no BLAKE2b-512 (cuzk writes no BLAKE2b of its own).
#include "filecoin/manifest.hpp"
#include "util/error.hpp"

namespace cuzk::filecoin {

namespace {
[[noreturn]] void unavailable() {
  throw Error(
      "BLAKE2b-512 is not in this build: cuzk takes it from OpenSSL's libcrypto (Debian: libssl-dev), which "
      "was not found when it was built");
}
}  // namespace

bool have_blake2b() { return false; }
std::string blake2b_512_hex(const std::string&) { unavailable(); }
std::string blake2b_512_hex_file(const std::string&) { unavailable(); }

}  // namespace cuzk::filecoin
