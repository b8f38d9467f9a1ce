#include "cost/device_profile.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <thread>

#include "cost/embedded_profiles.h"
#include "error/input_file.h"

namespace smelt::cost {

namespace {

constexpr const char* kAccessNames[kNumAccessKinds] = {"contiguous", "strided", "gather", "broadcast", "masked", "indirect"};

}  // namespace

const char* access_kind_name(AccessKind kind) { return kAccessNames[static_cast<int>(kind)]; }

const ThreadRates& DeviceProfile::at(unsigned t) const {
  const ThreadRates* best = &rates.front();
  for (const ThreadRates& r : rates)
    if (r.threads <= std::max(1u, t)) best = &r;
  return *best;
}

namespace {
unsigned every_core() {
  static const unsigned cores = std::max(1u, std::thread::hardware_concurrency());  // reads sysfs: once
  return cores;
}
}  // namespace

unsigned DeviceProfile::threads() const { return run_threads > 0 ? run_threads : every_core(); }

DeviceProfile DeviceProfile::for_threads(unsigned t) const {
  DeviceProfile p = *this;
  p.run_threads = t > 0 ? t : every_core();
  return p;
}

double op_ns(const ThreadRates& r, const std::string& op) {
  auto it = r.op_ns.find(op);
  if (it == r.op_ns.end()) it = r.op_ns.find("default");
  return it == r.op_ns.end() ? 0.1 : it->second;
}

double interpolate(const Curve& curve, double x, Scale values) {
  if (curve.empty()) return 0;
  if (x <= curve.front().x) return curve.front().ns;
  if (x >= curve.back().x) return curve.back().ns;
  for (size_t i = 1; i < curve.size(); ++i) {
    if (x > curve[i].x) continue;
    const CurvePoint& a = curve[i - 1];
    const CurvePoint& b = curve[i];
    const double t = (std::log(x) - std::log(a.x)) / (std::log(b.x) - std::log(a.x));
    if (values == Scale::kLog) return std::exp(std::log(a.ns) + t * (std::log(b.ns) - std::log(a.ns)));
    return a.ns + t * (b.ns - a.ns);
  }
  return curve.back().ns;
}

double matmul_gflops(const std::vector<MatmulPoint>& points, long batch, long m, long n, long k) {
  if (points.empty()) return 1;
  auto lg = [](long v) { return std::log(static_cast<double>(std::max(1L, v))); };
  // Inverse-distance weighting of log GFLOP/s over the four nearest shapes;
  // M, N and K matter more than the batch (the batch only repeats the work).
  std::vector<std::pair<double, double>> near;  // (distance², log gflops)
  for (const MatmulPoint& p : points) {
    const double d = std::pow(lg(p.m) - lg(m), 2) + std::pow(lg(p.n) - lg(n), 2) + std::pow(lg(p.k) - lg(k), 2) +
                     0.25 * std::pow(lg(p.batch * p.m) - lg(batch * m), 2);
    near.push_back({d, std::log(p.gflops)});
  }
  const size_t keep = std::min<size_t>(4, near.size());
  std::partial_sort(near.begin(), near.begin() + static_cast<long>(keep), near.end());
  if (near.front().first < 1e-9) return std::exp(near.front().second);
  double weights = 0, sum = 0;
  for (size_t i = 0; i < keep; ++i) {
    const double w = 1 / near[i].first;
    weights += w;
    sum += w * near[i].second;
  }
  return std::exp(sum / weights);
}

void bound_parallel_matmul_rates(DeviceProfile& profile) {
  if (profile.rates.size() < 2) return;
  const ThreadRates& base = profile.rates.front();
  auto bound = [&](std::vector<MatmulPoint>& points, const std::vector<MatmulPoint>& base_points, double threads) {
    for (MatmulPoint& p : points)
      for (const MatmulPoint& b : base_points)
        if (b.batch == p.batch && b.m == p.m && b.n == p.n && b.k == p.k) p.gflops = std::min(p.gflops, threads * b.gflops);
  };
  for (size_t i = 1; i < profile.rates.size(); ++i) {
    ThreadRates& r = profile.rates[i];
    const double threads = static_cast<double>(r.threads) / static_cast<double>(std::max(1u, base.threads));
    bound(r.matmul, base.matmul, threads);
    bound(r.matmul_constant_b, base.matmul_constant_b, threads);
    bound(r.conv, base.conv, threads);
  }
}

namespace {

using nlohmann::json;

[[noreturn]] void bad(const std::string& source, const std::string& field, const std::string& what) {
  throw std::runtime_error(source + ": profile field '" + field + "' " + what);
}

const json& member(const json& j, const std::string& key, const std::string& path, const std::string& source) {
  if (!j.contains(key)) bad(source, path + key, "is missing");
  return j[key];
}

double number(const json& j, const std::string& key, const std::string& path, const std::string& source,
              bool positive) {
  const json& v = member(j, key, path, source);
  if (!v.is_number()) bad(source, path + key, "must be a number");
  const double d = v.get<double>();
  if (!std::isfinite(d)) bad(source, path + key, "must be finite");
  if (positive ? !(d > 0) : d < 0) bad(source, path + key, positive ? "must be > 0" : "must be >= 0");
  return d;
}

// A whole number in [1, max] (a thread count, a matmul dimension).
long whole(const json& j, const std::string& key, const std::string& path, const std::string& source, double max) {
  const double d = number(j, key, path, source, true);
  if (d != std::floor(d) || d > max)
    bad(source, path + key, "must be a whole number <= " + std::to_string(static_cast<long>(max)));
  return static_cast<long>(d);
}

std::string text(const json& j, const std::string& key, const std::string& source) {
  const json& v = member(j, key, "", source);
  if (!v.is_string()) bad(source, key, "must be a string");
  return v.get<std::string>();
}

Curve curve(const json& j, const std::string& path, const std::string& source) {
  if (!j.is_array() || j.empty()) bad(source, path, "must be a non-empty array of [size, ns]");
  Curve points;
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string at = path + "[" + std::to_string(i) + "]";
    const json& p = j[i];
    if (!p.is_array() || p.size() != 2 || !p[0].is_number() || !p[1].is_number())
      bad(source, at, "must be [size, ns]");
    const double x = p[0].get<double>(), ns = p[1].get<double>();
    if (!std::isfinite(x) || !(x > 0)) bad(source, at, "size must be finite and > 0");
    if (!std::isfinite(ns) || !(ns > 0)) bad(source, at, "ns must be finite and > 0");
    if (!points.empty() && !(x > points.back().x)) bad(source, at, "sizes must increase");
    points.push_back({x, ns});
  }
  return points;
}

// The points of a matmul curve ("matmul", "tensor_core_matmul", "matmul_constant_b", "conv").
std::vector<MatmulPoint> matmul_points(const json& mm, const std::string& path, const std::string& source) {
  std::vector<MatmulPoint> points;
  for (size_t i = 0; i < mm.size(); ++i) {
    const std::string at = path + "[" + std::to_string(i) + "].";
    if (!mm[i].is_object()) bad(source, at, "must be an object");
    MatmulPoint p;
    constexpr double kMaxDim = std::numeric_limits<int32_t>::max();
    p.batch = whole(mm[i], "batch", at, source, kMaxDim);
    p.m = whole(mm[i], "m", at, source, kMaxDim);
    p.n = whole(mm[i], "n", at, source, kMaxDim);
    p.k = whole(mm[i], "k", at, source, kMaxDim);
    p.gflops = number(mm[i], "gflops", at, source, true);
    points.push_back(p);
  }
  return points;
}

ThreadRates thread_rates(const json& j, const std::string& path, const std::string& source) {
  if (!j.is_object()) bad(source, path, "must be an object");
  ThreadRates r;
  r.threads = static_cast<unsigned>(whole(j, "threads", path, source, 4096));
  r.program_us = number(j, "program_us", path, source, false);
  r.kernel_us = number(j, "kernel_us", path, source, false);
  r.dispatch_us = number(j, "dispatch_us", path, source, false);
  const json& read = member(j, "read", path, source);
  if (!read.is_object()) bad(source, path + "read", "must be an object");
  for (int a = 0; a < kNumAccessKinds; ++a) {
    // A profile measured before indirect loads existed (issue 32): the
    // gather's curve (a random access per element) stands in.
    const char* name = a == static_cast<int>(AccessKind::kIndirect) && !read.contains(kAccessNames[a])
                           ? access_kind_name(AccessKind::kGather)
                           : kAccessNames[a];
    r.read[a] = curve(member(read, name, path + "read.", source), path + "read." + name, source);
  }
  r.write = curve(member(j, "write", path, source), path + "write", source);
  r.read_masked_narrow_ns = number(j, "read_masked_narrow_ns", path, source, false);
  if (j.contains("read_aliasing_size_factor"))
    r.read_aliasing_size_factor = curve(j["read_aliasing_size_factor"], path + "read_aliasing_size_factor", source);
  r.read_aliasing_stride =
      curve(member(j, "read_aliasing_stride", path, source), path + "read_aliasing_stride", source);
  const json& ops = member(j, "op_ns", path, source);
  if (!ops.is_object() || ops.empty()) bad(source, path + "op_ns", "must be a non-empty object");
  for (const auto& [op, v] : ops.items()) r.op_ns[op] = number(ops, op, path + "op_ns.", source, true);
  if (!r.op_ns.count("default")) bad(source, path + "op_ns.default", "is missing");
  r.row_ns = number(j, "row_ns", path, source, false);
  r.reduce_inner = curve(member(j, "reduce_inner", path, source), path + "reduce_inner", source);
  r.reduce_max_inner = curve(member(j, "reduce_max_inner", path, source), path + "reduce_max_inner", source);
  r.reduce_outer_ns = number(j, "reduce_outer_ns", path, source, true);
  const json& chain = member(j, "call_chain_factor", path, source);
  if (!chain.is_array() || chain.empty()) bad(source, path + "call_chain_factor", "must be a non-empty array of numbers");
  for (size_t i = 0; i < chain.size(); ++i) {
    const std::string at = path + "call_chain_factor[" + std::to_string(i) + "]";
    if (!chain[i].is_number()) bad(source, at, "must be a number");
    const double f = chain[i].get<double>();
    if (!std::isfinite(f) || !(f > 0)) bad(source, at, "must be finite and > 0");
    r.call_chain_factor.push_back(f);
  }
  r.prologue_ns = number(j, "prologue_ns", path, source, false);
  r.window_pack_ns = j.contains("window_pack_ns") ? number(j, "window_pack_ns", path, source, false) : 0;
  if (j.contains("loop_contraction"))
    r.loop_contraction = curve(j["loop_contraction"], path + "loop_contraction", source);
  if (j.contains("loop_contraction_row_factor"))
    r.loop_contraction_row_factor = curve(j["loop_contraction_row_factor"], path + "loop_contraction_row_factor", source);
  if (j.contains("loop_contraction_strided_row_factor"))
    r.loop_contraction_strided_row_factor =
        curve(j["loop_contraction_strided_row_factor"], path + "loop_contraction_strided_row_factor", source);
  if (j.contains("loop_epilogue_row_factor"))
    r.loop_epilogue_row_factor = curve(j["loop_epilogue_row_factor"], path + "loop_epilogue_row_factor", source);
  r.group_factor = number(j, "group_factor", path, source, true);
  r.group_factor_constant_b =
      j.contains("group_factor_constant_b") ? number(j, "group_factor_constant_b", path, source, true) : r.group_factor;
  if (j.contains("fill")) {
    r.fill = curve(j["fill"], path + "fill", source);
    for (size_t i = 0; i < r.fill.size(); ++i)
      if (r.fill[i].ns > 1) bad(source, path + "fill[" + std::to_string(i) + "]", "share must be <= 1");
  }
  // A matmul curve: a non-empty array of points ("matmul" required, the others optional).
  auto points = [&](const char* key) {
    const json& pts = member(j, key, path, source);
    if (!pts.is_array() || pts.empty()) bad(source, path + key, "must be a non-empty array");
    return matmul_points(pts, path + key, source);
  };
  r.matmul = points("matmul");
  if (j.contains("tensor_core_matmul")) r.tensor_core_matmul = points("tensor_core_matmul");
  if (j.contains("conv")) r.conv = points("conv");
  if (j.contains("matmul_constant_b")) r.matmul_constant_b = points("matmul_constant_b");
  return r;
}

// Where a SAX parse stopped: the path of the value being read, in the
// validator's spelling (rates[0].op_ns.exp). nlohmann reports a number too
// large for a double (1e400) without saying where it is.
class ErrorPath : public nlohmann::json_sax<json> {
 public:
  std::string path;

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override { return open(false); }
  bool key(string_t& k) override {
    frames_.back().key = k;
    return true;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(true); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;  // the value that failed
    for (const Frame& f : frames_) {
      if (f.array) {
        path += "[" + std::to_string(f.index) + "]";
      } else {
        path += (path.empty() ? "" : ".") + f.key;
      }
    }
    return false;
  }

