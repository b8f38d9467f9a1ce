#include "ir/tensor_compare.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace smelt::ir {

double default_tolerance(DType t) {
  if (t == DType::F32) return 1e-4;
  if (t == DType::F16) return 1e-2;
  if (t == DType::BF16) return 2e-2;
  return 0;
}

OutputDifference compare_output(const HostTensor& want, const HostTensor& got, const HostTensor* error_scale,
                                const Tolerance& tolerance) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  OutputDifference d;
  d.rtol = tolerance.rtol >= 0 ? tolerance.rtol : default_tolerance(want.type.dtype);
  d.atol = tolerance.atol;
  if (want.type != got.type) {
    d.ok = false;
    d.worst_error = d.worst_ratio = d.max_abs = kInf;
    return d;
  }
  if (error_scale && error_scale->numel() != want.numel())
    throw std::invalid_argument("compare_output: an error scale of " + type_str(error_scale->type) + " for " +
                                type_str(want.type));
  for (int64_t i = 0; i < want.numel(); ++i) {
    const double a = want.get(i), b = got.get(i);
    if ((std::isnan(a) && std::isnan(b)) || a == b) continue;
    const double scale = std::max(std::isfinite(a) ? std::fabs(a) : 0.0, error_scale ? error_scale->get(i) : 0.0);
    if (std::isinf(scale)) {  // the value may jump under rounding: any is honest
      ++d.unchecked;
      continue;
    }
    const double error = std::isfinite(a) && std::isfinite(b) ? std::fabs(a - b) : kInf;
    const double bound = d.atol + d.rtol * scale;
    const double ratio = error <= bound ? (bound > 0 ? error / bound : 0) : bound > 0 ? error / bound : kInf;
    d.max_abs = std::max(d.max_abs, error);
    if (error > bound) {
      ++d.failed;
      d.ok = false;
    }
    if (d.worst < 0 || ratio > d.worst_ratio) {
      d.worst = i;
      d.worst_error = error;
      d.worst_bound = bound;
      d.worst_scale = scale;
      d.worst_ratio = ratio;
    }
  }
  return d;
}

std::vector<int64_t> multi_index(const Shape& shape, int64_t flat) {
  std::vector<int64_t> index(shape.size());
  for (size_t k = shape.size(); k-- > 0;) {
    const int64_t extent = std::max<int64_t>(1, shape[k]);
    index[k] = flat % extent;
    flat /= extent;
  }
  return index;
}

std::string element_index(const Shape& shape, int64_t flat) {
  const std::vector<int64_t> index = multi_index(shape, flat);
  std::string out = "[";
  for (size_t k = 0; k < index.size(); ++k) out += (k ? "," : "") + std::to_string(index[k]);
  return out + "]";
}

std::string describe_difference(const HostTensor& want, const HostTensor& got, const OutputDifference& d) {
  std::ostringstream out;
  if (want.type != got.type) {
    out << "type " << type_str(got.type) << ", expected " << type_str(want.type);
    return out.str();
  }
  if (d.worst < 0) return "equal";
  out << "element " << element_index(want.type.shape, d.worst) << ": got " << got.get(d.worst) << ", expected "
      << want.get(d.worst) << ", error " << d.worst_error << (d.worst_error > d.worst_bound ? " > " : " <= ")
      << "bound " << d.worst_bound << " (rtol " << d.rtol << " x scale " << d.worst_scale;
  if (d.atol > 0) out << " + atol " << d.atol;
  out << "); " << d.failed << " of " << want.numel() << " elements outside";
  if (d.unchecked > 0) out << ", " << d.unchecked << " unchecked (their value may jump under rounding)";
  return out.str();
}

std::string compare_outputs(const Reference& want, const std::vector<HostTensor>& got, const Tolerance& tolerance) {
  if (want.values.size() != got.size())
    return std::to_string(got.size()) + " outputs, expected " + std::to_string(want.values.size());
  for (size_t o = 0; o < got.size(); ++o) {
    const HostTensor* scale = o < want.error_scales.size() ? &want.error_scales[o] : nullptr;
    const OutputDifference d = compare_output(want.values[o], got[o], scale, tolerance);
    if (d.ok) continue;
    return "output " + std::to_string(o) + " " + describe_difference(want.values[o], got[o], d);
  }
  return "";
}

}  // namespace smelt::ir
