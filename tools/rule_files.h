#pragma once
// Rule files named on the command line (smelt-internal): read with the
// bounded reader, parsed, names unique across them all.
#include <string>
#include <vector>

#include "rules/rule_ast.h"

namespace smelt::tools {

// Throws rules::RuleError ("FILE:LINE:COL: ...") for a file that cannot be
// read or parsed, or a name used twice.
std::vector<rules::Rule> read_rule_files(const std::vector<std::string>& paths);

}  // namespace smelt::tools
