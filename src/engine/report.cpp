// SPDX-License-Identifier: MIT OR Apache-2.0
#include "engine/report.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string_view>
#include <tuple>
#include <utility>

#include "io/json.hpp"
#include "util/utf8.hpp"

namespace cuzk::engine {

namespace {

// ------------------------------------------------------------------ text helpers

// Text for XML character data and attribute values (either quote): markup characters as
// entities; characters XML 1.0 does not allow at all (most C0 controls, U+FFFE, U+FFFF) and
// invalid UTF-8 as U+FFFD.
std::string xml_escape(std::string_view s) {
  std::string out;
  utf8::for_each_code_point(s, [&](uint32_t cp) {
    switch (cp) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        if ((cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') || cp == 0xFFFE || cp == 0xFFFF) cp = 0xFFFD;
        utf8::put(out, cp);
    }
  });
  return out;
}

// Fixed-point with `decimals` digits, trailing zeros (and a bare '.') dropped, "-0" as "0";
// non-finite values as "0". Locale-independent (to_chars).
std::string fixed(double v, int decimals) {
  if (!std::isfinite(v)) v = 0;
  char buf[400];  // enough for any finite double in fixed notation with a few decimals
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, decimals);
  std::string s = r.ec == std::errc() ? std::string(buf, r.ptr) : std::string("0");
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

// ------------------------------------------------------------------ JSON helpers
using io::JsonValue;

JsonValue jbool(bool b) { return JsonValue::boolean(b); }
JsonValue jstr(std::string_view s) { return JsonValue::string(std::string(s)); }
JsonValue jms(double v) { return JsonValue::number(fixed(v, 3)); }
template <class T>
JsonValue jint(T v) {
  return JsonValue::number(std::to_string(v));
}

std::vector<PartitionRecord> sorted_by_job_index(const std::vector<PartitionRecord>& parts) {
  std::vector<PartitionRecord> v = parts;
  std::stable_sort(v.begin(), v.end(), [](const PartitionRecord& a, const PartitionRecord& b) {
    return std::tie(a.job, a.index) < std::tie(b.job, b.index);
  });
  return v;
}

}  // namespace

std::string summary_json(const std::string& version, double wall_ms, const std::vector<PartitionRecord>& parts,
                         const std::vector<DeviceRecord>& devs) {
  JsonValue root = JsonValue::object();
  root.add("version", jstr(version));
  root.add("wall_ms", jms(wall_ms));

  JsonValue jparts = JsonValue::array();
  for (const PartitionRecord& p : sorted_by_job_index(parts)) {
    JsonValue o = JsonValue::object();
    o.add("index", jint(p.index));
    o.add("job", jint(p.job));
    o.add("device", jstr(p.device));
    o.add("worker", jint(p.worker));
    o.add("attempts", jint(p.attempts));
    o.add("ok", jbool(p.ok));
    if (!p.ok) o.add("error", jstr(p.error));
    o.add("streamed", jbool(p.streamed));
    o.add("reserved_bytes", jint(p.reserved_bytes));

    JsonValue t = JsonValue::object();
    for (size_t i = 0; i < kPhaseCount; ++i) t.add(std::string(kPhaseNames[i]), jms(p.spans.at[i].ms()));
    o.add("timings_ms", std::move(t));
    if (p.device_ms >= 0) o.add("device_ms", jms(p.device_ms));

    JsonValue s = JsonValue::object();
    for (Phase ph : kTopPhases) {
      const Span& sp = p.spans[ph];
      if (ph != cuzk::Phase::Queue && sp.happened())
        s.add(std::string(phase_name(ph)), JsonValue::array({jms(sp.start_ms), jms(sp.end_ms)}));
    }
    o.add("spans_ms", std::move(s));
    jparts.items.push_back(std::move(o));
  }
  root.add("partitions", std::move(jparts));

  JsonValue jdevs = JsonValue::array();
  for (const DeviceRecord& d : devs) {
    JsonValue o = JsonValue::object();
    o.add("device", jstr(d.name));
    o.add("description", jstr(d.description));
    o.add("workers", jint(d.workers));
    o.add("budget_bytes", jint(d.budget_bytes));
    o.add("busy_ms", jms(d.busy_ms));
    o.add("busy_fraction", jms(wall_ms > 0 ? d.busy_ms / wall_ms : 0.0));
    if (d.device_ms >= 0) {
      o.add("device_busy_ms", jms(d.device_ms));
      o.add("device_busy_fraction", jms(wall_ms > 0 ? d.device_ms / wall_ms : 0.0));
    }
    o.add("partitions", jint(d.partitions));
    jdevs.items.push_back(std::move(o));
  }
  root.add("devices", std::move(jdevs));
  return io::to_json(root);
}

// ================================================================== SVG timeline
namespace {

// How a phase is drawn: its legend and colour (its name, the bars' CSS class, is the phase table's).
struct Drawn {
  cuzk::Phase phase;
  const char* label;
  const char* fill;
  const char* name() const { return phase_name(phase).data(); }
  const Span& of(const PartitionRecord& p) const { return p.spans[phase]; }
};
const Drawn kSynth{cuzk::Phase::Synthesis, "synthesis (CPU)", "#74c476"};
const Drawn kWorkerPhases[] = {
    {cuzk::Phase::Stage, "stage", "#9ecae1"},
    {cuzk::Phase::LockWait, "lock wait", "#fdae6b"},
    {cuzk::Phase::Kernels, "kernels (device lock)", "#08519c"},
    {cuzk::Phase::Finish, "finish", "#bcbddc"},
};
constexpr const char* kFailStroke = "#d62728";

constexpr double kWidth = 1200, kLabelX = 8, kPlotX0 = 130, kPlotX1 = 1180;
constexpr double kPlotTop = 64;
constexpr double kSynthLaneH = 12, kSynthBarH = 10;
constexpr double kWorkerLaneH = 24, kWorkerBarH = 20, kMinWorkerRowH = 28;
constexpr double kDeviceHeaderH = 20;

// Greedy interval partitioning: lane of each interval (same order as given) and the lane count.
std::pair<std::vector<int>, int> assign_lanes(const std::vector<std::pair<double, double>>& iv) {
  std::vector<size_t> order(iv.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return iv[a].first < iv[b].first; });
  std::vector<double> lane_end;
  std::vector<int> lane(iv.size(), 0);
  for (size_t i : order) {
    int l = 0;
    while (l < int(lane_end.size()) && lane_end[size_t(l)] > iv[i].first) ++l;
    if (l == int(lane_end.size()))
      lane_end.push_back(iv[i].second);
    else
      lane_end[size_t(l)] = iv[i].second;
    lane[i] = l;
  }
  return {lane, std::max<int>(1, int(lane_end.size()))};
}

struct Axis {
  double d0 = 0, d1 = 1, step = 1;
  double x(double t) const { return kPlotX0 + (t - d0) / (d1 - d0) * (kPlotX1 - kPlotX0); }
};

// Ticks at 1, 2 or 5 x 10^k, about 8 over [lo, hi]; the axis spans whole steps.
Axis make_axis(double lo, double hi) {
  Axis a;
  if (!(hi > lo)) hi = lo + 1;
  const double raw = (hi - lo) / 8;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double norm = raw / mag;
  a.step = (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10) * mag;
  a.d0 = std::floor(lo / a.step) * a.step;
  a.d1 = std::ceil(hi / a.step) * a.step;
  if (!(a.d1 > a.d0)) a.d1 = a.d0 + a.step;
  return a;
}

int tick_decimals(double step) { return step >= 1 ? 0 : int(std::ceil(-std::log10(step) - 1e-9)); }

std::string num(double v) { return fixed(v, 2); }

std::string tooltip(const PartitionRecord& p, const char* phase, const Span& s) {
  std::string t = "job " + std::to_string(p.job) + " partition " + std::to_string(p.index) + ": " + phase + " " +
                  fixed(s.ms(), 1) + " ms";
  if (std::string_view(phase) == "kernels") {
    std::string inner;
    for (cuzk::Phase ph : {cuzk::Phase::Abc, cuzk::Phase::NttH, cuzk::Phase::MsmA, cuzk::Phase::MsmB1,
                           cuzk::Phase::MsmB2, cuzk::Phase::MsmC, cuzk::Phase::MsmH})
      if (p.spans[ph].happened())
        inner += (inner.empty() ? "" : ", ") + std::string(phase_name(ph)) + " " + fixed(p.ms(ph), 1);
    t += "\n" + inner + " ms";
  }
  if (!p.device.empty()) t += "\non " + p.device + " w" + std::to_string(p.worker);
  if (p.attempts > 1) t += ", attempt " + std::to_string(p.attempts);
  if (p.streamed) t += ", key streamed";
  if (!p.ok) t += "\nFAILED: " + p.error;
  return t;
}

void bar(std::string& out, const Axis& ax, const PartitionRecord& p, const char* phase, const char* fill, const Span& s,
         double y, double h) {
  const double x0 = ax.x(s.start_ms);
  const double w = std::max(1.0, ax.x(s.end_ms) - x0);
  out += "<rect class=\"bar " + std::string(phase) + "\" data-job=\"" + std::to_string(p.job) + "\" data-part=\"" +
         std::to_string(p.index) + "\" x=\"" + num(x0) + "\" y=\"" + num(y) + "\" width=\"" + num(w) + "\" height=\"" +
         num(h) + "\" fill=\"" + fill + "\"";
  if (!p.ok) out += " stroke=\"" + std::string(kFailStroke) + "\" stroke-width=\"2\"";
  out += "><title>" + xml_escape(tooltip(p, phase, s)) + "</title></rect>\n";
}

void text(std::string& out, double x, double y, const std::string& s, const std::string& attrs = "") {
  out += "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\"" + (attrs.empty() ? "" : " " + attrs) + ">" + xml_escape(s) +
         "</text>\n";
}

// ------------------------------------------------------------------ layout

// Time range of everything drawn: [0, 1] when nothing is.
std::pair<double, double> drawn_range(const std::vector<PartitionRecord>& parts) {
  double lo = INFINITY, hi = -INFINITY;
  for (auto& p : parts) {
    for (cuzk::Phase ph : {cuzk::Phase::Synthesis, cuzk::Phase::Stage, cuzk::Phase::LockWait, cuzk::Phase::Kernels,
                           cuzk::Phase::Finish}) {
      const Span* s = &p.spans[ph];
      if (!s->happened() || !std::isfinite(s->end_ms)) continue;
      lo = std::min(lo, s->start_ms);
      hi = std::max(hi, s->end_ms);
    }
  }
  if (!(lo <= hi)) lo = 0, hi = 1;
  // The axis starts at 0, the job's start (its submission), so that the wait before the first
  // partition shows.
  return {std::min(lo, 0.0), hi};
}

struct Row {
  std::string device;
  int worker;
  std::string label;
};

// A device's header line and its workers' rows.
struct Group {
  std::string header;
  std::string device;
  std::vector<Row> rows;
};

// The listed devices' workers, then any (device, worker) the records name that is not listed.
std::vector<Group> device_groups(const std::vector<PartitionRecord>& parts, const std::vector<DeviceRecord>& devs,
                                 double range) {
  std::vector<Group> groups;
  std::set<std::pair<std::string, int>> listed;
  for (auto& d : devs) {
    Group g;
    g.device = d.name;
    g.header = d.name + (d.description.empty() ? "" : " - " + d.description) + " - kernels busy " +
               fixed(d.busy_ms, 1) + " ms (" + fixed(100 * d.busy_ms / range, 0) + "% of the drawn range) - " +
               std::to_string(d.partitions) + " partitions, " + std::to_string(d.workers) + " workers";
    for (int w = 0; w < d.workers; ++w) {
      g.rows.push_back({d.name, w, d.name + " w" + std::to_string(w)});
      listed.insert({d.name, w});
    }
    groups.push_back(std::move(g));
  }
  std::map<std::string, std::set<int>> extra;
  for (auto& p : parts) {
    if (!p.device.empty() && p.worker >= 0 && !listed.count({p.device, p.worker})) extra[p.device].insert(p.worker);
  }
  for (auto& [dev, workers] : extra) {
    Group g;
    g.device = dev;
    g.header = dev + " (not in the device list)";
    for (int w : workers) g.rows.push_back({dev, w, dev + " w" + std::to_string(w)});
    groups.push_back(std::move(g));
  }
  return groups;
}

// The partitions drawn in one row and the lane of each.
struct Lanes {
  std::vector<size_t> parts;
  std::vector<int> lane;
  int lanes = 1;
};

Lanes synthesis_lanes(const std::vector<PartitionRecord>& parts) {
  Lanes l;
  std::vector<std::pair<double, double>> iv;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].spans[cuzk::Phase::Synthesis].happened()) {
      l.parts.push_back(i);
      iv.push_back({parts[i].spans[cuzk::Phase::Synthesis].start_ms, parts[i].spans[cuzk::Phase::Synthesis].end_ms});
    }
  }
  std::tie(l.lane, l.lanes) = assign_lanes(iv);
  return l;
}

