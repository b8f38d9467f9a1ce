#pragma once
// Compares computed tensors with the reference interpreter's, with a tolerance
// by dtype: every compiled path is checked this way.
#include <cstdint>
#include <string>
#include <vector>

#include "ir/host_tensor.h"

namespace smelt::ir {

// Relative tolerance: 1e-4 for f32, 1e-2 for f16 / bf16, 0 (exact) for
// integers and bool.
double default_tolerance(DType t);

// How far one computed output is from the reference. Errors are relative to
// the output's scale, max(1, largest finite |reference| element): compiled
// reductions sum in f32 where the reference sums in double, so an element
// where a long sum cancels is off by ~K·eps of the terms' size, not of its own
// (a gemm output of scale 4000 whose element is -4.34 differs by ~6e-3).
// Non-finite elements must match exactly (NaN matches NaN).
struct OutputDifference {
  double max_abs = 0;  // largest |got - want| (inf for a non-finite mismatch)
  double max_rel = 0;  // max_abs / scale
  double scale = 1;
  double tolerance = 0;
  int64_t worst = -1;  // element with the largest error; -1 when equal
  bool ok = true;      // types equal and max_rel <= tolerance
};
OutputDifference compare_output(const HostTensor& want, const HostTensor& got);

// Empty when every output matches; otherwise the first output that does not:
// which output, its worst element, the two values and the error.
std::string compare_outputs(const std::vector<HostTensor>& want, const std::vector<HostTensor>& got);

}  // namespace smelt::ir
