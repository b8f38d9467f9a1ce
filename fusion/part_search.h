#pragma once
// The fusion search over a whole program, part by part (DESIGN.md,
// "Extraction"): the graph is split where few values cross
// (fusion/program_parts.h), each part's region of the saturated e-graph is
// searched by extract_fusion with the values earlier parts store as its
// inputs, a part isomorphic to one already searched (fusion/part_shape.h)
// takes its answer, and the parts' choices are joined into one program that
// is lowered and priced whole. Saturation stays whole-program: rules cross
// the cuts, only the extraction is split.
#include <vector>

#include "fusion/fusion_search.h"
#include "fusion/part_report.h"
#include "fusion/program_parts.h"
#include "ir/graph.h"
#include "rules/graph_io.h"

namespace smelt::fusion {

struct PartsExtraction {
  FusionExtraction program;  // the joined program, as extract_fusion reports one
  std::vector<PartReport> parts;
};

// `whole` prices the joined program (its roots: the graph's outputs); its
// e-graph holds `original` as `classes`. options.max_evaluations is the budget
// of all parts together, shared by their sizes; options.time_limit_s the
// safety net of all together. One part: extract_fusion on `whole`.
PartsExtraction extract_by_parts(FusionEvaluator& whole, const ir::Graph& original, const rules::GraphClasses& classes,
                                 const FusionOptions& options, const PartOptions& split = {});

}  // namespace smelt::fusion
