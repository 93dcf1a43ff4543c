// SPDX-License-Identifier: MIT OR Apache-2.0
// The engine's reports (engine/report.hpp): summary_json read back with the project's strict JSON
// parser and compared field by field with the records it was made from; timeline_svg checked for
// well-formedness (balanced tags, only known entities), one bar per phase that happened, bars at
// x positions that follow their times on one linear axis, a row per device worker, and escaping.
// The records are built by hand: 2 devices x 2 workers, 10 partitions of two jobs, scheduled the
// way the engine does (one device lock per GPU, one partition at a time per worker).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "engine/record.hpp"
#include "engine/report.hpp"
#include "io/json_parse.hpp"
#include "testing.hpp"

using namespace cuzk;
using namespace cuzk::engine;

namespace {

const char* const kBadError = "kernel <msm_h> failed: \"out of memory\"\nat line 2\x01 \xff end";
// What kBadError reads as once escaped and parsed back: the stray byte 0xff is U+FFFD.
const char* const kBadErrorParsed = "kernel <msm_h> failed: \"out of memory\"\nat line 2\x01 \xEF\xBF\xBD end";

struct Fixture {
  std::vector<PartitionRecord> parts;  // in submission order (not sorted)
  std::vector<DeviceRecord> devs;
  double wall_ms = 0;
};

// Partitions (3,0),(2,0),(3,1),(2,1),... submitted in that order; the i-th goes to device i % 2,
// worker (i / 2) % 2. Each worker runs stage -> [lock_wait] -> kernels -> finish for one partition
// at a time; kernels of one device never overlap (its lock). Partition #7 fails in its kernels.
Fixture make_fixture() {
  Fixture f;
  f.devs = {{"gpu:0", "NVIDIA H200", 2, size_t(120) << 30, 0, 0},
            {"gpu:1", "NVIDIA H200 & <friends>", 2, size_t(100) << 30, 0, 0}};
  const std::pair<uint64_t, uint32_t> order[10] = {{3, 0}, {2, 0}, {3, 1}, {2, 1}, {3, 2},
                                                   {2, 2}, {3, 3}, {2, 3}, {3, 4}, {3, 5}};
  double worker_free[2][2] = {{0, 0}, {0, 0}}, lock_free[2] = {0, 0};
  double first = 1e300, last = 0;
  for (int i = 0; i < 10; ++i) {
    PartitionRecord p;
    p.job = order[i].first;
    p.index = order[i].second;
    const int d = i % 2, w = (i / 2) % 2;
    p.device = f.devs[size_t(d)].name;
    p.worker = w;
    p.attempts = i == 4 ? 2 : 1;
    p.ok = i != 7;
    if (!p.ok) p.error = kBadError;
    p.streamed = i == 4;
    p.reserved_bytes = (size_t(3) << 30) + size_t(i) * 12345;
    const double s0 = 1000.1234 + 25.0 * i;
    if (i != 0) p.spans[Phase::Queue] = {s0 - 5.5 - i, s0};  // partition #0 was never queued
    p.spans[Phase::Synthesis] = {s0, s0 + 80.45678};
    p.spans[Phase::Stage].start_ms = std::max(p.spans[Phase::Synthesis].end_ms, worker_free[d][w]);
    p.spans[Phase::Stage].end_ms = p.spans[Phase::Stage].start_ms + 12.3456;
    p.spans[Phase::BudgetWait] = {0, 1.5 + 0.25 * i};
    const double k0 = std::max(p.spans[Phase::Stage].end_ms, lock_free[d]);
    if (k0 > p.spans[Phase::Stage].end_ms) p.spans[Phase::LockWait] = {p.spans[Phase::Stage].end_ms, k0};
    p.spans[Phase::Kernels] = {k0, k0 + 60.78912 + i};
    lock_free[d] = p.spans[Phase::Kernels].end_ms;
    p.spans[Phase::NttH] = {0, 10.1111 + i};
    p.spans[Phase::MsmA] = {0, 5.2222};
    p.spans[Phase::MsmB1] = {0, 4.3333};
    p.spans[Phase::MsmB2] = {0, 12.4444};
    p.spans[Phase::MsmC] = {0, 3.5555};
    p.spans[Phase::MsmH] = {0, 5.12346};
    if (p.ok) p.spans[Phase::Finish] = {p.spans[Phase::Kernels].end_ms, p.spans[Phase::Kernels].end_ms + 9.87654};
    worker_free[d][w] = p.ok ? p.spans[Phase::Finish].end_ms : p.spans[Phase::Kernels].end_ms;
    f.devs[size_t(d)].busy_ms += p.spans[Phase::Kernels].ms();
    f.devs[size_t(d)].partitions += 1;
    first = std::min(
        first, p.spans[Phase::Queue].happened() ? p.spans[Phase::Queue].start_ms : p.spans[Phase::Synthesis].start_ms);
    last = std::max(last, worker_free[d][w]);
    f.parts.push_back(p);
  }
  f.wall_ms = last - first + 0.4444;
  return f;
}

double number(const io::Json& j) {
  CHECK_MSG(j.is_number(), "expected a number, got " << j.type_name() << " at line " << j.line);
  return std::strtod(j.text.c_str(), nullptr);
}
// Equal after summary_json's rounding to 3 decimals.
bool close3(double a, double b) { return std::fabs(a - b) <= 0.0005 + 1e-9 * std::fabs(b); }

std::vector<std::string> keys(const io::Json& j) {
  std::vector<std::string> k;
  for (auto& f : j.fields) k.push_back(f.first);
  return k;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

const io::Json& member(const io::Json& j, const char* key) {
  const io::Json* m = j.find(key);
  CHECK_MSG(m != nullptr, "no member '" << key << "' (members: " << join(keys(j)) << ")");
  return *m;
}

// Every number in the document has at most 3 decimals and no exponent.
void check_number_format(const io::Json& j) {
  if (j.is_number()) {
    CHECK_MSG(j.text.find_first_of("eE") == std::string::npos, "number " << j.text);
    auto dot = j.text.find('.');
    CHECK_MSG(dot == std::string::npos || j.text.size() - dot - 1 <= 3, "number " << j.text << " has > 3 decimals");
  }
  for (auto& x : j.items) check_number_format(x);
  for (auto& f : j.fields) check_number_format(f.second);
}

const PartitionRecord& find_part(const Fixture& f, uint64_t job, uint32_t index) {
  for (auto& p : f.parts)
    if (p.job == job && p.index == index) return p;
  throw std::logic_error("test bug: no partition");
}

// ------------------------------------------------------------------ a small XML well-formedness check
// Tags balance and nest, one root element, attribute values quoted, no '<' inside a tag, and every
// '&' starts one of the five predefined entities or a character reference.
bool xml_well_formed(const std::string& s, std::string* why) {
  std::vector<std::string> stack;
  int roots = 0;
  size_t i = 0;
  auto fail = [&](const std::string& m) {
    *why = m + " at offset " + std::to_string(i) + ": '" + s.substr(i, 60) + "'";
    return false;
  };
  while (i < s.size()) {
    if (s[i] == '<') {
      size_t j = i + 1;
      char quote = 0;
      for (; j < s.size(); ++j) {
        if (quote) {
          if (s[j] == quote)
            quote = 0;
          else if (s[j] == '<')
            return fail("'<' inside an attribute value");
        } else if (s[j] == '"' || s[j] == '\'') {
          quote = s[j];
        } else if (s[j] == '<') {
          return fail("'<' inside a tag");
        } else if (s[j] == '>') {
          break;
        }
      }
      if (j >= s.size()) return fail("unterminated tag");
      std::string tag = s.substr(i + 1, j - i - 1);
      if (tag.empty()) return fail("empty tag");
      if (tag[0] == '/') {
        std::string name = tag.substr(1);
        if (stack.empty() || stack.back() != name) return fail("closing </" + name + "> does not match");
        stack.pop_back();
      } else {
        const bool self_closing = tag.back() == '/';
        std::string name = tag.substr(0, tag.find_first_of(" \t\n/"));
        if (name.empty() || !std::isalpha(uint8_t(name[0]))) return fail("bad element name");
        if (stack.empty()) {
          if (++roots > 1) return fail("second root element");
        }
        if (!self_closing) stack.push_back(name);
      }
      i = j + 1;
    } else {
      if (stack.empty() && !std::isspace(uint8_t(s[i]))) return fail("text outside the root element");
      if (s[i] == '&') {
        static const std::regex ent("^&(amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);");
        if (!std::regex_search(s.substr(i, 12), ent)) return fail("bad entity");
      }
      ++i;
    }
  }
  // '&' inside attribute values, too.
  for (size_t k = s.find('&'); k != std::string::npos; k = s.find('&', k + 1)) {
    static const std::regex ent("^&(amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);");
    if (!std::regex_search(s.substr(k, 12), ent)) {
      i = k;
      return fail("bad entity");
    }
  }
  if (!stack.empty()) return fail("unclosed <" + stack.back() + ">");
  if (roots != 1) return fail("no root element");
  return true;
}

// ------------------------------------------------------------------ reading back the bars
struct Bar {
  std::string phase;
  uint64_t job;
  uint32_t part;
  double x, y, w, h;
  bool red;
  std::string title;
};

std::vector<Bar> parse_bars(const std::string& svg) {
  static const std::regex re(
      "<rect class=\"bar ([a-z_]+)\" data-job=\"([0-9]+)\" data-part=\"([0-9]+)\" x=\"([-0-9.]+)\" "
      "y=\"([-0-9.]+)\" width=\"([0-9.]+)\" height=\"([0-9.]+)\"([^>]*)><title>([^<]*)</title></rect>");
  std::vector<Bar> bars;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator(); ++it) {
    const auto& m = *it;
    bars.push_back({m[1], std::stoull(m[2]), uint32_t(std::stoul(m[3])), std::stod(m[4]), std::stod(m[5]),
                    std::stod(m[6]), std::stod(m[7]), m[8].str().find("stroke=\"#d62728\"") != std::string::npos,
                    m[9]});
  }
  return bars;
}

size_t count(const std::string& s, const std::string& needle) {
  size_t n = 0;
  for (size_t k = s.find(needle); k != std::string::npos; k = s.find(needle, k + 1)) ++n;
  return n;
}

const Span& span_of(const PartitionRecord& p, const std::string& phase) {
  for (size_t i = 0; i < kPhaseCount; ++i)
    if (kPhaseNames[i] == phase) return p.spans.at[i];
  throw std::logic_error("test bug: phase " + phase);
}

const char* const kPhases[] = {"synthesis", "stage", "lock_wait", "kernels", "finish"};

}  // namespace

