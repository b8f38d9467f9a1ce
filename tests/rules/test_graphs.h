#pragma once
// Helpers shared by the rules tests: example graphs, random inputs, semantic
// comparison of graphs with the reference interpreter, and term lookup.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "egraph/egraph.h"
#include "ir/graph.h"
#include "ir/host_tensor.h"
#include "rules/graph_io.h"

namespace smelt::rules::testing {

// examples/NAME.sg, parsed.
ir::Graph example(const std::string& name);
// The names of every examples/*.sg, sorted.
std::vector<std::string> example_names();

std::vector<ir::HostTensor> random_inputs(const ir::Graph& g, uint64_t seed);
// Random inputs where about a third of the elements are edge values: ±0, ±1,
// ±inf, NaN, the largest and a subnormal value of floats; 0, ±1 and the
// extremes of integers.
std::vector<ir::HostTensor> edge_inputs(const ir::Graph& g, uint64_t seed);

// Empty when both graphs give the same outputs on `inputs`: tolerance 0,
// bit-identical (so -0.0 ≠ 0.0; NaN always matches NaN); otherwise smelt's one
// rule (ir::compare_outputs) with rtol `tolerance`, the expected graph's error
// scales judging each element. Otherwise what differs.
std::string compare_outputs(const ir::Graph& expected, const ir::Graph& actual,
                            const std::vector<ir::HostTensor>& inputs, double tolerance = 1e-5);

// A term given as a graph: the class holding value `v` (default: the first
// output), if the e-graph has every node of the graph up to v (matched by op,
// attributes after inference and operand classes; inputs by name).
std::optional<smelt::egraph::Id> find_term(const smelt::egraph::EGraph& graph, const ir::Graph& term,
                                           ir::ValueId v = -1);

// Whether class `to` is `from` or reachable from it through e-nodes' operands:
// some term of `from` contains a term of `to`.
bool reaches(const smelt::egraph::EGraph& graph, smelt::egraph::Id from, smelt::egraph::Id to);

// Empty when the values are equal (as compare_outputs; without error scales,
// each element judged by its own magnitude).
std::string compare_values(const std::vector<ir::HostTensor>& want, const std::vector<ir::HostTensor>& got,
                           double tolerance);

}  // namespace smelt::rules::testing
