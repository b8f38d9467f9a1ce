#pragma once
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "egraph/egraph.h"

namespace smelt::egraph::testing {

inline Id add_term(EGraph& graph, const std::string& text) { return graph.add_expr(parse_term(text, graph.symbols())); }

inline std::optional<Id> find_term(const EGraph& graph, const std::string& text) {
  SymbolTable copy = graph.symbols();  // parsing may intern names; lookup must not change the graph
  return graph.lookup_expr(parse_term(text, copy));
}

inline void expect_sound(const EGraph& graph) {
  const std::vector<std::string> problems = graph.invariant_violations();
  EXPECT_TRUE(problems.empty()) << (problems.empty() ? "" : problems.front());
}

}  // namespace smelt::egraph::testing
