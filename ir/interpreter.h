#pragma once
// The reference interpreter: evaluates a graph op by op, with no fusion. It is
// the oracle every compiled path is compared with. Semantics: docs/ops.md.
#include <stdexcept>
#include <vector>


#include "error/error.h"
#include "ir/graph.h"
#include "ir/host_tensor.h"

namespace smelt::ir {

class InterpretError : public Error {
 public:
  explicit InterpretError(const std::string& message) : Error(ErrorKind::kInterpret, message) {}
};

// `inputs` match g.inputs() by position and must have exactly their types.
// Returns the values of g.outputs(), in order.
std::vector<HostTensor> interpret(const Graph& g, const std::vector<HostTensor>& inputs);

// The value of every node (indexed by ValueId), for debugging and for checking
// intermediate values.
std::vector<HostTensor> interpret_all(const Graph& g, const std::vector<HostTensor>& inputs);

}  // namespace smelt::ir
