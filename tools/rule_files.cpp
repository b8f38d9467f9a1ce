#include "tools/rule_files.h"

#include "error/input_file.h"
#include "rules/rule_parser.h"

namespace smelt::tools {

std::vector<rules::Rule> read_rule_files(const std::vector<std::string>& paths) {
  std::vector<rules::Rule> all;
  for (const std::string& path : paths) {
    std::string text;
    try {
      text = read_input_file(path);
    } catch (const InputFileError& e) {
      throw rules::RuleError(path, 1, 1, "", e.message());
    }
    std::vector<rules::Rule> parsed = rules::parse_rules(text, path);
    all.insert(all.end(), parsed.begin(), parsed.end());
  }
  rules::check_unique_names(all);
  return all;
}

}  // namespace smelt::tools
