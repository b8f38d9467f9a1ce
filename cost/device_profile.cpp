#include "cost/device_profile.h"

#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

namespace cost {

extern const char* const kHostProfileJson;  // generated from cost/profiles/host.json

double DeviceProfile::read_gbps(AccessKind kind) const {
  switch (kind) {
    case AccessKind::kContiguous: return read_gbps_contiguous;
    case AccessKind::kStrided: return read_gbps_strided;
    case AccessKind::kBroadcast: return read_gbps_broadcast;
  }
  return read_gbps_contiguous;
}

double DeviceProfile::op_rate(const std::string& op) const {
  auto it = op_elements_per_ns.find(op);
  if (it == op_elements_per_ns.end()) it = op_elements_per_ns.find("default");
  return it == op_elements_per_ns.end() ? 1.0 : it->second;
}

double DeviceProfile::matmul_gflops(long m, long n, long k) const {
  if (matmul.empty()) return op_rate("mul");
  const double volume = std::log(static_cast<double>(std::max(1L, m)) * std::max(1L, n) * std::max(1L, k));
  const MatmulThroughput* best = &matmul.front();
  double best_distance = std::numeric_limits<double>::infinity();
  for (const MatmulThroughput& entry : matmul) {
    double distance = std::fabs(std::log(static_cast<double>(entry.m) * entry.n * entry.k) - volume);
    if (distance < best_distance) {
      best_distance = distance;
      best = &entry;
    }
  }
  return best->gflops;
}

namespace {

double positive(const nlohmann::json& j, const char* key, const std::string& source) {
  if (!j.contains(key) || !j[key].is_number())
    throw std::runtime_error(source + ": missing number field '" + key + "'");
  double v = j[key].get<double>();
  if (!(v > 0)) throw std::runtime_error(source + ": field '" + key + "' must be > 0");
  return v;
}

}  // namespace

DeviceProfile parse_profile(const std::string& json_text, const std::string& source) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::runtime_error(source + ": not JSON: " + e.what());
  }
  if (!j.is_object()) throw std::runtime_error(source + ": a profile is a JSON object");
  DeviceProfile p;
  p.name = j.value("name", "");
  p.device = j.value("device", "host");
  if (!j.contains("launch_overhead_us") || !j["launch_overhead_us"].is_number() || j["launch_overhead_us"].get<double>() < 0)
    throw std::runtime_error(source + ": missing number field 'launch_overhead_us' (>= 0)");
  p.launch_overhead_us = j["launch_overhead_us"].get<double>();
  p.read_gbps_contiguous = positive(j, "read_gbps_contiguous", source);
  p.read_gbps_strided = positive(j, "read_gbps_strided", source);
  p.read_gbps_broadcast = positive(j, "read_gbps_broadcast", source);
  p.write_gbps = positive(j, "write_gbps", source);
  p.cache_bytes = positive(j, "cache_bytes", source);
  p.cached_read_gbps = positive(j, "cached_read_gbps", source);
  if (!j.contains("op_elements_per_ns") || !j["op_elements_per_ns"].is_object())
    throw std::runtime_error(source + ": missing object field 'op_elements_per_ns'");
  for (const auto& [op, rate] : j["op_elements_per_ns"].items()) {
    if (!rate.is_number() || !(rate.get<double>() > 0))
      throw std::runtime_error(source + ": op_elements_per_ns." + op + " must be a number > 0");
    p.op_elements_per_ns[op] = rate.get<double>();
  }
  if (j.contains("matmul")) {
    if (!j["matmul"].is_array()) throw std::runtime_error(source + ": 'matmul' must be an array");
    for (const auto& entry : j["matmul"]) {
      MatmulThroughput t;
      t.m = static_cast<long>(positive(entry, "m", source + ": matmul entry"));
      t.n = static_cast<long>(positive(entry, "n", source + ": matmul entry"));
      t.k = static_cast<long>(positive(entry, "k", source + ": matmul entry"));
      t.gflops = positive(entry, "gflops", source + ": matmul entry");
      p.matmul.push_back(t);
    }
  }
  return p;
}

DeviceProfile load_profile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot read the profile");
  std::stringstream text;
  text << in.rdbuf();
  return parse_profile(text.str(), path);
}

std::string profile_to_json(const DeviceProfile& p) {
  nlohmann::json j = {{"name", p.name},
                      {"device", p.device},
                      {"launch_overhead_us", p.launch_overhead_us},
                      {"read_gbps_contiguous", p.read_gbps_contiguous},
                      {"read_gbps_strided", p.read_gbps_strided},
                      {"read_gbps_broadcast", p.read_gbps_broadcast},
                      {"write_gbps", p.write_gbps},
                      {"cache_bytes", p.cache_bytes},
                      {"cached_read_gbps", p.cached_read_gbps},
                      {"op_elements_per_ns", p.op_elements_per_ns}};
  nlohmann::json matmul = nlohmann::json::array();
  for (const MatmulThroughput& t : p.matmul)
    matmul.push_back({{"m", t.m}, {"n", t.n}, {"k", t.k}, {"gflops", t.gflops}});
  j["matmul"] = matmul;
  return j.dump(2) + "\n";
}

const DeviceProfile& default_host_profile() {
  static const DeviceProfile profile = parse_profile(kHostProfileJson, "cost/profiles/host.json");
  return profile;
}

}  // namespace cost
