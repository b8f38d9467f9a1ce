// libFuzzer target for the device-profile reader: any bytes either read into a
// profile that costs ops, or raise std::runtime_error naming the field — nothing
// else (no other exception, no crash, no sanitizer report).
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "cost/device_profile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  smelt::cost::DeviceProfile profile;
  try {
    profile = smelt::cost::parse_profile(text, "fuzz.json");
  } catch (const std::runtime_error&) {
    return 0;
  }
  // What the cost model reads of a profile it accepted.
  const smelt::cost::ThreadRates& rates = profile.at(profile.threads());
  smelt::cost::op_ns(rates, "add");
  smelt::cost::matmul_gflops(rates.matmul, 1, 64, 64, 64);
  smelt::cost::matmul_gflops(rates.tensor_core_matmul, 1, 64, 64, 64);
  smelt::cost::matmul_gflops(rates.matmul_constant_b, 1, 64, 64, 64);
  smelt::cost::parse_profile(smelt::cost::profile_to_json(profile), "written.json");
  return 0;
}
