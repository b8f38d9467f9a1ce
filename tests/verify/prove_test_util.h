#pragma once
// Helpers for the rule prover's tests: prove rules written inline.
#include <string>

#include "rules/rule_parser.h"
#include "verify/rule_prover.h"

namespace smelt::verify::testing {

// Parses `text` (one rule) and proves it.
inline RuleResult prove_text(const std::string& text, const ProverOptions& options = {}) {
  std::vector<rules::Rule> parsed = rules::parse_rules(text, "inline.rules");
  return prove_rule(parsed.at(0), options);
}

// The message and counterexample of a result, for failure output.
inline std::string explain(const RuleResult& r) {
  return r.name + ": " + std::string(verdict_name(r.verdict)) + " " + r.message + "\n" + r.counterexample;
}

}  // namespace smelt::verify::testing
