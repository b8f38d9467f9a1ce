// smelt::tools::verify_rules: the rule files, parsed, each rule proved sound with Z3.
#include <string>

#include "rules/rule_library.h"
#include "rules/rule_parser.h"
#include "tools/rule_files.h"
#include "tools/verify_rules.h"

namespace smelt::tools {

std::vector<verify::RuleResult> verify_rules(const std::vector<std::string>& files,
                                             const verify::ProverOptions& options, unsigned jobs,
                                             const verify::ProgressFn& on_progress) {
  std::vector<rules::Rule> all;
  auto add = [&](std::string_view text, const std::string& name) {
    std::vector<rules::Rule> parsed = rules::parse_rules(text, name);
    all.insert(all.end(), parsed.begin(), parsed.end());
  };
  if (files.empty()) {
    for (const rules::RuleFile& f : rules::shipped_rule_files()) add(f.text, std::string(f.name));
  }
  std::vector<rules::Rule> given = read_rule_files(files);
  all.insert(all.end(), given.begin(), given.end());
  rules::check_unique_names(all);
  return verify::prove_rules(all, options, jobs, on_progress);
}

}  // namespace smelt::tools
