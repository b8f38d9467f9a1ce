#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace smelt::egraph {

// One step of a proof: the whole term after applying `rule` somewhere inside
// it. `backward` means the rule was used right-to-left. Congruence is not a
// step of its own: it only places the rewrites of children inside the term.
struct ExplanationStep {
  std::string term;
  std::string rule;  // empty for the starting term
  bool backward = false;
};

// The chain of rewrites from one term to an equal one (egg's flat explanation):
// steps.front().term is the first term, steps.back().term the second.
struct Explanation {
  std::vector<ExplanationStep> steps;

  std::size_t num_rewrites() const { return steps.empty() ? 0 : steps.size() - 1; }
  // One line per step: "term" then "  <= rule" / "  => rule" lines.
  std::string to_string() const;
};

}  // namespace smelt::egraph
