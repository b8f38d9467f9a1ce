#pragma once
// The .rules parser (docs/rules.md): text → smelt::rules::Rule (rule_ast.h), with every
// static check the language defines (known ops, attribute keys and functions,
// matching left/right root counts, bound variables, one kind per variable).
// The input may be arbitrary bytes; every problem is a RuleError, never a crash.
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "error/error.h"
#include "rules/rule_ast.h"

namespace smelt::rules {

// what() is "FILE:LINE:COL: rule NAME: message", or "FILE:LINE:COL: message"
// for a problem outside a rule. Lines and columns count from 1 (columns in bytes).
class RuleError : public Error {
 public:
  RuleError(std::string file, int line, int col, std::string rule, std::string message);
  const std::string& file() const { return location().file; }
  int line() const { return location().line; }
  int col() const { return location().col; }
  const std::string& rule() const { return rule_; }  // "" outside a rule
  // Without the location and the rule's name (Error::message() has the name).
  const std::string& problem() const { return problem_; }

 private:
  std::string rule_;
  std::string problem_;
};

// Parses every rule of one file. `file` names it in errors and in Rule::file.
std::vector<Rule> parse_rules(std::string_view text, const std::string& file);

// Rule names are unique across all loaded files: throws a RuleError at the
// second rule of a name that occurs twice.
void check_unique_names(std::span<const Rule> rules);

}  // namespace smelt::rules
