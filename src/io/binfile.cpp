// SPDX-License-Identifier: MIT OR Apache-2.0
#include "io/binfile.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sys/mman.h>
#include <sys/stat.h>

#include "util/error.hpp"

namespace cuzk::io {

namespace {

uint32_t load_u32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

uint64_t load_u64(const uint8_t* p) { return uint64_t(load_u32(p)) | uint64_t(load_u32(p + 4)) << 32; }

// The 4 magic bytes as text, with non-printable bytes escaped.
std::string show_magic(const uint8_t* p, size_t n) {
  std::string s = "'";
  for (size_t i = 0; i < n; ++i) {
    if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\'' && p[i] != '\\') {
      s += char(p[i]);
    } else {
      static const char* hex = "0123456789abcdef";
      s += "\\x";
      s += hex[p[i] >> 4];
      s += hex[p[i] & 15];
    }
  }
  return s + "'";
}

// Closes a file descriptor on every path out of FileBytes::map.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::shared_ptr<FileBytes> FileBytes::map(const std::string& path) {
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (f.fd < 0) throw FormatError(path, std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) throw FormatError(path, std::string("cannot stat: ") + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw FormatError(path, "cannot open: is a directory, not a file");
  if (!S_ISREG(st.st_mode)) throw FormatError(path, "cannot open: not a regular file");
  if (st.st_size == 0) throw FormatError(path, "file is empty (0 bytes)");
  size_t size = size_t(st.st_size);
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, f.fd, 0);
  if (p == MAP_FAILED) {
    throw FormatError(path, "cannot map " + std::to_string(size) + " bytes: " + std::strerror(errno));
  }
  ::madvise(p, size, MADV_SEQUENTIAL);  // advisory only; failure is harmless
  std::shared_ptr<FileBytes> fb(new FileBytes());
  fb->path_ = path;
  fb->map_ = p;
  fb->data_ = static_cast<const uint8_t*>(p);
  fb->size_ = size;
  return fb;
}

std::shared_ptr<FileBytes> FileBytes::from_buffer(std::string name, std::vector<uint8_t> bytes) {
  std::shared_ptr<FileBytes> fb(new FileBytes());
  fb->path_ = std::move(name);
  fb->owned_ = std::move(bytes);
  fb->data_ = fb->owned_.data();
  fb->size_ = fb->owned_.size();
  return fb;
}

std::shared_ptr<FileBytes> FileBytes::borrow(std::string name, std::span<const uint8_t> bytes) {
  std::shared_ptr<FileBytes> fb(new FileBytes());
  fb->path_ = std::move(name);
  fb->data_ = bytes.data();
  fb->size_ = bytes.size();
  return fb;
}

void FileBytes::release(std::span<const uint8_t> part) const {
  if (!map_ || part.empty() || part.data() < data_ || part.data() + part.size() > data_ + size_) return;
  const uintptr_t page = uintptr_t(::sysconf(_SC_PAGESIZE));
  const uintptr_t b = (uintptr_t(part.data()) + page - 1) / page * page;  // whole pages inside the part only
  const uintptr_t e = (uintptr_t(part.data()) + part.size()) / page * page;
  if (e > b) ::madvise(reinterpret_cast<void*>(b), e - b, MADV_DONTNEED);  // advisory; failure is harmless
}

FileBytes::~FileBytes() {
  if (map_) ::munmap(map_, size_);
}

std::span<const uint8_t> BinFile::section(uint32_t id, const char* what) const {
  auto it = sections.find(id);
  if (it == sections.end()) {
    throw FormatError(path(), "missing section " + std::to_string(id) + " (" + what + ")");
  }
  return it->second;
}

