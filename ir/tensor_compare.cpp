#include "ir/tensor_compare.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace smelt::ir {

double default_tolerance(DType t) {
  if (t == DType::F32) return 1e-4;
  if (t == DType::F16 || t == DType::BF16) return 1e-2;
  return 0;
}

OutputDifference compare_output(const HostTensor& want, const HostTensor& got) {
  OutputDifference d;
  d.tolerance = default_tolerance(want.type.dtype);
  if (want.type != got.type) {
    d.ok = false;
    d.max_abs = d.max_rel = std::numeric_limits<double>::infinity();
    return d;
  }
  for (int64_t i = 0; i < want.numel(); ++i)
    if (std::isfinite(want.get(i))) d.scale = std::max(d.scale, std::fabs(want.get(i)));
  for (int64_t i = 0; i < want.numel(); ++i) {
    const double a = want.get(i), b = got.get(i);
    if ((std::isnan(a) && std::isnan(b)) || a == b) continue;
    const double error = std::isfinite(a) && std::isfinite(b) ? std::fabs(a - b) : std::numeric_limits<double>::infinity();
    if (error > d.max_abs || d.worst < 0) {
      d.max_abs = error;
      d.worst = i;
    }
  }
  d.max_rel = d.max_abs / d.scale;
  d.ok = d.max_rel <= d.tolerance;
  return d;
}

std::string compare_outputs(const std::vector<HostTensor>& want, const std::vector<HostTensor>& got) {
  if (want.size() != got.size())
    return std::to_string(got.size()) + " outputs, expected " + std::to_string(want.size());
  for (size_t o = 0; o < want.size(); ++o) {
    if (want[o].type != got[o].type)
      return "output " + std::to_string(o) + ": type " + type_str(got[o].type) + ", expected " +
             type_str(want[o].type);
    const OutputDifference d = compare_output(want[o], got[o]);
    if (d.ok) continue;
    std::ostringstream out;
    out << "output " << o << " element " << d.worst << ": " << got[o].get(d.worst) << ", expected "
        << want[o].get(d.worst) << " (error " << d.max_rel << " of the output's scale " << d.scale
        << ", tolerance " << d.tolerance << ")";
    return out.str();
  }
  return "";
}

}  // namespace smelt::ir
