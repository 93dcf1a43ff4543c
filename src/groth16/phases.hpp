// SPDX-License-Identifier: MIT OR Apache-2.0
// The phases of one partition's proof, named once. Every timing cuzk reports (summary.json, the
// daemon's AwaitProof and /metrics, the command line's lines, the benchmarks) reads this enum
// and this name table.
//
//   queue -> synthesis -> stage [budget_wait inside] -> lock_wait -> kernels [abc, ntt_h, msm_*]
//         -> finish [verify inside]
//
// With a streamed key the five MSMs run as one pipeline of pieces (groth16::streamed_msms): each
// msm_* phase spans its first piece to its last, so those phases overlap (H's pieces are spread
// among the others': msm_h's span holds most of theirs).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>

namespace cuzk {

enum class Phase : uint8_t {
  Queue,       // submitted -> synthesis starts
  Synthesis,   // witness loaded and checked (CPU)
  Stage,       // outside the device's lock: memory reserved (BudgetWait), key uploaded, inputs copied
  BudgetWait,  //   inside Stage: waiting for the device's memory budget (the witness moved to page-locked memory)
  LockWait,    // waiting for the device's kernel lock
  Kernels,     // under the lock: the phases below
  Abc,         //   a, b, c from the compiled matrices
  NttH,        //   H on the coset
  MsmA,        //   (with B1 and C where the three share one call over the witness: MsmB1, MsmC empty)
  MsmB1,
  MsmB2,
  MsmC,
  MsmH,
  Finish,  // blinding, assembly, self-verification (Verify inside), encoding
  Verify,
  Count
};
inline constexpr size_t kPhaseCount = size_t(Phase::Count);

inline constexpr std::array<std::string_view, kPhaseCount> kPhaseNames = {
    "queue", "synthesis", "stage",  "budget_wait", "lock_wait", "kernels", "abc",   "ntt_h",
    "msm_a", "msm_b1",    "msm_b2", "msm_c",       "msm_h",     "finish",  "verify"};
inline std::string_view phase_name(Phase p) { return kPhaseNames[size_t(p)]; }
// The phases that follow one another on a partition's timeline (the others lie inside them).
inline constexpr std::array<Phase, 6> kTopPhases = {Phase::Queue,    Phase::Synthesis, Phase::Stage,
                                                    Phase::LockWait, Phase::Kernels,   Phase::Finish};
// The five MSMs in the order the prover runs them.
inline constexpr std::array<Phase, 5> kMsmPhases = {Phase::MsmA, Phase::MsmB1, Phase::MsmB2, Phase::MsmC, Phase::MsmH};

// An interval in milliseconds on one time axis; -1: the phase did not happen.
struct Span {
  double start_ms = -1, end_ms = -1;
  bool happened() const { return start_ms >= 0 && end_ms >= start_ms; }
  double ms() const { return happened() ? end_ms - start_ms : 0; }
};

// One span per phase.
struct PhaseSpans {
  std::array<Span, kPhaseCount> at{};
  Span& operator[](Phase p) { return at[size_t(p)]; }
  const Span& operator[](Phase p) const { return at[size_t(p)]; }
  double ms(Phase p) const { return at[size_t(p)].ms(); }
};

// Times phases on a clock (milliseconds on the spans' axis): begin/end, or a whole call.
struct PhaseTimer {
  std::function<double()> now;
  PhaseSpans* spans = nullptr;
  void begin(Phase p) const {
    if (spans) (*spans)[p] = Span{now(), -1};
  }
  void end(Phase p) const {
    if (spans) (*spans)[p].end_ms = now();
  }
  template <class F>
  void time(Phase p, F&& fn) const {
    begin(p);
    fn();
    end(p);
  }
};

}  // namespace cuzk