 private:
  struct Frame {
    bool array = false;
    long index = -1;
    std::string key;
  };
  bool value() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
    return true;
  }
  bool open(bool array) {
    value();
    frames_.push_back({array, -1, ""});
    return true;
  }
  bool close() {
    frames_.pop_back();
    return true;
  }
  std::vector<Frame> frames_;
};

json curve_json(const Curve& c) {
  json a = json::array();
  for (const CurvePoint& p : c) a.push_back({p.x, p.ns});
  return a;
}

}  // namespace

DeviceProfile parse_profile(const std::string& json_text, const std::string& source,
                            const std::string& expected_device) {
  json j;
  try {
    j = json::parse(json_text);
  } catch (const json::parse_error& e) {
    throw std::runtime_error(source + ": not JSON: " + e.what());
  } catch (const json::out_of_range& e) {  // a number too large for a double
    ErrorPath where;
    json::sax_parse(json_text, &where);
    bad(source, where.path, std::string("must be finite: ") + e.what());
  }
  if (!j.is_object()) throw std::runtime_error(source + ": a profile is a JSON object");
  DeviceProfile p;
  const double format = number(j, "format", "", source, true);
  if (format != DeviceProfile::kFormat)
    bad(source, "format", "is " + j["format"].dump() + ", this smelt reads format " +
                              std::to_string(DeviceProfile::kFormat) + " (re-run smelt calibrate)");
  p.name = text(j, "name", source);
  p.device = text(j, "device", source);
  if (p.device != "host" && p.device != "cuda" && p.device != "hip")
    bad(source, "device", "must be \"host\", \"cuda\" or \"hip\", not \"" + p.device + "\"");
  if (!expected_device.empty() && p.device != expected_device)
    bad(source, "device", "is \"" + p.device + "\" but the target is \"" + expected_device + "\"");
  p.cpu = text(j, "cpu", source);
  p.date = text(j, "date", source);
  p.overlap = number(j, "overlap", "", source, false);
  if (p.overlap > 1) bad(source, "overlap", "must be <= 1");
  const json& rates = member(j, "rates", "", source);
  if (!rates.is_array() || rates.empty()) bad(source, "rates", "must be a non-empty array");
  for (size_t i = 0; i < rates.size(); ++i)
    p.rates.push_back(thread_rates(rates[i], "rates[" + std::to_string(i) + "].", source));
  for (size_t i = 1; i < p.rates.size(); ++i)
    if (p.rates[i].threads <= p.rates[i - 1].threads)
      bad(source, "rates[" + std::to_string(i) + "].threads", "must increase");
  // A GPU runs a kernel on the whole device: one set of rates, with its fill.
  if (p.device != "host") {
    if (p.rates.size() != 1) bad(source, "rates", "a " + p.device + " profile has one entry (the whole device)");
    if (p.rates[0].fill.empty()) bad(source, "rates[0].fill", "is missing (a " + p.device + " profile needs it)");
  }
  bound_parallel_matmul_rates(p);
  return p;
}

