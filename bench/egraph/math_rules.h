#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "egraph/egraph.h"
#include "egraph/rewrite.h"

namespace smelt::egraph::math {

// The public egglog math micro-benchmark: 24 rules over + - * / pow d i sin
// cos ln sqrt, integer literals as payload leaves, symbols (x, y, five) as
// nullary operators.
std::vector<PatternRewrite> benchmark_rules(SymbolTable& symbols);
// The seven root terms; returns their classes.
std::vector<Id> add_benchmark_roots(EGraph& graph);
const std::vector<std::string>& benchmark_root_terms();

// Distinct canonical e-nodes after N steps (independent implementations
// agree), for N = 5..12; nullopt outside that range.
std::optional<std::size_t> expected_nodes(std::size_t steps);

}  // namespace smelt::egraph::math
