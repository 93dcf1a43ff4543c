// SPDX-License-Identifier: MIT OR Apache-2.0
// A small test harness: cuzk's tests must build where only a compiler exists (GPU hosts
// have no package manager), so they do not depend on GoogleTest.
//
//   CUZK_TEST(name) { CHECK(x == y); CHECK_EQ(a, b); if (!gpu) SKIP("no GPU"); }
//
// Every binary prints its random seed first (set CUZK_TEST_SEED to replay) and closes with
// "N passed, M failed, K skipped" (and, where cases need a GPU, how many of them ran and how many
// skipped); the exit code is 1 if any test failed, 77 (ctest's SKIP_RETURN_CODE: Skipped, not
// Passed) if every case that ran skipped, else 0.
#pragma once
#include <cstdint>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace cuzk::test {

struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct Skipped : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Case {
  const char* name;
  std::function<void()> fn;
};
std::vector<Case>& registry();
struct Registrar {
  Registrar(const char* name, std::function<void()> fn) { registry().push_back({name, std::move(fn)}); }
};

// Marks the running case as one that needs a GPU (gpu_testing.hpp's gpus_or_skip calls it): the
// summary counts such cases apart.
void mark_gpu_case();

// Seed of this run (printed at start); every random test derives its inputs from it.
uint64_t seed();
// Directory holding the committed fixtures (tests/fixtures).
std::string fixtures_dir();
// Scratch directory unique to this test binary run.
std::string temp_dir();

template <class A, class B>
std::string describe_pair(const A& a, const B& b) {
  std::ostringstream os;
  os << a << " vs " << b;
  return os.str();
}

}  // namespace cuzk::test

#define CUZK_TEST_CAT2(a, b) a##b
#define CUZK_TEST_CAT(a, b) CUZK_TEST_CAT2(a, b)
#define CUZK_TEST(name)                                                       \
  static void name();                                                         \
  static ::cuzk::test::Registrar CUZK_TEST_CAT(cuzk_reg_, name)(#name, name); \
  static void name()

#define CHECK(cond)                                                                        \
  do {                                                                                     \
    if (!(cond))                                                                           \
      throw ::cuzk::test::Failure(std::string(__FILE__) + ":" + std::to_string(__LINE__) + \
                                  ": CHECK(" #cond ") failed");                            \
  } while (0)

#define CHECK_MSG(cond, msg)                                                           \
  do {                                                                                 \
    if (!(cond)) {                                                                     \
      std::ostringstream cuzk_os_;                                                     \
      cuzk_os_ << __FILE__ << ":" << __LINE__ << ": CHECK(" #cond ") failed: " << msg; \
      throw ::cuzk::test::Failure(cuzk_os_.str());                                     \
    }                                                                                  \
  } while (0)

#define CHECK_EQ(a, b)                                                                            \
  do {                                                                                            \
    const auto& cuzk_a_ = (a);                                                                    \
    const auto& cuzk_b_ = (b);                                                                    \
    if (!(cuzk_a_ == cuzk_b_))                                                                    \
      throw ::cuzk::test::Failure(                                                                \
          std::string(__FILE__) + ":" + std::to_string(__LINE__) +                                \
          ": CHECK_EQ(" #a ", " #b ") failed: " + ::cuzk::test::describe_pair(cuzk_a_, cuzk_b_)); \
  } while (0)

// Passes only if `expr` throws an exception of type `ex` whose what() contains `needle`.
#define CHECK_THROWS_WITH(expr, ex, needle)                               \
  do {                                                                    \
    bool cuzk_thrown_ = false;                                            \
    try {                                                                 \
      (void)(expr);                                                       \
    } catch (const ex& e) {                                               \
      cuzk_thrown_ = true;                                                \
      CHECK_MSG(std::string(e.what()).find(needle) != std::string::npos,  \
                "message '" << e.what() << "' lacks '" << needle << "'"); \
    }                                                                     \
    CHECK_MSG(cuzk_thrown_, #expr " did not throw " #ex);                 \
  } while (0)

#define SKIP(why) throw ::cuzk::test::Skipped(why)