DeviceProfile load_profile(const std::string& path, const std::string& expected_device) {
  constexpr uint64_t kMaxProfileBytes = uint64_t{64} << 20;
  std::string text;
  try {
    text = read_input_file(path, kMaxProfileBytes);
  } catch (const InputFileError& e) {
    throw std::runtime_error(e.what());
  }
  return parse_profile(text, path, expected_device);
}

std::string profile_to_json(const DeviceProfile& p) {
  json rates = json::array();
  for (const ThreadRates& r : p.rates) {
    json read = json::object();
    for (int a = 0; a < kNumAccessKinds; ++a) read[kAccessNames[a]] = curve_json(r.read[a]);
    auto points_json = [](const std::vector<MatmulPoint>& points) {
      json mm = json::array();
      for (const MatmulPoint& m : points)
        mm.push_back({{"batch", m.batch}, {"m", m.m}, {"n", m.n}, {"k", m.k}, {"gflops", m.gflops}});
      return mm;
    };
    const json mm = points_json(r.matmul);
    rates.push_back({{"threads", r.threads},
                     {"program_us", r.program_us},
                     {"kernel_us", r.kernel_us},
                     {"dispatch_us", r.dispatch_us},
                     {"read", read},
                     {"write", curve_json(r.write)},
                     {"read_aliasing_stride", curve_json(r.read_aliasing_stride)},
                     {"read_masked_narrow_ns", r.read_masked_narrow_ns},
                     {"op_ns", r.op_ns},
                     {"row_ns", r.row_ns},
                     {"reduce_inner", curve_json(r.reduce_inner)},
                     {"reduce_max_inner", curve_json(r.reduce_max_inner)},
                     {"reduce_outer_ns", r.reduce_outer_ns},
                     {"call_chain_factor", r.call_chain_factor},
                     {"matmul", mm},
                     {"prologue_ns", r.prologue_ns},
                     {"window_pack_ns", r.window_pack_ns},
                     {"group_factor", r.group_factor},
                     {"group_factor_constant_b", r.group_factor_constant_b}});
    if (!r.fill.empty()) rates.back()["fill"] = curve_json(r.fill);
    if (!r.read_aliasing_size_factor.empty())
      rates.back()["read_aliasing_size_factor"] = curve_json(r.read_aliasing_size_factor);
    if (!r.loop_contraction.empty()) rates.back()["loop_contraction"] = curve_json(r.loop_contraction);
    if (!r.loop_contraction_row_factor.empty())
      rates.back()["loop_contraction_row_factor"] = curve_json(r.loop_contraction_row_factor);
    if (!r.loop_contraction_strided_row_factor.empty())
      rates.back()["loop_contraction_strided_row_factor"] = curve_json(r.loop_contraction_strided_row_factor);
    if (!r.loop_epilogue_row_factor.empty())
      rates.back()["loop_epilogue_row_factor"] = curve_json(r.loop_epilogue_row_factor);
    if (!r.tensor_core_matmul.empty()) rates.back()["tensor_core_matmul"] = points_json(r.tensor_core_matmul);
    if (!r.matmul_constant_b.empty()) rates.back()["matmul_constant_b"] = points_json(r.matmul_constant_b);
    if (!r.conv.empty()) rates.back()["conv"] = points_json(r.conv);
  }
  json j = {{"format", DeviceProfile::kFormat}, {"name", p.name}, {"device", p.device}, {"cpu", p.cpu},
            {"date", p.date}, {"overlap", p.overlap}, {"rates", rates}};
  return j.dump(1) + "\n";
}

