// smelt::verify_rules: the rule files, parsed, each rule proved sound with Z3.
#include <string>

#include "ir/input_file.h"
#include "rules/rule_library.h"
#include "rules/rule_parser.h"
#include "smelt/smelt.h"

namespace smelt {

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
  for (const std::string& path : files) {
    std::string text;
    try {
      text = ir::read_input_file(path);
    } catch (const ir::InputFileError& e) {
      throw rules::RuleError(path, 1, 1, "", e.message());
    }
    add(text, path);
  }
  rules::check_unique_names(all);
  return verify::prove_rules(all, options, jobs, on_progress);
}

}  // namespace smelt
