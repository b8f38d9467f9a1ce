#pragma once
// A device profile: the measured numbers the cost model predicts with. Written
// by `smelt calibrate` (or by hand), read from JSON. See docs/cost.md.
#include <map>
#include <string>
#include <vector>

namespace cost {

enum class AccessKind { kContiguous, kStrided, kBroadcast };

struct MatmulThroughput {
  // A shape bucket: the entry with the nearest log-volume M·N·K applies.
  long m = 0, n = 0, k = 0;
  double gflops = 0;
};

struct DeviceProfile {
  std::string name;
  std::string device;           // "host", "cuda", "hip"
  double launch_overhead_us = 0;  // fixed cost of one kernel
  double read_gbps_contiguous = 0;
  double read_gbps_strided = 0;
  double read_gbps_broadcast = 0;
  double write_gbps = 0;
  double cache_bytes = 0;          // last-level cache; reads of smaller buffers are cheaper
  double cached_read_gbps = 0;     // bandwidth for buffers that fit in cache
  // Elements per nanosecond for each elementwise op name (ir op names);
  // "default" applies to ops not listed.
  std::map<std::string, double> op_elements_per_ns;
  std::vector<MatmulThroughput> matmul;

  double read_gbps(AccessKind kind) const;
  double op_rate(const std::string& op) const;  // elements per ns
  double matmul_gflops(long m, long n, long k) const;
};

// Throws std::runtime_error naming the file and the missing / bad field.
DeviceProfile load_profile(const std::string& path);
DeviceProfile parse_profile(const std::string& json_text, const std::string& source = "<profile>");
std::string profile_to_json(const DeviceProfile& profile);

// The profile that ships for the host (measured on the project's machine kind,
// embedded at build time from cost/profiles/host.json).
const DeviceProfile& default_host_profile();

}  // namespace cost