// ================================================================== summary_json
CUZK_TEST(summary_json_fields_and_values) {
  const Fixture f = make_fixture();
  const std::string version = "0.4.0 \"test\"\tbuild";
  const std::string text = summary_json(version, f.wall_ms, f.parts, f.devs);
  io::Json j;
  try {
    j = io::parse_json(text);
  } catch (const std::exception& e) {
    CHECK_MSG(false, "summary_json does not parse: " << e.what() << "\n" << text.substr(0, 2000));
  }
  CHECK(j.is_object());
  CHECK_EQ(join(keys(j)), std::string("version,wall_ms,partitions,devices"));
  CHECK(member(j, "version").is_string());
  CHECK_EQ(member(j, "version").text, version);
  CHECK_MSG(close3(number(member(j, "wall_ms")), f.wall_ms), member(j, "wall_ms").text << " vs " << f.wall_ms);
  check_number_format(j);

  // Partitions: sorted by (job, index), each field from its record.
  const io::Json& parts = member(j, "partitions");
  CHECK(parts.is_array());
  CHECK_EQ(parts.items.size(), size_t(10));
  std::vector<std::pair<uint64_t, uint32_t>> want_order;
  for (auto& p : f.parts) want_order.push_back({p.job, p.index});
  std::sort(want_order.begin(), want_order.end());
  int failed_seen = 0;
  for (size_t i = 0; i < parts.items.size(); ++i) {
    const io::Json& o = parts.items[i];
    CHECK(o.is_object());
    CHECK_EQ(member(o, "job").as_u64().value_or(~0ull), want_order[i].first);
    CHECK_EQ(member(o, "index").as_u64().value_or(~0ull), uint64_t(want_order[i].second));
    const PartitionRecord& p = find_part(f, want_order[i].first, want_order[i].second);
    const std::string ctx = "partition (" + std::to_string(p.job) + "," + std::to_string(p.index) + ")";

    std::string want_keys = "index,job,device,worker,attempts,ok,";
    if (!p.ok) want_keys += "error,";
    want_keys += "streamed,reserved_bytes,timings_ms,spans_ms";
    CHECK_MSG(join(keys(o)) == want_keys, ctx << ": keys " << join(keys(o)));

    CHECK_EQ(member(o, "device").text, p.device);
    CHECK(member(o, "device").is_string());
    CHECK_EQ(member(o, "worker").as_u64().value_or(~0ull), uint64_t(p.worker));
    CHECK_EQ(member(o, "attempts").as_u64().value_or(~0ull), uint64_t(p.attempts));
    CHECK_EQ(member(o, "reserved_bytes").as_u64().value_or(~0ull), uint64_t(p.reserved_bytes));
    CHECK(member(o, "ok").is_bool());
    CHECK_EQ(member(o, "ok").boolean, p.ok);
    CHECK(member(o, "streamed").is_bool());
    CHECK_EQ(member(o, "streamed").boolean, p.streamed);
    if (!p.ok) {
      ++failed_seen;
      CHECK(member(o, "error").is_string());
      CHECK_MSG(member(o, "error").text == kBadErrorParsed, ctx << ": error '" << member(o, "error").text << "'");
    }

    const io::Json& t = member(o, "timings_ms");
    CHECK_EQ(join(keys(t)), std::string("queue,synthesis,stage,budget_wait,lock_wait,kernels,abc,ntt_h,msm_a,msm_b1,"
                                        "msm_b2,msm_c,msm_h,finish,verify"));
    std::vector<std::pair<std::string, double>> want_t;
    for (size_t i = 0; i < kPhaseCount; ++i) want_t.push_back({std::string(kPhaseNames[i]), p.spans.at[i].ms()});
    for (auto& [k, v] : want_t) {
      CHECK_MSG(close3(number(member(t, k.c_str())), v),
                ctx << ": timings_ms." << k << " " << member(t, k.c_str()).text << " vs " << v);
    }

    const io::Json& s = member(o, "spans_ms");
    std::string want_spans;
    for (const char* ph : kPhases) {
      const Span& sp = span_of(p, ph);
      if (!sp.happened()) {
        CHECK_MSG(s.find(ph) == nullptr, ctx << ": spans_ms has " << ph << ", which did not happen");
        continue;
      }
      want_spans += (want_spans.empty() ? "" : ",") + std::string(ph);
      const io::Json& a = member(s, ph);
      CHECK_MSG(a.is_array() && a.items.size() == 2, ctx << ": spans_ms." << ph);
      CHECK_MSG(close3(number(a.items[0]), sp.start_ms) && close3(number(a.items[1]), sp.end_ms),
                ctx << ": spans_ms." << ph << " [" << a.items[0].text << ", " << a.items[1].text << "] vs ["
                    << sp.start_ms << ", " << sp.end_ms << "]");
    }
    CHECK_MSG(join(keys(s)) == want_spans, ctx << ": spans_ms keys " << join(keys(s)) << ", want " << want_spans);
  }
  CHECK_EQ(failed_seen, 1);

  // Devices in the given order.
  const io::Json& devs = member(j, "devices");
  CHECK(devs.is_array());
  CHECK_EQ(devs.items.size(), f.devs.size());
  for (size_t i = 0; i < f.devs.size(); ++i) {
    const io::Json& o = devs.items[i];
    const DeviceRecord& d = f.devs[i];
    CHECK_EQ(join(keys(o)), std::string("device,description,workers,budget_bytes,busy_ms,busy_fraction,partitions"));
    CHECK_EQ(member(o, "device").text, d.name);
    CHECK_EQ(member(o, "description").text, d.description);
    CHECK_EQ(member(o, "workers").as_u64().value_or(~0ull), uint64_t(d.workers));
    CHECK_EQ(member(o, "budget_bytes").as_u64().value_or(~0ull), uint64_t(d.budget_bytes));
    CHECK_EQ(member(o, "partitions").as_u64().value_or(~0ull), uint64_t(d.partitions));
    CHECK_EQ(member(o, "partitions").as_u64().value_or(~0ull), uint64_t(5));
    CHECK(close3(number(member(o, "busy_ms")), d.busy_ms));
    const double frac = number(member(o, "busy_fraction"));
    CHECK_MSG(close3(frac, d.busy_ms / f.wall_ms), "busy_fraction " << frac << " vs " << d.busy_ms / f.wall_ms);
    CHECK_MSG(frac > 0.2 && frac < 1, "busy_fraction " << frac);
  }
}