// A partition's extent in a worker row: from its first worker phase to its last.
Lanes worker_lanes(const std::vector<PartitionRecord>& parts, const Row& row) {
  Lanes l;
  std::vector<std::pair<double, double>> iv;
  for (size_t i = 0; i < parts.size(); ++i) {
    const auto& p = parts[i];
    if (p.device != row.device || p.worker != row.worker) continue;
    double a = INFINITY, b = -INFINITY;
    for (auto& ph : kWorkerPhases) {
      const Span& s = ph.of(p);
      if (s.happened()) a = std::min(a, s.start_ms), b = std::max(b, s.end_ms);
    }
    if (a > b) continue;
    l.parts.push_back(i);
    iv.push_back({a, b});
  }
  std::tie(l.lane, l.lanes) = assign_lanes(iv);
  return l;
}

struct RowLayout : Lanes {
  double y = 0, h = 0;
};

// Vertical layout: the synthesis row, then per device its header line and its worker rows.
struct Layout {
  Lanes synth;
  double synth_h = 0;
  std::vector<double> header_y;              // per group
  std::vector<std::vector<RowLayout>> rows;  // per group, per row
  double plot_bottom = 0;
};

Layout lay_out(const std::vector<PartitionRecord>& parts, const std::vector<Group>& groups) {
  Layout lay;
  lay.synth = synthesis_lanes(parts);
  lay.synth_h = std::max(kMinWorkerRowH, lay.synth.lanes * kSynthLaneH + 8);
  lay.rows.resize(groups.size());
  lay.header_y.resize(groups.size());
  double y = kPlotTop + lay.synth_h;
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    lay.header_y[gi] = y;
    y += kDeviceHeaderH;
    for (auto& row : groups[gi].rows) {
      Lanes l = worker_lanes(parts, row);
      const double h = std::max(kMinWorkerRowH, l.lanes * kWorkerLaneH + 4);
      lay.rows[gi].push_back({std::move(l), y, h});
      y += h;
    }
  }
  lay.plot_bottom = y;
  return lay;
}

