#include "ir/shape.h"

namespace smelt::ir {

std::string shape_problem(const Shape& s) {
  int64_t elements = 1;
  for (int64_t d : s) {
    if (d < 0) return "shape " + shape_str(s) + " has a negative extent";
    if (d > kMaxElements || __builtin_mul_overflow(elements, d, &elements) || elements > kMaxElements)
      return "shape " + shape_str(s) + " has more than 2^53 elements";
  }
  return {};
}

int64_t numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

std::vector<int64_t> row_major_strides(const Shape& s) {
  std::vector<int64_t> strides(s.size());
  int64_t stride = 1;
  for (size_t i = s.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= s[i];
  }
  return strides;
}

std::string ints_str(const std::vector<int64_t>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ",";
    out += std::to_string(v[i]);
  }
  return out + "]";
}

std::string shape_str(const Shape& s) { return ints_str(s); }

}  // namespace smelt::ir
