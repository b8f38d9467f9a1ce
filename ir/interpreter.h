#pragma once
// The reference interpreter: evaluates a graph op by op, with no fusion. It is
// the oracle every compiled path is compared with. Semantics: docs/ops.md.
#include <stdexcept>
#include <vector>


#include "error/error.h"
#include "ir/graph.h"
#include "ir/host_tensor.h"
#include "ir/tensor_compare.h"

namespace smelt::ir {

class InterpretError : public Error {
 public:
  explicit InterpretError(const std::string& message) : Error(ErrorKind::kInterpret, message) {}
};

// `inputs` match g.inputs() by position and must have exactly their types.
// Returns the values of g.outputs(), in order.
std::vector<HostTensor> interpret(const Graph& g, const std::vector<HostTensor>& inputs);

// The values of g.outputs() and each element's error scale: how far an honest
// compiled program may be from it, in units of the dtype's relative tolerance
// (ir/tensor_compare.h). Inputs and constants are exact; each float op adds
// its own |value| and carries its operands' scales through its slope; sums and
// contractions carry the sum of |term| + its scale; an element that may jump
// under rounding (a comparison of nearly equal values) gets +inf. Costs about
// twice interpret's time and memory; docs/testing.md has the derivation.
Reference interpret_with_error_scales(const Graph& g, const std::vector<HostTensor>& inputs);

// The value of every node (indexed by ValueId), for debugging and for checking
// intermediate values.
std::vector<HostTensor> interpret_all(const Graph& g, const std::vector<HostTensor>& inputs);

// The element visits of interpreting `g` (saturating at UINT64_MAX): per op the
// elements it writes and reads, a reduction every element of its operand, a
// matmul or convolution each of its products; twice that with error scales.
// The interpreter checks it against the work limit (error/memory_limit.h)
// before evaluating anything; check_interpreter_work is that check, for a
// caller that runs other work first (`smelt run --check` runs the compiled
// program before the reference).
uint64_t interpreter_work(const Graph& g, bool error_scales);
void check_interpreter_work(const Graph& g, bool error_scales);

}  // namespace smelt::ir