// ------------------------------------------------------------------ drawing

void svg_start(std::string& out, double height, const std::string& title) {
  out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(kWidth) + "\" height=\"" + num(height) +
         "\" viewBox=\"0 0 " + num(kWidth) + " " + num(height) + "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  out += "<rect x=\"0\" y=\"0\" width=\"" + num(kWidth) + "\" height=\"" + num(height) + "\" fill=\"#ffffff\"/>\n";
  text(out, kLabelX, 24, title, "font-size=\"16\" font-weight=\"bold\"");
}

// Legend and counts.
void legend(std::string& out, const std::vector<PartitionRecord>& parts, double lo, double hi) {
  double lx = kLabelX;
  auto swatch = [&](const char* label, const std::string& fill, const std::string& stroke, bool thin = false) {
    out += "<rect class=\"legend\" x=\"" + num(lx) + "\" y=\"" + (thin ? "40" : "36") + "\" width=\"12\" height=\"" +
           (thin ? "4" : "12") + "\" fill=\"" + fill + "\"" + (thin ? " fill-opacity=\"0.6\"" : "") +
           (stroke.empty() ? "" : " stroke=\"" + stroke + "\" stroke-width=\"2\"") + "/>\n";
    text(out, lx + 16, 46, label);
    lx += 16 + 7.0 * double(std::string_view(label).size()) + 18;
  };
  swatch(kSynth.label, kSynth.fill, "");
  for (auto& ph : kWorkerPhases) swatch(ph.label, ph.fill, "");
  swatch("failed partition", "#ffffff", kFailStroke);
  swatch("device busy (kernels of any worker)", "#08519c", "", true);
  size_t failed = 0;
  for (auto& p : parts) failed += p.ok ? 0 : 1;
  text(out, kPlotX1, 24,
       std::to_string(parts.size()) + " partitions" + (failed ? " (" + std::to_string(failed) + " failed)" : "") +
           ", " + fixed(hi - lo, 1) + " ms",
       "text-anchor=\"end\"");
}

