#pragma once
// numpy broadcasting made explicit: ONNX's elementwise ops broadcast implicitly,
// smelt's never do, so the importer inserts `broadcast` ops.
#include <vector>

#include "import/context.h"

namespace smelt::importer {

// The numpy broadcast of two shapes; a mismatch is an error of the current node.
ir::Shape broadcast_shapes(const Context& ctx, const ir::Shape& a, const ir::Shape& b);
// `x` broadcast to `shape` (unchanged when it already has it).
ir::Tensor broadcast_to(ir::Tensor x, const ir::Shape& shape);
// Every operand broadcast to their common shape.
std::vector<ir::Tensor> broadcast_together(const Context& ctx, std::vector<ir::Tensor> xs);

}  // namespace smelt::importer
