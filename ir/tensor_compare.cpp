#include "ir/tensor_compare.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ir {

double default_tolerance(DType t) {
  if (t == DType::F32) return 1e-4;
  if (t == DType::F16 || t == DType::BF16) return 1e-2;
  return 0;
}

std::string compare_outputs(const std::vector<HostTensor>& want, const std::vector<HostTensor>& got) {
  if (want.size() != got.size())
    return std::to_string(got.size()) + " outputs, expected " + std::to_string(want.size());
  for (size_t o = 0; o < want.size(); ++o) {
    if (want[o].type != got[o].type)
      return "output " + std::to_string(o) + ": type " + type_str(got[o].type) + ", expected " +
             type_str(want[o].type);
    const double tolerance = default_tolerance(want[o].type.dtype);
    for (int64_t i = 0; i < want[o].numel(); ++i) {
      const double a = want[o].get(i), b = got[o].get(i);
      if ((std::isnan(a) && std::isnan(b)) || a == b || std::fabs(a - b) <= tolerance * std::max(1.0, std::fabs(a)))
        continue;
      std::ostringstream out;
      out << "output " << o << " element " << i << ": " << b << ", expected " << a;
      return out.str();
    }
  }
  return "";
}

}  // namespace ir
