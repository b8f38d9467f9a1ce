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
  std::string rewritten;  // the subterm the rule produced (empty for the starting term)
};

// How much of the terms an explanation spells out: flat explanations of terms
// with much sharing (a transformer block's graph as a tree) are large.
struct ExplainOptions {
  bool whole_terms = true;  // false: ExplanationStep::term stays empty, only `rewritten` is set
  std::size_t max_term_chars = static_cast<std::size_t>(-1);  // longer terms end in "..."
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
