#pragma once
// The imported graph without the values no output needs (constants folded into
// shapes, unused branches), keeping every input so the signature stays the model's.
#include <string>
#include <vector>

#include "ir/graph.h"

namespace smelt::importer {

// A copy of `g` holding its inputs and the cone of `outputs`, which become its
// outputs in order. An output value without a name gets the matching `output_names` entry
// (when that name is free).
ir::Graph prune_dead_values(const ir::Graph& g, const std::vector<ir::ValueId>& outputs,
                            const std::vector<std::string>& output_names);

}  // namespace smelt::importer