// Degenerate inputs still give valid JSON: no records, zero or non-finite wall time.
CUZK_TEST(summary_json_edge_cases) {
  for (double wall : {0.0, -1.0, double(NAN), double(INFINITY)}) {
    std::vector<DeviceRecord> devs = {{"sim:0", "", 1, 0, 12.5, 0}};
    std::string text = summary_json("", wall, {}, devs);
    io::Json j = io::parse_json(text);  // throws (and fails the test) if not valid
    CHECK(member(j, "partitions").is_array() && member(j, "partitions").items.empty());
    CHECK_EQ(member(j, "wall_ms").text, std::string(wall == -1 ? "-1" : "0"));
    CHECK_EQ(member(member(j, "devices").items.at(0), "busy_fraction").text, std::string("0"));
  }
  // A partition that never reached a device: nothing in spans_ms, every timing 0.
  PartitionRecord p;
  p.job = 1;
  p.error = "no device";
  io::Json j = io::parse_json(summary_json("v", 10, {p}, {}));
  const io::Json& o = member(j, "partitions").items.at(0);
  CHECK(member(o, "spans_ms").is_object() && member(o, "spans_ms").fields.empty());
  for (auto& [k, v] : member(o, "timings_ms").fields) CHECK_MSG(v.text == "0", k << " = " << v.text);
  CHECK_EQ(member(o, "worker").text, std::string("-1"));
  CHECK_EQ(member(o, "error").text, std::string("no device"));
  // Rounding: 3 decimals, trailing zeros dropped.
  io::Json r = io::parse_json(summary_json("v", 1234.56789, {}, {}));
  CHECK_EQ(member(r, "wall_ms").text, std::string("1234.568"));
  r = io::parse_json(summary_json("v", 2.5, {}, {}));
  CHECK_EQ(member(r, "wall_ms").text, std::string("2.5"));
}

