#pragma once
// Rule soundness: every rule proved with Z3 (verify/rule_prover.h): `smelt verify-rules`.
#include <string>
#include <vector>

#include "verify/rule_prover.h"

namespace smelt::tools {

// Proves every rule of the given .rules files, or of every shipped rule file
// (rules/*.rules as embedded at build time) when `files` is empty; results in
// file order. Throws rules::RuleError for a file that cannot be read or parsed
// or a rule name defined twice. `jobs` rules are proved at a time (0: one per
// hardware thread).
std::vector<verify::RuleResult> verify_rules(const std::vector<std::string>& files,
                                             const verify::ProverOptions& options = {}, unsigned jobs = 0,
                                             const verify::ProgressFn& on_progress = {});

}  // namespace smelt::tools