BinFile parse_binfile(std::shared_ptr<FileBytes> file, const char magic[4], uint32_t min_version,
                      uint32_t max_version) {
  const std::string& path = file->path();
  auto bytes = file->bytes();
  const uint8_t* d = bytes.data();
  const size_t size = bytes.size();
  const std::string kind(magic, 4);
  if (size == 0) throw FormatError(path, "file is empty (0 bytes), expected a ." + kind + " file");
  if (size < 4 || std::memcmp(d, magic, 4) != 0) {
    if (size < 4) {
      throw FormatError(path,
                        "file is " + std::to_string(size) + " bytes, too short for the 4-byte magic '" + kind + "'");
    }
    throw FormatError(path, "not a ." + kind + " file: magic is " + show_magic(d, 4) + ", expected '" + kind + "'");
  }
  if (size < 12) {
    throw FormatError(path, "truncated header: file is " + std::to_string(size) +
                                " bytes, the header (magic, version, section count) needs 12");
  }
  BinFile bf;
  bf.file = file;
  bf.version = load_u32(d + 4);
  if (bf.version < min_version || bf.version > max_version) {
    std::string supported = min_version == max_version
                                ? std::to_string(min_version)
                                : std::to_string(min_version) + ".." + std::to_string(max_version);
    throw FormatError(
        path, "unsupported ." + kind + " version " + std::to_string(bf.version) + " (supported: " + supported + ")");
  }
  const uint32_t n_sections = load_u32(d + 8);
  size_t off = 12;
  // Each section needs at least its 12-byte header: reject absurd counts up front.
  if (uint64_t(n_sections) * 12 > size - off) {
    throw FormatError(path, "header declares " + std::to_string(n_sections) + " sections but the remaining " +
                                std::to_string(size - off) + " bytes hold at most " +
                                std::to_string((size - off) / 12) + " section headers (12 bytes each)");
  }
  std::map<uint32_t, size_t> first_offset;
  for (uint32_t i = 0; i < n_sections; ++i) {
    if (size - off < 12) {
      throw FormatError(path, "section table truncated: header of section entry " + std::to_string(i) + " at offset " +
                                  std::to_string(off) + " needs 12 bytes, only " + std::to_string(size - off) +
                                  " left");
    }
    const uint32_t id = load_u32(d + off);
    const uint64_t len = load_u64(d + off + 4);
    const size_t hdr = off;
    off += 12;
    if (len > size - off) {
      throw FormatError(path, "section " + std::to_string(id) + " (entry " + std::to_string(i) + " at offset " +
                                  std::to_string(hdr) + ") declares " + std::to_string(len) + " bytes but only " +
                                  std::to_string(size - off) + " bytes remain in the file (truncated?)");
    }
    auto [it, fresh] = first_offset.emplace(id, hdr);
    if (!fresh) {
      throw FormatError(path, "section " + std::to_string(id) + " occurs twice (at offsets " +
                                  std::to_string(it->second) + " and " + std::to_string(hdr) + ")");
    }
    bf.sections.emplace(id, std::span<const uint8_t>(d + off, size_t(len)));
    off += size_t(len);
  }
  if (off != size) {
    throw FormatError(path, std::to_string(size - off) + " trailing bytes after the last of " +
                                std::to_string(n_sections) + " sections (at offset " + std::to_string(off) + ")");
  }
  return bf;
}

void Reader::fail(const std::string& msg) const { throw FormatError(path_, what_ + ": " + msg); }

uint32_t Reader::u32() { return load_u32(take(4).data()); }

uint64_t Reader::u64() { return load_u64(take(8).data()); }

std::span<const uint8_t> Reader::take(size_t n) {
  if (n > remaining()) {
    fail("truncated: needs " + std::to_string(n) + " bytes at offset " + std::to_string(pos_) + ", only " +
         std::to_string(remaining()) + " left (section is " + std::to_string(bytes_.size()) + " bytes)");
  }
  auto s = bytes_.subspan(pos_, n);
  pos_ += n;
  return s;
}

void Reader::expect_end() {
  if (remaining() != 0) {
    fail(std::to_string(remaining()) + " trailing bytes (section is " + std::to_string(bytes_.size()) +
         " bytes, the content ends at " + std::to_string(pos_) + ")");
  }
}

}  // namespace cuzk::io

namespace cuzk::io {

std::string le_hex(std::span<const uint8_t> le) {
  static const char* hex = "0123456789abcdef";
  std::string s = "0x";
  size_t n = le.size() > 64 ? 64 : le.size();
  for (size_t i = n; i-- > 0;) {
    s += hex[le[i] >> 4];
    s += hex[le[i] & 15];
  }
  if (le.size() > n) s += "...";
  return s;
}

ScalarFieldHeader read_scalar_field_header(Reader& h) {
  ScalarFieldHeader out;
  out.n8 = h.u32();
  if (out.n8 != 32)
    h.fail("n8 is " + std::to_string(out.n8) + ", expected 32 (the scalar field size of BN254 and BLS12-381)");
  auto prime = h.take(out.n8);
  auto curve = curve_from_scalar_prime(prime);
  if (!curve) h.fail("prime " + le_hex(prime) + " is not the scalar field r of BN254 or BLS12-381");
  out.curve = *curve;
  return out;
}

}  // namespace cuzk::io
