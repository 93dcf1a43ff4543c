// BLAKE2b-512 through OpenSSL's libcrypto (EVP_blake2b512, RFC 7693 with a 64-byte digest and no
// key, as blake2b_simd's default Params that rust-fil-proofs uses).
#include <cstdio>
#include <memory>
#include <openssl/evp.h>
#include <vector>

#include "filecoin/manifest.hpp"
#include "filecoin/sha256.hpp"
#include "util/error.hpp"

namespace cuzk::filecoin {

namespace {

struct Blake2b {
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx{EVP_MD_CTX_new(), EVP_MD_CTX_free};
  Blake2b() {
    if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_blake2b512(), nullptr) != 1)
      throw Error("BLAKE2b-512: OpenSSL's libcrypto refused to start a digest");
  }
  void update(const void* p, size_t n) {
    if (EVP_DigestUpdate(ctx.get(), p, n) != 1) throw Error("BLAKE2b-512: digest update failed");
  }
  std::string hex() {
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    if (EVP_DigestFinal_ex(ctx.get(), d, &n) != 1 || n != 64) throw Error("BLAKE2b-512: digest failed");
    return to_hex({d, n});
  }
};

}  // namespace

bool have_blake2b() { return true; }

std::string blake2b_512_hex(const std::string& bytes) {
  Blake2b h;
  h.update(bytes.data(), bytes.size());
  return h.hex();
}

std::string blake2b_512_hex_file(const std::string& path) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), std::fclose);
  if (!f) throw FormatError(path, "cannot open");
  Blake2b h;
  std::vector<char> buf(size_t(4) << 20);
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), f.get())) > 0) h.update(buf.data(), n);
  if (std::ferror(f.get())) throw FormatError(path, "read failed");
  return h.hex();
}

}  // namespace cuzk::filecoin
