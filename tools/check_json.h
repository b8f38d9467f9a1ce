#pragma once
// One computed output judged against the reference (ir::compare_output) as one
// JSON object: what `smelt run --check --json` writes per output and what
// Python's smelt.compare returns (one writer for both, so they cannot drift):
// ok, max_abs_error, rtol, atol, worst_element (its index, or null),
// worst_error, worst_bound, worst_scale, failed_elements, unchecked_elements.
#include <string>

#include "ir/tensor_compare.h"

namespace smelt::tools {

std::string output_check_json(const ir::Shape& shape, const ir::OutputDifference& difference);

}  // namespace smelt::tools
