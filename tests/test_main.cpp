// SPDX-License-Identifier: MIT OR Apache-2.0
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>

#include "testing.hpp"

namespace cuzk::test {

std::vector<Case>& registry() {
  static std::vector<Case> r;
  return r;
}

static uint64_t g_seed = 0;
uint64_t seed() { return g_seed; }

static bool g_gpu_case = false;
void mark_gpu_case() { g_gpu_case = true; }

std::string fixtures_dir() {
  if (const char* d = std::getenv("CUZK_FIXTURES")) return d;
  return CUZK_SOURCE_DIR "/tests/fixtures";
}

std::string temp_dir() {
  static std::string dir = [] {
    auto p = std::filesystem::temp_directory_path() /
             ("cuzk-test-" + std::to_string(::getpid()) + "-" + std::to_string(g_seed % 100000));
    std::filesystem::create_directories(p);
    return p.string();
  }();
  return dir;
}

}  // namespace cuzk::test

int main(int argc, char** argv) {
  using namespace cuzk::test;
  if (const char* s = std::getenv("CUZK_TEST_SEED")) {
    g_seed = std::strtoull(s, nullptr, 0);
  } else {
    g_seed = (uint64_t(std::random_device{}()) << 32) ^ std::random_device{}();
  }
  std::printf("seed %llu (replay with CUZK_TEST_SEED=%llu)\n", (unsigned long long)g_seed, (unsigned long long)g_seed);
  std::string filter = argc > 1 ? argv[1] : "";
  int passed = 0, failed = 0, skipped = 0, gpu_ran = 0, gpu_skipped = 0;
  for (auto& c : registry()) {
    if (!filter.empty() && std::string(c.name).find(filter) == std::string::npos) continue;
    auto t0 = std::chrono::steady_clock::now();
    std::string outcome;
    g_gpu_case = false;
    try {
      c.fn();
      ++passed;
      outcome = "ok";
    } catch (const Skipped& e) {
      ++skipped;
      outcome = std::string("skipped: ") + e.what();
    } catch (const Failure& e) {
      ++failed;
      outcome = std::string("FAIL: ") + e.what();
    } catch (const std::exception& e) {
      ++failed;
      outcome = std::string("FAIL: uncaught exception: ") + e.what();
    }
    if (g_gpu_case) (outcome.rfind("skipped", 0) == 0 ? gpu_skipped : gpu_ran) += 1;
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%-48s %s (%.0f ms)\n", c.name, outcome.c_str(), ms);
    std::fflush(stdout);
  }
  std::error_code ec;
  std::filesystem::remove_all(temp_dir(), ec);
  std::printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
  if (gpu_ran + gpu_skipped > 0) std::printf("GPU cases: %d ran, %d skipped\n", gpu_ran, gpu_skipped);
  if (failed > 0 || passed + skipped == 0) return 1;
  return passed == 0 ? 77 : 0;  // every case skipped: ctest reports Skipped (SKIP_RETURN_CODE 77)
}
