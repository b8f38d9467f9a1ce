#pragma once
// Compares computed tensors with the reference interpreter's, with a tolerance
// by dtype: every compiled path is checked this way.
#include <string>
#include <vector>

#include "ir/host_tensor.h"

namespace ir {

// Relative tolerance (against max(1, |want|)): 1e-4 for f32 (fused kernels
// round intermediate products to the dtype, the reference accumulates in
// double), 1e-2 for f16 / bf16, 0 (exact) for integers and bool.
double default_tolerance(DType t);

// Empty when every output matches (NaN matches NaN); otherwise the first
// difference: which output, which element, the two values.
std::string compare_outputs(const std::vector<HostTensor>& want, const std::vector<HostTensor>& got);

}  // namespace ir