// A device with a clock of its own (the GPU's events): each partition's device_ms after its
// timings, the device's sum and its fraction of the wall; none of them without one.
CUZK_TEST(summary_json_device_clock) {
  double total = -1;
  add_device_ms(total, -1);
  CHECK_EQ(total, -1.0);  // no clock yet: still none
  add_device_ms(total, 2);
  add_device_ms(total, -1);
  add_device_ms(total, 3);
  CHECK_EQ(total, 5.0);
  PartitionRecord timed, host;
  timed.job = 1, timed.index = 0, timed.device = "gpu:0", timed.ok = true, timed.device_ms = 123.4567;
  host = timed;
  host.index = 1, host.device = "cpu", host.device_ms = -1;
  DeviceRecord gpu{"gpu:0", "", 2, 0, 800, 1};
  gpu.device_ms = 500;
  const DeviceRecord cpu{"cpu", "", 1, 0, 300, 1};
  io::Json j = io::parse_json(summary_json("v", 1000, {timed, host}, {gpu, cpu}));
  const io::Json& parts = member(j, "partitions");
  CHECK_EQ(join(keys(parts.items.at(0))),
           std::string("index,job,device,worker,attempts,ok,streamed,reserved_bytes,timings_ms,device_ms,spans_ms"));
  CHECK_EQ(member(parts.items.at(0), "device_ms").text, std::string("123.457"));
  CHECK_EQ(join(keys(parts.items.at(1))),
           std::string("index,job,device,worker,attempts,ok,streamed,reserved_bytes,timings_ms,spans_ms"));
  const io::Json& devs = member(j, "devices");
  CHECK_EQ(join(keys(devs.items.at(0))), std::string("device,description,workers,budget_bytes,busy_ms,busy_fraction,"
                                                     "device_busy_ms,device_busy_fraction,partitions"));
  CHECK_EQ(member(devs.items.at(0), "device_busy_ms").text, std::string("500"));
  CHECK_EQ(member(devs.items.at(0), "device_busy_fraction").text, std::string("0.5"));
  CHECK_EQ(join(keys(devs.items.at(1))),
           std::string("device,description,workers,budget_bytes,busy_ms,busy_fraction,partitions"));
}

