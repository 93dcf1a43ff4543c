// SPDX-License-Identifier: MIT OR Apache-2.0
#include "backend/spec.hpp"

#include <cstdlib>
#include <set>

#include "backend/cuda/probe.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace cuzk::backend {

std::string DeviceSpec::name() const {
  switch (kind) {
    case Kind::Gpu:
      return "gpu:" + std::to_string(index);
    case Kind::Sim:
      return "sim:" + std::to_string(index);
    default:
      return "cpu";
  }
}

size_t parse_size(const std::string& s) {
  size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  if (i == 0) throw InvalidArgument("not a size: '" + s + "' (e.g. 20GiB, 512MiB, 1.5GB)");
  double v = std::strtod(s.substr(0, i).c_str(), nullptr);
  std::string unit = s.substr(i);
  double mul = 1;
  if (unit.empty() || unit == "B")
    mul = 1;
  else if (unit == "KiB" || unit == "K")
    mul = 1024.0;
  else if (unit == "MiB" || unit == "M")
    mul = 1024.0 * 1024;
  else if (unit == "GiB" || unit == "G")
    mul = 1024.0 * 1024 * 1024;
  else if (unit == "TiB" || unit == "T")
    mul = 1024.0 * 1024 * 1024 * 1024;
  else if (unit == "KB")
    mul = 1e3;
  else if (unit == "MB")
    mul = 1e6;
  else if (unit == "GB")
    mul = 1e9;
  else if (unit == "TB")
    mul = 1e12;
  else
    throw InvalidArgument("unknown size unit in '" + s + "' (B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)");
  double b = v * mul;
  if (!(b >= 1) || b > 1e18) throw InvalidArgument("size out of range: '" + s + "'");
  return size_t(b);
}

namespace {

DeviceSpec make(DeviceSpec::Kind k, int index) {
  DeviceSpec d;
  d.kind = k;
  d.index = index;
  return d;
}

std::string visible_text(size_t n) {
  return cuda::built_with_cuda() ? std::to_string(n) + " GPU(s) visible"
                                 : std::string("this cuzk was built without CUDA");
}

}  // namespace

std::vector<DeviceSpec> parse_device_specs(const std::string& text0, const std::string& what) {
  std::string text = text0;
  // Suffixes apply to the whole list: *W last, then @SIZE.
  int workers = 0;
  size_t memory = 0;
  if (auto star = text.rfind('*'); star != std::string::npos) {
    const std::string w = text.substr(star + 1);
    if (!all_digits(w) || w.size() > 2 || std::stoi(w) < 1 || std::stoi(w) > 16)
      throw BadDeviceSpec(what + ": '" + text0 + "': expected *W with 1..16 workers per device at the end");
    workers = std::stoi(w);
    text = text.substr(0, star);
  }
  if (auto at = text.rfind('@'); at != std::string::npos) {
    if (text.find(',', at) != std::string::npos)
      throw BadDeviceSpec(what + ": '" + text0 +
                          "': @SIZE and *W go once at the end of the list and apply to "
                          "every device in it (per-device budgets: --device-memory A,B or devices.memory)");
    try {
      memory = parse_size(text.substr(at + 1));
    } catch (const InvalidArgument& e) {
      throw BadDeviceSpec(what + ": '" + text0 + "': " + e.what());
    }
    text = text.substr(0, at);
  }
  if (text.find_first_of("@*") != std::string::npos)
    throw BadDeviceSpec(what + ": '" + text0 +
                        "': @SIZE and *W go once at the end of the list and apply to every "
                        "device in it (per-device budgets: --device-memory A,B or devices.memory)");
  if (text.empty()) throw BadDeviceSpec(what + ": no device given");
  std::vector<DeviceSpec> out;
  std::vector<cuda::DeviceInfo> gpus;
  bool probed = false;
  auto visible = [&]() -> const std::vector<cuda::DeviceInfo>& {
    if (!probed) gpus = cuda::list_devices(), probed = true;
    return gpus;
  };
  for (const std::string& item : split(text, ',')) {
    if (item.empty()) throw BadDeviceSpec(what + ": empty item in list '" + text0 + "'");
    if (item == "all" || item == "auto") {
      if (visible().empty() && item == "all")
        throw InvalidArgument(what + ": 'all': no GPU is usable (" + visible_text(0) + ")");
      if (visible().empty()) out.push_back(make(DeviceSpec::Kind::Cpu, 0));
      for (auto& g : visible()) out.push_back(make(DeviceSpec::Kind::Gpu, g.ordinal));
    } else if (item == "cpu") {
      out.push_back(make(DeviceSpec::Kind::Cpu, 0));
    } else if (item.rfind("sim:", 0) == 0) {
      const std::string k = item.substr(4);
      if (!all_digits(k) || k.size() > 3 || std::stoi(k) < 1)
        throw BadDeviceSpec(what + ": '" + item + "': expected sim:K with K >= 1 simulated devices");
      for (int i = 0, n = std::stoi(k); i < n; ++i) out.push_back(make(DeviceSpec::Kind::Sim, i));
    } else if (item.rfind("gpu:", 0) == 0) {
      const std::string k = item.substr(4);
      if (!all_digits(k) || k.size() > 4) throw BadDeviceSpec(what + ": '" + item + "': expected gpu:N");
      const int o = std::stoi(k);
      bool found = false;
      for (auto& g : visible()) found |= g.ordinal == o;
      if (!found)
        throw InvalidArgument(what + ": device " + item + " is not available (" + visible_text(visible().size()) + ")");
      out.push_back(make(DeviceSpec::Kind::Gpu, o));
    } else {
      throw BadDeviceSpec(what + ": unknown device '" + item + "' (gpu:N, all, auto, cpu, sim:K)");
    }
  }
  std::set<std::string> names;
  for (auto& d : out) {
    if (!names.insert(d.name()).second) throw BadDeviceSpec(what + ": device " + d.name() + " is listed twice");
    d.memory = memory;
    d.workers = workers;
  }
  return out;
}

void apply_memory(std::vector<DeviceSpec>& devs, const std::vector<std::string>& sizes, const std::string& what) {
  if (sizes.size() != 1 && sizes.size() != devs.size())
    throw BadDeviceSpec(what + " has " + std::to_string(sizes.size()) + " sizes for " + std::to_string(devs.size()) +
                        " devices (give one, or one per device)");
  for (size_t i = 0; i < devs.size(); ++i) {
    const std::string& s = sizes.size() == 1 ? sizes[0] : sizes[i];
    try {
      devs[i].memory = parse_size(s);
    } catch (const InvalidArgument& e) {
      throw BadDeviceSpec(what + ": " + e.what());
    }
  }
}

std::string names_of(const std::vector<DeviceSpec>& devs) {
  std::string s;
  for (auto& d : devs) s += (s.empty() ? "" : ",") + d.name();
  return s;
}

int gpu_ordinal(const std::string& text, const std::string& what) {
  const auto spec = parse_device_specs(text, what);
  if (spec.size() != 1 || spec[0].kind != DeviceSpec::Kind::Gpu)
    throw InvalidArgument(what + ": '" + text + "' is not one GPU (expected gpu:N)");
  return spec[0].index;
}

}  // namespace cuzk::backend