// Row backgrounds and labels.
void row_backgrounds(std::string& out, const std::vector<Group>& groups, const Layout& lay) {
  out += "<rect class=\"row\" x=\"0\" y=\"" + num(kPlotTop) + "\" width=\"" + num(kWidth) + "\" height=\"" +
         num(lay.synth_h) + "\" fill=\"#f0f7ee\"/>\n";
  text(out, kLabelX, kPlotTop + lay.synth_h / 2 + 4, "synthesis", "class=\"label\"");
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    const double hy = lay.header_y[gi];
    out += "<line x1=\"0\" x2=\"" + num(kWidth) + "\" y1=\"" + num(hy) + "\" y2=\"" + num(hy) +
           "\" stroke=\"#888888\"/>\n";
    text(out, kLabelX, hy + 14, groups[gi].header, "class=\"device\" font-weight=\"bold\"");
    for (size_t ri = 0; ri < groups[gi].rows.size(); ++ri) {
      const auto& rl = lay.rows[gi][ri];
      out += "<rect class=\"row\" x=\"0\" y=\"" + num(rl.y) + "\" width=\"" + num(kWidth) + "\" height=\"" + num(rl.h) +
             "\" fill=\"" + (ri % 2 ? "#ffffff" : "#f4f4f4") + "\"/>\n";
      text(out, kLabelX + 10, rl.y + rl.h / 2 + 4, groups[gi].rows[ri].label, "class=\"label\"");
    }
  }
}

