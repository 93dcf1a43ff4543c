// SPDX-License-Identifier: MIT OR Apache-2.0
// Renderings of the engine's records (record.hpp) for people and scripts:
//
//   summary_json   one JSON document: every partition (where it ran, how often, how long each
//                  phase took and when) and every device (how busy it was)
//   timeline_svg   one self-contained SVG (no scripts, no external fonts): a row per device
//                  worker on a shared time axis, so idle GPUs and workers that did not interleave
//                  (kernels of w0 while w1 stages) show at a glance
//
// Both are pure functions of the records; neither touches a file.
#pragma once
#include <string>
#include <vector>

#include "engine/record.hpp"

namespace cuzk::engine {

// Pretty-printed (io::to_json) object, keys in this order:
//   {"version", "wall_ms", "partitions": [...], "devices": [...]}
// partitions, sorted by (job, index):
//   {"index", "job", "device", "worker", "attempts", "ok", "error" (only when !ok), "streamed",
//    "reserved_bytes",
//    "timings_ms": every phase of groth16/phases.hpp's table, in its order: {"queue", "synthesis",
//                   "stage", "budget_wait" (inside stage), "lock_wait", "kernels", "abc", "ntt_h",
//                   "msm_a", "msm_b1", "msm_b2", "msm_c", "msm_h" (inside kernels), "finish",
//                   "verify" (inside finish)}; msm_a holds B1 and C too where the three MSMs
//                   share one call (planned for a resident key without density compaction:
//                   msm_b1 and msm_c then ~0),
//    "device_ms" (only where the device has a clock of its own: the GPU's kernel phases timed by
//                 CUDA events, without the host's time between them),
//    "spans_ms": {"synthesis": [start, end], "stage", "lock_wait", "kernels", "finish"}}
//   A phase that did not happen (Span::happened() false) is 0 in timings_ms and absent from
//   spans_ms.
// devices, in the given order:
//   {"device", "description", "workers", "budget_bytes", "busy_ms", "busy_fraction",
//    "device_busy_ms", "device_busy_fraction" (both only with a device clock), "partitions"}
//   busy_fraction = busy_ms / wall_ms (0 when wall_ms is not positive): time under the lock, the
//   host's view; device_busy_ms sums the partitions' device_ms, device_busy_fraction = it / wall_ms.
// Times are JSON numbers rounded to 3 decimals (trailing zeros dropped; a non-finite value is 0);
// counts and byte sizes are integers; ok and streamed are true/false. Strings are escaped for
// RFC 8259 (control characters as \uXXXX; invalid UTF-8 bytes become U+FFFD), so the output
// always parses with io::parse_json.
std::string summary_json(const std::string& version, double wall_ms, const std::vector<PartitionRecord>& parts,
                         const std::vector<DeviceRecord>& devs);

// A timeline of the records, ~1200 px wide, height from the number of rows:
//   - the title, a legend (a colour per phase; a red outline = failed partition);
//   - a "synthesis" row on top: each partition's synthesis span, overlapping spans stacked in
//     sub-lanes;
//   - per device (in the given order) a header line (name, description, kernel-busy time and
//     share of the drawn time range, partition count) and one row per worker 0..workers-1,
//     labelled "gpu:0 w0"; on it, for each partition that ran there (device and worker match),
//     bars for stage, lock_wait, kernels and finish, the partition index written inside the
//     kernels bar when it is wide enough. Partitions naming a (device, worker) not in devs get
//     rows of their own at the end;
//   - a time axis in ms with ticks at 1/2/5 x 10^k steps and vertical grid lines.
// Each bar is <rect class="bar PHASE" data-job="J" data-part="I" x= y= width= height= ...> with a
// <title> tooltip "job J partition I: PHASE 123.4 ms". Phases that did not happen are not drawn.
// All text is escaped for XML. The string starts with "<svg" and ends with "</svg>".
std::string timeline_svg(const std::vector<PartitionRecord>& parts, const std::vector<DeviceRecord>& devs,
                         const std::string& title);

// A job's records on its own time axis: every span shifted so that the job's submission (the
// earliest queue start; without one, the earliest span) is at 0 ms. The engine's records count
// from the engine's start, which in a daemon is hours before the job.
void rebase_to_submission(std::vector<PartitionRecord>& recs);

}  // namespace cuzk::engine
