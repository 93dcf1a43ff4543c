// SPDX-License-Identifier: MIT OR Apache-2.0
// A device as configured, from the moment its text is parsed: the command line's --devices /
// --device, the daemon's [devices] table and the benchmark's device sets all go through
// parse_device_specs, and open_device (open.hpp) turns a spec into the Device that the engine
// schedules on. Nothing above the backends looks at `kind`.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace cuzk::backend {

struct DeviceSpec {
  enum class Kind { Gpu, Cpu, Sim };
  Kind kind = Kind::Cpu;
  int index = 0;         // the GPU's ordinal, or the simulated device's number
  size_t memory = 0;     // budget in bytes; 0 = the device's default
  int workers = 0;       // workers on this device; 0 = the engine's default
  unsigned threads = 0;  // CPU and simulated devices: threads of their "kernels" (0 = all hardware threads)
  // Simulated devices only (tests and load figures): a simulated device runs the CPU backend
  // under its declared memory, with these floors at speed 1.
  double speed = 1.0;
  double sim_kernel_ms = 0;  // the kernels of one partition take at least this long
  double sim_stage_ms = 0;   // the staging copies of one partition take at least this long
  double sim_free_ms = 0;    // freeing memory waits this long (a GPU's free waits for its work)
  std::string name() const;  // "gpu:0", "cpu", "sim:1"
};

// The text of a device list is malformed (as opposed to naming a device that is not there, which
// is a plain InvalidArgument): a command line reports it as a usage error.
struct BadDeviceSpec : InvalidArgument {
  using InvalidArgument::InvalidArgument;
};

// Parses `item[,item...][@SIZE][*W]`, item = gpu:N | all | auto | cpu | sim:K:
//   all     every visible GPU (an error when there is none)
//   auto    every visible GPU, else cpu
//   sim:K   K simulated devices, sim:0 .. sim:K-1
//   @SIZE   the memory budget of every device of the list (20GiB, 512MiB, 1.5GB, bytes)
//   *W      workers per device, 1..16
// A GPU that is not visible is an error, never a fallback; so is a device named twice.
// `what` names the source in errors: "--devices", or "devices.list" for the daemon's config.
std::vector<DeviceSpec> parse_device_specs(const std::string& text, const std::string& what = "--devices");

// Budgets from sizes: one size for every device, or one per device in order. `what` names the
// source in errors ("--device-memory", "devices.memory").
void apply_memory(std::vector<DeviceSpec>& devs, const std::vector<std::string>& sizes, const std::string& what);

// "20GiB", "512MiB", "1.5GB", "123456": bytes. Throws InvalidArgument naming the text.
size_t parse_size(const std::string& s);

// The ordinal of the one GPU that `text` names, for tools that drive the CUDA backend directly
// (the kernel benchmark). Throws InvalidArgument, naming `what`, when `text` is not one GPU.
int gpu_ordinal(const std::string& text, const std::string& what);

// Names joined with commas ("gpu:0,gpu:1").
std::string names_of(const std::vector<DeviceSpec>& devs);

}  // namespace cuzk::backend
