#pragma once
// The oldest opset whose definition of each op has the semantics the importer
// implements. ONNX models name one opset for all their ops; a node whose op is
// defined differently at the model's opset (Softmax before 13 flattened to 2-D,
// Add before 7 had no numpy broadcasting, ...) is rejected rather than mis-imported.
#include <string>

namespace smelt::importer {

// The newest opset of the default domain the converters know (ONNX 1.18): a
// later one may redefine any op, so a model naming it is rejected, not guessed at.
inline constexpr int kNewestOpset = 23;

// The default for an op missing from the table is 13, the importer's baseline.
int min_opset_for(const std::string& op_type);

}  // namespace smelt::importer