void grid_and_axis(std::string& out, const Axis& ax, double plot_bottom) {
  const int dec = tick_decimals(ax.step);
  const long nticks = std::lround((ax.d1 - ax.d0) / ax.step);
  for (long k = 0; k <= nticks; ++k) {
    const double t = ax.d0 + double(k) * ax.step;
    const double x = ax.x(t);
    out += "<line class=\"grid\" x1=\"" + num(x) + "\" x2=\"" + num(x) + "\" y1=\"" + num(kPlotTop) + "\" y2=\"" +
           num(plot_bottom + 5) + "\" stroke=\"#d0d0d0\" stroke-width=\"0.5\"/>\n";
    text(out, x, plot_bottom + 18, fixed(t, dec), "class=\"tick\" text-anchor=\"middle\"");
  }
  out += "<line x1=\"" + num(kPlotX0) + "\" x2=\"" + num(kPlotX1) + "\" y1=\"" + num(plot_bottom) + "\" y2=\"" +
         num(plot_bottom) + "\" stroke=\"#444444\"/>\n";
  text(out, kPlotX1, plot_bottom + 36, "time (ms)", "text-anchor=\"end\"");
}

// Device busy strips: the kernels of all its workers, in the device's header line.
void busy_strips(std::string& out, const Axis& ax, const std::vector<PartitionRecord>& parts,
                 const std::vector<Group>& groups, const Layout& lay) {
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    for (auto& p : parts) {
      if (p.device != groups[gi].device || !p.spans[cuzk::Phase::Kernels].happened()) continue;
      const double x0 = ax.x(p.spans[cuzk::Phase::Kernels].start_ms);
      out += "<rect class=\"busy\" x=\"" + num(x0) + "\" y=\"" + num(lay.header_y[gi] + kDeviceHeaderH - 5) +
             "\" width=\"" + num(std::max(1.0, ax.x(p.spans[cuzk::Phase::Kernels].end_ms) - x0)) +
             "\" height=\"4\" fill=\"#08519c\" fill-opacity=\"0.6\"/>\n";
    }
  }
}