// ================================================================== timeline_svg
CUZK_TEST(timeline_svg_structure) {
  const Fixture f = make_fixture();
  const std::string title = "run <1> & \"two\"";
  const std::string svg = timeline_svg(f.parts, f.devs, title);
  if (const char* path = std::getenv("CUZK_TEST_SVG_OUT")) {  // to look at it
    std::ofstream(path) << svg;
    std::printf("  wrote %s (%zu bytes)\n", path, svg.size());
  }
  CHECK_MSG(svg.rfind("<svg", 0) == 0, "starts with '" << svg.substr(0, 20) << "'");
  CHECK_MSG(svg.size() >= 6 && svg.compare(svg.size() - 6, 6, "</svg>") == 0, "does not end with </svg>");
  std::string why;
  CHECK_MSG(xml_well_formed(svg, &why), why);
  CHECK_MSG(svg.find("<script") == std::string::npos, "has a script");
  CHECK_MSG(svg.find("@font-face") == std::string::npos && svg.find("href") == std::string::npos,
            "refers to something outside");

  // Escaping: the title, a device description, the failed partition's error in its tooltips.
  CHECK_MSG(svg.find("run &lt;1&gt; &amp; &quot;two&quot;") != std::string::npos, "title not escaped as expected");
  CHECK(svg.find("<1>") == std::string::npos);
  CHECK(svg.find("NVIDIA H200 &amp; &lt;friends&gt;") != std::string::npos);
  CHECK(svg.find("<friends>") == std::string::npos);
  CHECK(svg.find("kernel &lt;msm_h&gt; failed: &quot;out of memory&quot;") != std::string::npos);
  CHECK(svg.find("<msm_h>") == std::string::npos);
  CHECK_MSG(svg.find('\x01') == std::string::npos && svg.find('\xff') == std::string::npos,
            "characters XML does not allow");

  // A label per row: synthesis, then each worker of each device in order.
  size_t prev = 0;
  for (const char* label :
       {">synthesis</text>", ">gpu:0 w0</text>", ">gpu:0 w1</text>", ">gpu:1 w0</text>", ">gpu:1 w1</text>"}) {
    size_t at = svg.find(label);
    CHECK_MSG(at != std::string::npos, "no label " << label);
    CHECK_MSG(at > prev, "label " << label << " out of order");
    prev = at;
  }
  CHECK_EQ(count(svg, ">gpu:0 w0</text>"), size_t(1));

  // Exactly one bar per phase that happened, with its tooltip.
  const std::vector<Bar> bars = parse_bars(svg);
  std::map<std::tuple<std::string, uint64_t, uint32_t>, Bar> by_key;
  for (auto& b : bars) {
    CHECK_MSG(by_key.emplace(std::make_tuple(b.phase, b.job, b.part), b).second,
              "two " << b.phase << " bars for job " << b.job << " partition " << b.part);
  }
  size_t happened = 0;
  for (auto& p : f.parts) {
    for (const char* ph : kPhases) {
      const Span& s = span_of(p, ph);
      auto it = by_key.find({ph, p.job, p.index});
      if (!s.happened()) {
        CHECK_MSG(it == by_key.end(), "a bar for " << ph << " of partition " << p.index << ", which did not happen");
        continue;
      }
      ++happened;
      CHECK_MSG(it != by_key.end(), "no " << ph << " bar for job " << p.job << " partition " << p.index);
      const Bar& b = it->second;
      const std::string prefix =
          "job " + std::to_string(p.job) + " partition " + std::to_string(p.index) + ": " + ph + " ";
      CHECK_MSG(b.title.rfind(prefix, 0) == 0, "tooltip '" << b.title << "'");
      const double ms = std::strtod(b.title.c_str() + prefix.size(), nullptr);
      CHECK_MSG(std::fabs(ms - s.ms()) <= 0.05 + 1e-9, "tooltip '" << b.title << "' vs " << s.ms());
      CHECK_MSG(b.title.find(" ms") != std::string::npos, "tooltip '" << b.title << "'");
      CHECK_MSG(b.red == !p.ok, "red outline " << b.red << " for ok=" << p.ok);
      CHECK(b.w >= 1 && b.h > 0);
    }
  }
  CHECK_EQ(bars.size(), happened);
  CHECK_MSG(count(svg, "<rect") >= happened, count(svg, "<rect") << " rects");
  CHECK(happened > 39);  // 10 synthesis + 10 stage + 10 kernels + 9 finish + some lock waits

  // One linear time axis: x = a + b * t over all bar starts and ends.
  const Bar& k0 = by_key.at({"kernels", 2, 0});
  const Bar& k1 = by_key.at({"kernels", 3, 5});
  const double t0 = find_part(f, 2, 0).spans[Phase::Kernels].start_ms,
               t1 = find_part(f, 3, 5).spans[Phase::Kernels].start_ms;
  CHECK(t1 > t0 + 100);
  const double scale = (k1.x - k0.x) / (t1 - t0);
  CHECK_MSG(scale > 0.5 && scale < 5, "scale " << scale << " px/ms");
  auto x_of = [&](double t) { return k0.x + (t - t0) * scale; };
  for (auto& [key, b] : by_key) {
    const Span& s = span_of(find_part(f, b.job, b.part), b.phase);
    CHECK_MSG(std::fabs(b.x - x_of(s.start_ms)) < 0.1,
              b.phase << " of " << b.part << ": x " << b.x << ", expected " << x_of(s.start_ms));
    CHECK_MSG(std::fabs(b.x + b.w - x_of(s.end_ms)) < 0.1 || (b.w == 1 && s.ms() * scale < 1),
              b.phase << " of " << b.part << ": right edge " << b.x + b.w << ", expected " << x_of(s.end_ms));
    CHECK_MSG(b.x >= 125 && b.x + b.w <= 1185, "bar outside the plot: x " << b.x << " w " << b.w);
  }
  // Within a partition the phases follow each other left to right...
  for (auto& p : f.parts) {
    double right = -1;
    for (const char* ph : kPhases) {
      auto it = by_key.find({ph, p.job, p.index});
      if (it == by_key.end()) continue;
      CHECK_MSG(it->second.x >= right - 0.02, ph << " of partition " << p.index << " starts at " << it->second.x
                                                 << ", left of the previous phase's end " << right);
      right = it->second.x + it->second.w;
    }
  }
  // ...and on a worker's row a later partition's bars lie right of the earlier one's.
  std::map<std::pair<std::string, int>, std::vector<const PartitionRecord*>> per_worker;
  for (auto& p : f.parts) per_worker[{p.device, p.worker}].push_back(&p);
  for (auto& [w, ps] : per_worker) {
    CHECK(ps.size() >= 2);
    for (size_t i = 1; i < ps.size(); ++i) {
      const Bar& a = by_key.at({ps[i - 1]->ok ? "finish" : "kernels", ps[i - 1]->job, ps[i - 1]->index});
      const Bar& b = by_key.at({"stage", ps[i]->job, ps[i]->index});
      CHECK_MSG(b.x >= a.x + a.w - 0.02, w.first << " w" << w.second << ": partition " << ps[i]->index << " stage at x "
                                                 << b.x << " overlaps the previous one ending at " << a.x + a.w);
    }
  }

  // Rows: every bar of one worker at one y; four distinct worker rows below the synthesis row,
  // in device then worker order.
  std::map<std::pair<std::string, int>, std::set<double>> ys;
  double synth_bottom = 0;
  for (auto& [key, b] : by_key) {
    const PartitionRecord& p = find_part(f, b.job, b.part);
    if (b.phase == "synthesis")
      synth_bottom = std::max(synth_bottom, b.y + b.h);
    else
      ys[{p.device, p.worker}].insert(b.y);
  }
  CHECK_EQ(ys.size(), size_t(4));
  double last_y = synth_bottom;
  for (auto& [w, set] : ys) {  // map order: gpu:0 w0, gpu:0 w1, gpu:1 w0, gpu:1 w1
    CHECK_MSG(set.size() == 1, w.first << " w" << w.second << ": bars at " << set.size() << " heights");
    CHECK_MSG(*set.begin() > last_y,
              w.first << " w" << w.second << " at y " << *set.begin() << ", not below " << last_y);
    last_y = *set.begin();
  }

  // Synthesis spans overlap (80 ms each, started 25 ms apart): stacked in sub-lanes.
  std::set<double> synth_ys;
  for (auto& b : bars)
    if (b.phase == "synthesis") synth_ys.insert(b.y);
  CHECK_MSG(synth_ys.size() >= 4, synth_ys.size() << " synthesis lanes");
  for (auto& a : bars) {
    for (auto& b : bars) {
      if (&a == &b || a.phase != "synthesis" || b.phase != "synthesis" || a.y != b.y) continue;
      CHECK_MSG(a.x + a.w <= b.x + 0.02 || b.x + b.w <= a.x + 0.02,
                "synthesis bars of " << a.part << " and " << b.part << " overlap in one lane");
    }
  }

  // The partition index inside every kernels bar (all are > 60 px wide here).
  static const std::regex idx_re("<text x=\"([0-9.]+)\" y=\"[0-9.]+\" class=\"idx\"[^>]*>([0-9]+)</text>");
  size_t idx_texts = 0;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), idx_re); it != std::sregex_iterator(); ++it) {
    const double x = std::stod((*it)[1]);
    const uint32_t index = uint32_t(std::stoul((*it)[2]));
    bool inside = false;
    for (auto& b : bars) inside |= b.phase == "kernels" && b.part == index && x > b.x && x < b.x + b.w;
    CHECK_MSG(inside, "index " << index << " at x " << x << " is not inside a kernels bar of that partition");
    ++idx_texts;
  }
  CHECK_EQ(idx_texts, f.parts.size());

  // Ticks: a sensible number, increasing, on the same axis as the bars, covering them.
  static const std::regex tick_re("<text x=\"([0-9.]+)\" y=\"[0-9.]+\" class=\"tick\"[^>]*>([-0-9.]+)</text>");
  std::vector<std::pair<double, double>> ticks;  // (x, label)
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), tick_re); it != std::sregex_iterator(); ++it)
    ticks.push_back({std::stod((*it)[1]), std::stod((*it)[2])});
  CHECK_MSG(ticks.size() >= 4 && ticks.size() <= 12, ticks.size() << " ticks");
  for (size_t i = 0; i < ticks.size(); ++i) {
    CHECK_MSG(std::fabs(ticks[i].first - x_of(ticks[i].second)) < 0.1,
              "tick " << ticks[i].second << " at x " << ticks[i].first << ", expected " << x_of(ticks[i].second));
    if (i) CHECK(ticks[i].second > ticks[i - 1].second);
  }
  double lo = 1e300, hi = 0;
  for (auto& b : bars) lo = std::min(lo, b.x), hi = std::max(hi, b.x + b.w);
  CHECK(ticks.front().first <= lo + 0.02 && ticks.back().first >= hi - 0.02);

  // Legend: a swatch per phase and for failures.
  CHECK_EQ(count(svg, "class=\"legend\""), size_t(7));
  for (const char* l : {">stage</text>", ">lock wait</text>", ">finish</text>", ">failed partition</text>"})
    CHECK_MSG(svg.find(l) != std::string::npos, "legend lacks " << l);
}