const std::vector<ShippedProfile>& shipped_profiles() {
  static const std::vector<ShippedProfile> profiles = [] {
    std::vector<ShippedProfile> out = {{"cost/profiles/host.json", default_host_profile()}};
    for (const EmbeddedProfile* e = kShippedProfiles; e->file; ++e) out.push_back({e->file, parse_profile(e->json, e->file)});
    return out;
  }();
  return profiles;
}

std::string profile_file_name(const std::string& device, const std::string& processor) {
  std::string name;
  for (char c : processor) {
    if (std::isalnum(static_cast<unsigned char>(c))) name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (!name.empty() && name.back() != '-') name += '-';
  }
  while (!name.empty() && name.back() == '-') name.pop_back();
  if (device == "host") return "host" + (name.empty() ? "" : "-" + name) + ".json";
  return (name.empty() ? "gpu" : name) + ".json";
}

ChosenProfile shipped_profile_for(const std::string& device, const std::string& processor) {
  const std::string wanted = profile_file_name(device, processor);
  const ShippedProfile* best = nullptr;
  size_t best_prefix = 0;
  for (const ShippedProfile& s : shipped_profiles()) {
    if (s.profile.device != device) continue;
    const std::string file = profile_file_name(device, s.profile.cpu);
    if (file == wanted) return {s.profile, ""};
    size_t prefix = 0;
    while (prefix < file.size() && prefix < wanted.size() && file[prefix] == wanted[prefix]) ++prefix;
    if (!best || prefix > best_prefix) best = &s, best_prefix = prefix;
  }
  const std::string calibrate = device == "host" ? "`smelt calibrate`" : "`smelt calibrate --device " + device + "`";
  if (!best)
    throw std::runtime_error("no " + device + " cost profile ships with this smelt (for " + processor +
                             "): measure one with " + calibrate + " and pass it with --profile");
  return {best->profile, "costing with " + best->file + " (measured on " + best->profile.cpu + "): no profile ships for " +
                             processor + "; " + calibrate + " measures one"};
}

const DeviceProfile& default_host_profile() {
  static const DeviceProfile profile = parse_profile(kHostProfileJson, "cost/profiles/host.json", "host");
  return profile;
}

}  // namespace smelt::cost