void synthesis_bars(std::string& out, const Axis& ax, const std::vector<PartitionRecord>& parts, const Lanes& synth) {
  for (size_t k = 0; k < synth.parts.size(); ++k) {
    const auto& p = parts[synth.parts[k]];
    bar(out, ax, p, kSynth.name(), kSynth.fill, kSynth.of(p), kPlotTop + 4 + synth.lane[k] * kSynthLaneH, kSynthBarH);
  }
}

// One partition's bars in a worker row (top at y), its index on the kernels bar when it fits.
void worker_bars(std::string& out, const Axis& ax, const PartitionRecord& p, double by) {
  for (auto& ph : kWorkerPhases) {
    const Span& s = ph.of(p);
    if (s.happened()) bar(out, ax, p, ph.name(), ph.fill, s, by, kWorkerBarH);
  }
  if (p.spans[cuzk::Phase::Kernels].happened()) {
    const std::string label = std::to_string(p.index);
    const double x0 = ax.x(p.spans[cuzk::Phase::Kernels].start_ms), x1 = ax.x(p.spans[cuzk::Phase::Kernels].end_ms);
    if (x1 - x0 >= 7.0 * double(label.size()) + 4) {
      text(out, (x0 + x1) / 2, by + kWorkerBarH / 2 + 4, label,
           "class=\"idx\" text-anchor=\"middle\" fill=\"#ffffff\" font-size=\"11\" pointer-events=\"none\"");
    }
  }
}

void worker_rows(std::string& out, const Axis& ax, const std::vector<PartitionRecord>& parts, const Layout& lay) {
  for (auto& group_rows : lay.rows) {
    for (auto& rl : group_rows) {
      const double row_top = rl.y + (rl.h - rl.lanes * kWorkerLaneH) / 2;
      for (size_t k = 0; k < rl.parts.size(); ++k) {
        const double by = row_top + rl.lane[k] * kWorkerLaneH + (kWorkerLaneH - kWorkerBarH) / 2;
        worker_bars(out, ax, parts[rl.parts[k]], by);
      }
    }
  }
}

}  // namespace

void rebase_to_submission(std::vector<PartitionRecord>& recs) {
  double t0 = INFINITY, first = INFINITY;
  for (auto& r : recs) {
    if (r.spans[cuzk::Phase::Queue].start_ms >= 0) t0 = std::min(t0, r.spans[cuzk::Phase::Queue].start_ms);
    for (const Span& s : r.spans.at)
      if (s.start_ms >= 0) first = std::min(first, s.start_ms);
  }
  if (!std::isfinite(t0)) t0 = first;
  if (!std::isfinite(t0)) return;
  // A span not begun (or not ended) keeps its -1.
  for (auto& r : recs)
    for (Span& s : r.spans.at) {
      if (s.start_ms >= 0) s.start_ms = std::max(0.0, s.start_ms - t0);
      if (s.end_ms >= 0) s.end_ms = std::max(0.0, s.end_ms - t0);
    }
}

std::string timeline_svg(const std::vector<PartitionRecord>& parts_in, const std::vector<DeviceRecord>& devs,
                         const std::string& title) {
  const std::vector<PartitionRecord> parts = sorted_by_job_index(parts_in);
  const auto [lo, hi] = drawn_range(parts);
  const Axis ax = make_axis(lo, hi);
  const std::vector<Group> groups = device_groups(parts, devs, std::max(hi - lo, 1e-9));
  const Layout lay = lay_out(parts, groups);

  std::string out;
  svg_start(out, lay.plot_bottom + 44, title);
  legend(out, parts, lo, hi);
  row_backgrounds(out, groups, lay);
  grid_and_axis(out, ax, lay.plot_bottom);
  busy_strips(out, ax, parts, groups, lay);
  synthesis_bars(out, ax, parts, lay.synth);
  worker_rows(out, ax, parts, lay);
  out += "</svg>";
  return out;
}

}  // namespace cuzk::engine
