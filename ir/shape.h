#pragma once
// Static tensor shapes: a list of non-negative extents, row-major.
#include <cstdint>
#include <string>
#include <vector>

namespace smelt::ir {

using Shape = std::vector<int64_t>;

// Extents and element counts are at most 2^53, so that no size computed from a
// shape overflows (.sg files, ONNX models and inferred shapes alike).
inline constexpr int64_t kMaxElements = int64_t{1} << 53;
// Why `s` is not a shape (a negative extent, more than kMaxElements elements);
// "" when it is one.
std::string shape_problem(const Shape& s);

int64_t numel(const Shape& s);
// Row-major strides in elements.
std::vector<int64_t> row_major_strides(const Shape& s);
// "[2,3]" for shapes, "[]" for scalars.
std::string shape_str(const Shape& s);
// Any list of integers in the same bracketed form.
std::string ints_str(const std::vector<int64_t>& v);

}  // namespace smelt::ir