// A kernels bar too narrow for its index goes without; rows of an idle worker stay visible;
// a (device, worker) missing from the device list still gets a row; nothing at all still renders.
CUZK_TEST(timeline_svg_edge_cases) {
  PartitionRecord wide, narrow, stray;
  wide.job = 0, wide.index = 11, wide.device = "gpu:0", wide.worker = 0, wide.ok = true, wide.attempts = 1;
  wide.spans[Phase::Kernels] = {0, 1000};
  narrow = wide;
  narrow.index = 22;
  narrow.spans[Phase::Kernels] = {500, 500.01};
  stray = wide;
  stray.index = 33;
  stray.device = "gpu:7";
  stray.worker = 1;
  stray.spans[Phase::Kernels] = {100, 200};
  std::vector<DeviceRecord> devs = {{"gpu:0", "", 3, 0, 1000, 2}};
  std::string svg = timeline_svg({wide, narrow, stray}, devs, "t");
  std::string why;
  CHECK_MSG(xml_well_formed(svg, &why), why);
  CHECK(svg.find("class=\"idx\"") != std::string::npos);
  CHECK(svg.find(">11</text>") != std::string::npos);
  CHECK(svg.find(">22</text>") == std::string::npos);
  CHECK(svg.find(">33</text>") != std::string::npos);
  // The two bars of one worker that overlap in time are stacked, not drawn over each other.
  auto bars = parse_bars(svg);
  CHECK_EQ(bars.size(), size_t(3));
  CHECK(bars.at(0).part == 11 && bars.at(1).part == 22);
  CHECK_MSG(bars.at(0).y != bars.at(1).y, "overlapping bars of one worker at one height");
  for (const char* label : {">gpu:0 w0</text>", ">gpu:0 w1</text>", ">gpu:0 w2</text>", ">gpu:7 w1</text>"})
    CHECK_MSG(svg.find(label) != std::string::npos, "no row " << label);

  for (const std::string& s : {timeline_svg({}, {}, ""), timeline_svg({}, devs, "empty")}) {
    CHECK(s.rfind("<svg", 0) == 0);
    CHECK(s.size() >= 6 && s.compare(s.size() - 6, 6, "</svg>") == 0);
    CHECK_MSG(xml_well_formed(s, &why), why);
    CHECK(parse_bars(s).empty());
    CHECK(s.find("nan") == std::string::npos && s.find("inf") == std::string::npos);
  }
}
